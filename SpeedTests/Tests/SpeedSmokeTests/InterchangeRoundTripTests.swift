// The interchange over the speed tests' data sets: the stores Larder's ComplexInsert (songs in
// playlists), SimpleInsert and Documents workloads make, exported, imported into empty stores
// and exported again, give the same files; the documents read back the same.

import Foundation
import Larder
import LarderDocuments
import Testing

@Suite struct InterchangeRoundTripTests {
    @Test func theSpeedTestStoresRoundTripExactly() throws {
        let directory = Executable.scratchDirectory("interchange")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for workload in ["ComplexInsert", "SimpleInsert", "Documents"] {
            let output = try Executable.run("LarderSpeedTest", [workload, "--dir", directory, "--scale", "0.001", "--durability", "nosync"])
            #expect(output.status == 0, "\(workload): \(output.text)")
        }
        for name in ["complex", "simple"] {
            let first = URL(fileURLWithPath: directory + "/\(name).json")
            let second = URL(fileURLWithPath: directory + "/\(name)-again.json")
            try Store(path: directory + "/\(name).larder").exportInterchange(to: first)
            let copy = try Store(path: directory + "/\(name)-copy.larder")
            try copy.importInterchange(from: first)
            try copy.exportInterchange(to: second)
            let text = try Data(contentsOf: first)
            #expect(text == (try Data(contentsOf: second)), "\(name)")
            #expect(text.count > 20_000, "\(name): \(text.count) bytes")
        }
        let users = try DocumentStore(path: directory + "/documents.larder").collection("users")
        let file = URL(fileURLWithPath: directory + "/users.jsonl")
        let again = URL(fileURLWithPath: directory + "/users-again.jsonl")
        try users.export(to: file)
        let copy = try DocumentStore(path: directory + "/documents-copy.larder").collection("users")
        try copy.import(from: file)
        try copy.export(to: again)
        #expect(try Data(contentsOf: file) == Data(contentsOf: again))
        #expect(try copy.find() == users.find())
        #expect(try copy.count() > 500)
        #expect(try copy.indexes == users.indexes)
    }
}
