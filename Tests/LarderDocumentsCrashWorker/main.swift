// LarderDocumentsCrashWorker: the child process of the documents crash test.
//   run <store> <full|nosync> <acks>   insert batches of 3 documents and update one, forever,
//                                      appending each committed round number to <acks>
//   check <store>                      prints "ok <rounds>" when documents and indexes agree,
//                                      else what is wrong

import Foundation
import Larder
import LarderDocuments

func open(_ path: String, durability: Store.Configuration.Durability = .full) throws -> DocumentCollection {
    let store = try DocumentStore(path: path, configuration: .init(durability: durability, lockTimeout: 5))
    let docs = try store.collection("docs")
    try docs.addUniqueIndex("[key]")
    try docs.addIndex("[group], [n] DESC")
    try docs.addIndex("[tags]")
    return docs
}

func run(_ path: String, durability: String, acks: String) throws {
    let docs = try open(path, durability: durability == "full" ? .full : .noSync)
    guard let ackFile = FileHandle(forWritingAtPath: acks) else { throw BackendError.cannotOpen(path: acks, reason: "no ack file") }
    ackFile.seekToEndOfFile()
    var round = try docs.count() / 3
    while true {
        round += 1
        let batch: [JSON] = (0 ..< 3).map { j in
            ["key": .string("k\(round)-\(j)"), "group": .int(Int64(round % 5)), "n": .int(Int64(round)),
             "tags": .array([.string("t\(round % 3)"), .string("t\(j)")])]
        }
        try docs.insertBatch(batch)
        ackFile.write(Data("\(round)\n".utf8))
        if var first = try docs.findOne(where: "[__rowid__] = ?", arguments: [.int(Int64(round))]) {
            first["group"] = .int(Int64(round % 7))
            first["tags"] = ["updated", .string("t\(round)")]
            try docs.update(first)
        }
    }
}

func check(_ path: String) throws -> String {
    let docs = try open(path)
    let count = try docs.count()
    guard count % 3 == 0 else { return "torn batch: \(count) documents" }
    let inconsistent = try docs.inconsistentIndexes()
    guard inconsistent.isEmpty else { return "inconsistent indexes: \(inconsistent)" }
    let rounds = count / 3
    if rounds > 0 {
        guard try docs.count(where: "[key] = ?", arguments: [.string("k\(rounds)-2")]) == 1 else { return "last key missing" }
    }
    return "ok \(rounds)"
}

let arguments = CommandLine.arguments
do {
    switch arguments.count > 2 ? arguments[1] : "" {
    case "run" where arguments.count == 5: try run(arguments[2], durability: arguments[3], acks: arguments[4])
    case "check": print(try check(arguments[2]))
    default: print("usage: LarderDocumentsCrashWorker run <store> <full|nosync> <acks> | check <store>")
    }
} catch {
    print("error: \(error)")
    // Also where the parent looks when a worker it meant to kill ended by itself.
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
