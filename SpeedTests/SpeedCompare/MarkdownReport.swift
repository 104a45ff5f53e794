// MarkdownReport: RESULTS.md: the run's setting and machine, failures, one summary table per
// durability, the compaction table, the Queries comparison (QueriesTable), the costs of the
// change feed and history (ChangesTable), @StoredModel against hand-written classes (ModelTable),
// StorePool against DatabasePool (ConcurrencyTable), the etcd engines (EtcdTable), the README summary
// (ReadmeSummary) and one detail table per durability and workload.

import Foundation
import SpeedSupport

/// The Markdown report of a run.
struct MarkdownReport {
    /// Where and how the run happened, for the report's header.
    struct Setting {
        var started: Date
        var notes: [String]
        var storeLocation: String
        var fileSystem: String
    }

    let summaries: Summaries
    /// The etcd engines' results (EtcdRuns), at their own scale; nil when none ran.
    var etcd: Summaries?
    let setting: Setting

    var text: String {
        var markdown = ""
        func line(_ text: String = "") { markdown += text + "\n" }
        let options = summaries.options
        let started = setting.started, notes = setting.notes
        let dateFormatter = ISO8601DateFormatter()
        dateFormatter.formatOptions = [.withInternetDateTime]
        let memTotal = ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "")
            .split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .map { $0.dropFirst("MemTotal:".count).trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let memGiB = Double(memTotal.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1_048_576
        let uname = commandOutput("/usr/bin/uname", ["-a"]) ?? commandOutput("/bin/uname", ["-a"]) ?? "unknown"
        let nproc = commandOutput("/usr/bin/nproc", []) ?? String(ProcessInfo.processInfo.activeProcessorCount)
        let sizes = WorkloadSizes(scale: Double(options.scale) ?? 1)

        line("# Larder speed comparison")
        line()
        line("- Date: \(dateFormatter.string(from: started)) (run took \(formatTime(Date().timeIntervalSince(started))))")
        line("- Scale: \(options.scale) (ComplexInsert: \(sizes.complexRounds) rounds of \(sizes.complexSongs) songs and \(sizes.complexPlaylists) playlists of \(sizes.songsPerPlaylist) songs; SimpleInsert: \(sizes.simpleSongs) songs; PointRead: \(sizes.pointReads) lookups; FullText: \(sizes.fullTextTitles) titles; Queries: \(sizes.querySongs) songs; Concurrency: \(sizes.concurrencySongs) songs, \(String(format: "%g", sizes.concurrencySeconds)) s per scenario)")
        line("- Repetitions: \(options.repetitions); every number is the median over the repetitions")
        line("- Engines: \(summaries.engines.isEmpty ? "none" : summaries.engines.joined(separator: ", ")); durability: \(options.durabilities.joined(separator: ", "))")
        if let etcd {
            line("- etcd engines: \(etcd.engines.joined(separator: ", ")), at scale \(options.etcdScale ?? "–") (the etcd section)")
        }
        line("- Machine: `\(uname)`; nproc \(nproc); MemTotal \(memTotal) (\(String(format: "%.1f", memGiB)) GiB)")
        line("- Stores: \(setting.storeLocation) on \(setting.fileSystem)")
        for note in notes { line("- Note: \(note)") }
        line()
        line("""
            Notes:

            - Each workload ran in its own process (`<Engine>SpeedTest <Workload> --dir … --scale … --durability …`), \
            after a `sync` (nothing earlier left for the kernel to write back during it), in a fresh directory per engine, repetition and chain, in dependency order (ComplexInsert → ComplexFetch → \
            SimpleUpdate; SimpleInsert → SimpleFetch → SimpleFetchStreaming → PointRead; FullText; Documents, Larder and \
            SQLite only: LarderDocuments against SQLite's JSON functions; Queries, Larder and SQLite only: Larder's \
            object queries, and LarderDocuments as its `documents_` phases, against SQLite's indexes; Concurrency, Larder and \
            GRDB only: StorePool against DatabasePool, whose phases report the time per read, all readers together); \
            each chain of workloads ran for every engine in turn before the next chain (so the engines' runs of one \
            workload lie close in time), the engine order rotated every repetition. Fetches therefore read a store just written (warm page cache) for every engine.
            - Durability `full`: each engine's durable commit (SQLite and GRDB: WAL + `synchronous=FULL`); \
            `nosync`: no fsync (WAL + `synchronous=OFF`).
            - Ratios compare median wall times: `SQLite/Larder` and `GRDB/Larder` > 1 means Larder is faster; \
            `Larder/TokyoCabinet` is the overhead of Larder's Swift layer over raw Tokyo Cabinet.
            - Debian's libtokyocabinet is built with `--enable-uyield`, which makes Tokyo Cabinet about 2× slower than \
            a default build; Larder (on the same library) and TokyoCabinet pay that cost, SQLite and GRDB do not.
            - Peak RSS is the process's peak resident set size; store size is the engine's store on disk after the \
            phase (MB = 2^20 bytes). count/check are values each run read back, to show the engines did the same work.
            """)
        line()

        if !summaries.failures.isEmpty {
            line("## Failures")
            line()
            line("| durability | rep | engine | workload | reason |")
            line("|---|---|---|---|---|")
            for failure in summaries.failures {
                line("| \(failure.durability) | \(failure.repetition) | \(failure.engine) | \(failure.workload) | \(cell(failure.reason)) |")
            }
            line()
        }

        // Summary: one table per durability, one row per workload phase.
        let ratioEngines = summaries.engines.filter { $0 != "Larder" }
        for durability in options.durabilities {
            let keys = summaries.groups.filter { $0.durability == durability }
            guard !keys.isEmpty else { continue }
            line("## Summary, durability \(durability) (median wall time)")
            line()
            var header = "| workload | phase |" + summaries.engines.map { " \($0) |" }.joined()
            var rule = "|---|---|" + summaries.engines.map { _ in "---:|" }.joined()
            if summaries.engines.contains("Larder") {
                for engine in ratioEngines {
                    header += engine == "TokyoCabinet" ? " Larder/TokyoCabinet |" : " \(engine)/Larder |"
                    rule += "---:|"
                }
            }
            line(header)
            line(rule)
            for key in keys {
                // A phase that takes no time reports a size (an index's bytes): show the size.
                let sizes = summaries.engines.compactMap { summaries.summary(key, $0) }.allSatisfy { $0.wall == 0 }
                var row = "| \(key.workload) | \(key.phase)\(sizes ? " (size)" : "") |"
                for engine in summaries.engines {
                    let cell = summaries.summary(key, engine).map { sizes ? formatMB($0.sizeBytes) + " MB" : formatTime($0.wall) }
                    row += " \(cell ?? (summaries.failureCount(key, engine) > 0 ? "failed" : "–")) |"
                }
                if summaries.engines.contains("Larder") {
                    for engine in ratioEngines {
                        let value = sizes
                            ? summaries.summary(key, "Larder").flatMap { larder in summaries.summary(key, engine).map { $0.sizeBytes / larder.sizeBytes } }
                            : summaries.ratio(key, engine).map(\.value)
                        row += " \(value.map(formatRatio) ?? "–") |"
                    }
                }
                line(row)
            }
            line()
        }

        // Compaction: Larder's store before and after `compact()` at the end of each chain of workloads.
        let compactions = summaries.groups.filter { $0.phase == "compact" }.compactMap { key in summaries.summary(key, "Larder").map { (key, $0) } }
        if !compactions.isEmpty {
            line("## Compaction (Larder)")
            line()
            line("`compact()` after the last phase of a chain of workloads (every update done): the store's size on disk before and after (median), and the time it took.")
            line()
            line("| workload | durability | before (MB) | after (MB) | after/before | time |")
            line("|---|---|---:|---:|---:|---:|")
            for (key, s) in compactions {
                let runs = summaries.byGroup[key]?["Larder"] ?? []
                let before = median(runs.map { $0.check.split(separator: "_").last.flatMap { Double($0) } ?? .nan })
                line("| \(key.workload) | \(key.durability) | \(formatMB(before)) | \(formatMB(s.sizeBytes)) | \(formatRatio(s.sizeBytes / before)) | \(formatTime(s.wall)) |")
            }
            line()
        }

        // Queries: Larder's objects beside SQLite and LarderDocuments, with the issue's targets.
        for text in QueriesTable(summaries: summaries).lines { line(text) }

        // Changes: the cost of a change-feed subscriber and of history, with the issue's targets.
        for text in ChangesTable(summaries: summaries).lines { line(text) }
        for text in ModelTable(summaries: summaries).lines { line(text) }

        // Concurrency: StorePool against DatabasePool, readers and a writer, with the issue's targets.
        for text in ConcurrencyTable(summaries: summaries).lines { line(text) }

        // etcd: Larder on an EtcdBackend against the raw client and the Tokyo Cabinet backend.
        if let etcd { for text in EtcdTable(summaries: etcd).lines { line(text) } }

        // The README's table, as README.md shows it (ReadmeSummary writes it there too).
        if summaries.engines.contains("Larder") {
            line("## README summary")
            line()
            line(ReadmeSummary(summaries: summaries).block)
            line()
        }

        // Details: one table per durability and workload, rows per phase and engine.
        for durability in options.durabilities {
            for workload in workloadOrder {
                let keys = summaries.groups.filter { $0.durability == durability && $0.workload == workload.rawValue }
                guard !keys.isEmpty else { continue }
                line("## \(workload.rawValue), durability \(durability)")
                line()
                line("| phase | engine | wall (median) | wall min–max | cpu (median) | ratio | peak RSS (MB) | store (MB) | runs | count | check |")
                line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
                for key in keys {
                    for engine in summaries.engines
                    where workloads(of: engine).contains(workload) && reports(engine, phase: key.phase, of: workload) {
                        guard let s = summaries.summary(key, engine) else {
                            let failed = summaries.failureCount(key, engine)
                            line("| \(key.phase) | \(engine) | \(failed > 0 ? "failed (\(failed)×)" : "no result") | | | | | | 0 | | |")
                            continue
                        }
                        let ratioText = summaries.ratio(key, engine).map { "\($0.label) \(formatRatio($0.value))" } ?? "–"
                        line("| \(key.phase) | \(engine) | \(formatTime(s.wall)) | \(formatTime(s.minWall))–\(formatTime(s.maxWall)) | \(formatTime(s.cpu)) | \(ratioText) | \(formatMB(s.rssKB * 1024)) | \(formatMB(s.sizeBytes)) | \(s.runs) | \(cell(s.count)) | \(cell(s.check)) |")
                    }
                }
                line()
            }
        }
        return markdown
    }
}
