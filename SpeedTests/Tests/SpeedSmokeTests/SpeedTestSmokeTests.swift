// Runs every speed-test executable at a tiny scale and checks that each did the work it
// reports: exact counts and the values it read back. No timing is asserted here; speed is
// measured by `make speed`.

import EtcdTestSupport
import Foundation
import Testing

@Suite(.serialized) struct SpeedTestSmokeTests {
    private static let scale = "0.001"   // 100 songs a complex round, 1,000 simple songs

    /// The RESULT lines of one run, as key-value dictionaries.
    private func run(_ engine: String, _ workload: String, in directory: String,
                     scale: String = Self.scale, environment: [String: String] = [:]) throws -> [[String: String]] {
        let output = try Executable.run("\(engine)SpeedTest",
                                              [workload, "--dir", directory, "--scale", scale, "--durability", "nosync"],
                                              environment: environment)
        #expect(output.status == 0, "\(engine) \(workload): exit \(output.status)")
        return output.text.split(separator: "\n").filter { $0.hasPrefix("RESULT ") }.map { line in
            Dictionary(line.split(separator: " ").dropFirst().compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        }
    }

    private func result(_ results: [[String: String]], phase: String) -> [String: String] {
        results.first { $0["phase"] == phase } ?? [:]
    }

    @Test(arguments: ["Larder", "SQLite", "GRDB"])
    func everyObjectEngineDoesEveryWorkload(engine: String) throws {
        let directory = Executable.scratchDirectory("speed-\(engine)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let insert = try run(engine, "ComplexInsert", in: directory)
        #expect(insert.filter { $0["phase"]?.hasPrefix("round") == true }.count == 10)
        #expect(result(insert, phase: "total")["count"] == "1000")
        let fetches = try run(engine, "ComplexFetch", in: directory)
        let fetch = result(fetches, phase: "fetch")
        #expect(fetch["count"] == "10")
        if engine == "Larder" {
            // The same playlists read as `[Song]`.
            let array = result(fetches, phase: "fetchArray")
            #expect(array["count"] == fetch["count"] && array["check"] == fetch["check"])
        }
        #expect(fetch["check"] == "Test_Song_1")
        let update = result(try run(engine, "SimpleUpdate", in: directory), phase: "update")
        #expect(update["count"] == "333")

        #expect(result(try run(engine, "SimpleInsert", in: directory), phase: "insert")["count"] == "1000")
        for workload in ["SimpleFetch", "SimpleFetchStreaming"] {
            let fetchAll = result(try run(engine, workload, in: directory), phase: "fetch")
            #expect(fetchAll["count"] == "1000", "\(workload)")
            #expect(fetchAll["check"] == "seconds_500500", "\(workload)")
        }
        let reads = try run(engine, "PointRead", in: directory)
        for phase in ["autocommit", "transaction"] {
            #expect(result(reads, phase: phase)["count"] == "100", "\(phase)")
            #expect(result(reads, phase: phase)["check"] == "title_bytes_900", "\(phase)")
        }
    }

    @Test func fullTextFindsTheSameTitlesOnLarderAndSQLite() throws {
        let directory = Executable.scratchDirectory("speed-fulltext")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 10,000 titles: at 1,000 the searched words are too rare to be found.
        let larder = try run("Larder", "FullText", in: directory, scale: "0.01")
        let sqlite = try run("SQLite", "FullText", in: directory, scale: "0.01")
        #expect(result(larder, phase: "insert")["count"] == "10000")
        #expect(result(sqlite, phase: "insert")["count"] == "10000")
        var matches = 0
        for phase in ["choice", "brain", "pets", "and"] {
            let found = result(larder, phase: phase)
            #expect(found["check"]?.hasPrefix("title_bytes_") == true, "\(phase)")
            #expect(found["check"] == result(sqlite, phase: phase)["check"], "\(phase): FTS5")
            #expect(found["check"] == result(sqlite, phase: phase + "_like")["check"], "\(phase): LIKE")
            #expect(found["count"] == result(larder, phase: phase + "_count")["count"], "\(phase): count")
            matches += Int(found["count"] ?? "") ?? 0
        }
        #expect(matches > 0, "no search matched anything")
        #expect(Int(result(larder, phase: "index_size")["size_bytes"] ?? "") ?? 0 > 0)
    }

    @Test func bothDocumentEnginesFindTheSameDocuments() throws {
        let directory = Executable.scratchDirectory("speed-documents")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let larder = try run("Larder", "Documents", in: directory + "/larder")
        let sqlite = try run("SQLite", "Documents", in: directory + "/sqlite")
        #expect(result(larder, phase: "insertBatch")["count"] == "1000")
        for phase in ["insertBatch", "findEqual", "findRangeOrderLimit", "findRange100", "findTag", "count", "update10pct"] {
            #expect(result(larder, phase: phase)["count"] == result(sqlite, phase: phase)["count"], "\(phase)")
            #expect(result(larder, phase: phase)["check"] == result(sqlite, phase: phase)["check"], "\(phase)")
        }
        #expect(result(sqlite, phase: "findTagJSONEach")["count"] == result(larder, phase: "findTag")["count"])
    }

    @Test func queriesFindTheSameSongsOnObjectsDocumentsAndSQLite() throws {
        let directory = Executable.scratchDirectory("speed-queries")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 10,000 songs: 100 albums and 100 lengths, so each query of a phase has its own argument.
        let larder = try run("Larder", "Queries", in: directory + "/larder", scale: "0.01")
        let sqlite = try run("SQLite", "Queries", in: directory + "/sqlite", scale: "0.01")
        #expect(result(larder, phase: "insert")["count"] == "10000")
        #expect(result(larder, phase: "insert")["check"] == result(sqlite, phase: "insert")["check"])
        #expect(result(larder, phase: "documents_insert")["count"] == "10000")
        for phase in ["equal", "range1pct", "albumFirst20", "count"] {
            let objects = result(larder, phase: phase)
            #expect(objects["count"] == result(sqlite, phase: phase)["count"], "\(phase)")
            #expect(objects["check"] == result(sqlite, phase: phase)["check"], "\(phase)")
            #expect(objects["count"] == result(larder, phase: "documents_" + phase)["count"], "documents_\(phase)")
            #expect(objects["check"] == result(larder, phase: "documents_" + phase)["check"], "documents_\(phase)")
            #expect(Int(objects["count"] ?? "") ?? 0 > 0, "\(phase) found nothing")
        }
        #expect(result(larder, phase: "albumFirst20")["count"] == "2000")   // 100 pages of 20
        #expect(result(larder, phase: "albumFirst20")["check"]?.contains("_order_") == true)
    }

    @Test func larderMeasuresItsEncryptionOnTheSameSongs() throws {
        let directory = Executable.scratchDirectory("speed-encryption")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let results = try run("Larder", "Encryption", in: directory)
        for phase in ["insert_plain", "insert_encrypted", "fetch_plain", "fetch_encrypted"] {
            #expect(result(results, phase: phase)["count"] == "300", "\(phase)")
        }
        #expect(result(results, phase: "fetch_plain")["check"] == result(results, phase: "fetch_encrypted")["check"])
        let sqlite = try Executable.run("SQLiteSpeedTest", ["Encryption", "--dir", directory, "--scale", Self.scale])
        #expect(sqlite.status != 0)   // Larder only, refused with a reason
    }

    @Test func larderMeasuresStoredModelAgainstTheHandWrittenSong() throws {
        let directory = Executable.scratchDirectory("speed-model")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let results = try run("Larder", "Model", in: directory)
        for variant in ["handwritten", "model"] {
            #expect(result(results, phase: "insert_\(variant)")["count"] == "1000", "\(variant)")
            #expect(result(results, phase: "fetch_\(variant)")["count"] == "1000", "\(variant)")
            #expect(result(results, phase: "fetch_\(variant)")["check"] == "seconds_500500", "\(variant)")
        }
        let sqlite = try Executable.run("SQLiteSpeedTest", ["Model", "--dir", directory, "--scale", Self.scale])
        #expect(sqlite.status != 0)   // Larder only, refused with a reason
    }

    @Test func larderMeasuresItsChangeFeedAndHistory() throws {
        let directory = Executable.scratchDirectory("speed-changes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let results = try run("Larder", "Changes", in: directory)
        for phase in ["insert", "insert_subscribed", "insert_history"] {
            #expect(result(results, phase: phase)["count"] == "500", "\(phase)")
        }
        for phase in ["update", "update_subscribed", "update_history"] {
            #expect(result(results, phase: phase)["count"] == "166", "\(phase)")
        }
        #expect(result(results, phase: "update_history")["check"] == "Updated_Song_3_versions_2")
        // The subscriber read every song inserted (500) and updated (166).
        #expect(result(results, phase: "subscriber_rows")["count"] == "666")
        let sqlite = try Executable.run("SQLiteSpeedTest", ["Changes", "--dir", directory, "--scale", Self.scale])
        #expect(sqlite.status != 0)   // Larder only, refused with a reason
    }

    @Test func concurrencyRunsOnStorePoolAndDatabasePool() throws {
        let directory = Executable.scratchDirectory("speed-concurrency")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 100 songs, 15 ms a scenario: every task completes at least one read or write.
        for engine in ["Larder", "GRDB"] {
            let results = try run(engine, "Concurrency", in: directory + "/" + engine)
            for operation in ["point", "fetch20"] {
                for scenario in ["1r", "2r", "1r_w", "2r_w"] {
                    let phase = result(results, phase: "\(operation)_\(scenario)")
                    #expect(Int(phase["count"] ?? "") ?? 0 >= (scenario.hasPrefix("2") ? 2 : 1), "\(engine) \(operation)_\(scenario)")
                    #expect(phase["check"] == "songs_100", "\(engine) \(operation)_\(scenario)")
                }
                for scenario in ["1r_w", "2r_w"] {
                    let writes = result(results, phase: "\(operation)_\(scenario)_writes")
                    #expect(Int(writes["count"] ?? "") ?? 0 >= 1, "\(engine) \(operation)_\(scenario)_writes")
                }
            }
            #expect(results.count == 12, "\(engine): 8 scenarios and 4 writers' phases")
        }
        let sqlite = try Executable.run("SQLiteSpeedTest", ["Concurrency", "--dir", directory, "--scale", Self.scale])
        #expect(sqlite.status != 0)   // Larder and GRDB only, refused with a reason
    }

    /// Larder on etcd and the raw etcd client (LarderSpeedTest told so by its environment) do
    /// the BNR workloads on the test cluster: the same counts and values read back as Larder on
    /// files, the raw client's the same as Larder's, each phase's etcd requests counted, and
    /// PointRead's Tokyo Cabinet baseline beside it.
    @Test(arguments: ["LarderEtcd", "Etcd"])
    func theEtcdEnginesDoTheBNRWorkloads(engine: String) throws {
        let cluster = try EtcdCluster.shared.get()
        let environment = ["LARDER_SPEED_ENGINE": engine, "LARDER_ETCD_ENDPOINTS": cluster.endpoints.joined(separator: ",")]
        let directory = Executable.scratchDirectory("speed-\(engine)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func runs(_ workload: String) throws -> [[String: String]] {
            let results = try run("Larder", workload, in: directory, environment: environment)
            for result in results {
                #expect(result["engine"] == engine, "\(workload)")
                // ComplexInsert's total is its rounds' sum, reported by hand: no requests of its own.
                guard result["phase"] != "total" else { continue }
                #expect(Int(result["ranges"] ?? "") != nil && Int(result["txns"] ?? "") != nil,
                        "\(workload) \(result["phase"] ?? ""): requests not counted")
            }
            return results
        }
        let insert = try runs("ComplexInsert")
        #expect(insert.filter { $0["phase"]?.hasPrefix("round") == true }.count == 10)
        #expect(result(insert, phase: "total")["count"] == "1000")
        // Every round wrote: at least one transaction each.
        #expect(insert.filter { $0["phase"]?.hasPrefix("round") == true }.allSatisfy { Int($0["txns"] ?? "") ?? 0 > 0 })
        let fetches = try runs("ComplexFetch")
        #expect(result(fetches, phase: "fetch")["count"] == "10")
        #expect(result(fetches, phase: "fetch")["check"] == "Test_Song_1")
        #expect(Int(result(fetches, phase: "fetch")["ranges"] ?? "") ?? 0 > 0)
        #expect(result(try runs("SimpleUpdate"), phase: "update")["count"] == "333")
        #expect(result(try runs("SimpleInsert"), phase: "insert")["count"] == "1000")
        let fetchAll = result(try runs("SimpleFetch"), phase: "fetch")
        #expect(fetchAll["count"] == "1000")
        #expect(fetchAll["check"] == "seconds_500500")
        let reads = try runs("PointRead")
        let phases = engine == "LarderEtcd" ? ["autocommit", "transaction", "tokyocabinet_autocommit", "tokyocabinet_transaction"]
            : ["autocommit", "transaction"]
        #expect(reads.count == phases.count)
        for phase in phases {
            #expect(result(reads, phase: phase)["count"] == "100", "\(phase)")
            #expect(result(reads, phase: phase)["check"] == "title_bytes_900", "\(phase)")
        }
        // A workload that is not an etcd one is refused, not run on files.
        let refused = try Executable.run("LarderSpeedTest", ["FullText", "--dir", directory, "--scale", Self.scale],
                                         environment: environment)
        #expect(refused.status == 2)
    }

    @Test func theTokyoCabinetCeilingRuns() throws {
        let directory = Executable.scratchDirectory("speed-tc")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(result(try run("TokyoCabinet", "SimpleInsert", in: directory), phase: "insert")["count"] == "1000")
        #expect(result(try run("TokyoCabinet", "SimpleFetch", in: directory), phase: "fetch")["count"] == "1000")
        #expect(result(try run("TokyoCabinet", "PointRead", in: directory), phase: "autocommit")["count"] == "100")
    }

    @Test func speedCompareWritesItsTables() throws {
        let out = Executable.scratchDirectory("speed-out"), work = Executable.scratchDirectory("speed-work")
        defer { for path in [out, work] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let output = try Executable.run("SpeedCompare", ["--scale", Self.scale, "--repeat", "1", "--durability", "nosync",
                                                         "--dir", work, "--out", out, "--etcd-scale", Self.scale])
        #expect(output.status == 0, "\(output.text.suffix(2_000))")
        let results = try String(contentsOfFile: out + "/RESULTS.md", encoding: .utf8)
        for engine in ["Larder", "SQLite", "GRDB", "TokyoCabinet"] {
            #expect(results.contains(engine), "\(engine) missing from RESULTS.md")
        }
        #expect(results.contains("SimpleInsert"))
        // Larder's store before and after compaction, for each chain of workloads.
        #expect(results.contains("## Compaction (Larder)"))
        #expect(results.contains("| SimpleUpdate | nosync |"))
        // Larder's object queries beside SQLite and LarderDocuments.
        #expect(results.contains("## Queries: Larder's objects against SQLite and LarderDocuments"))
        #expect(results.contains("| albumFirst20 |"))
        // The costs of the change feed and history, with the issue's targets.
        #expect(results.contains("## Change feed and history (Larder)"))
        #expect(results.contains("| keepsHistory, SimpleUpdate |"))
        // @StoredModel against the hand-written Song, with the issue's target.
        #expect(results.contains("## @StoredModel (Larder)"))
        #expect(results.contains("| workload | hand-written | @StoredModel | ratio | target |"))
        // StorePool against DatabasePool, with the issue's targets.
        #expect(results.contains("## Concurrency: Larder's StorePool against GRDB's DatabasePool"))
        #expect(results.contains("| point | 2 + writer |"))
        // Larder on etcd against the raw client and the Tokyo Cabinet backend, with the issue's targets.
        #expect(results.contains("## etcd (scale \(Self.scale))"))
        #expect(results.contains("| workload | phase | raw client | Larder on etcd | ratio | target | requests raw | requests Larder |"))
        #expect(results.contains("| SimpleInsert | insert |"))
        #expect(results.contains("| phase | Larder on Tokyo Cabinet | Larder on etcd | ratio | target |"))
        #expect(FileManager.default.fileExists(atPath: out + "/results.svg"))
        #expect(output.text.contains("MEDIAN engine=Larder"))
        #expect(output.text.contains("MEDIAN engine=LarderEtcd"))
        #expect(output.text.contains("MEDIAN engine=Etcd"))
    }
}
