// The interchange at scale (`make interchange-scale`; InterchangeScaleTests runs it small): a
// store of N objects made, exported, imported into an empty store and exported again, each step
// in a child process of its own that reports its peak resident memory (getrusage). The steps
// pass when every peak is under the limit and the two exports are the same bytes.
//
//   interchange-scale DIR N [LIMIT_MB]   run every step; print each peak, then "ok" or the failure
//   interchange-populate PATH N          make the store: N ScaleRow objects, every 97th deleted
//   interchange-export PATH FILE         export the store (its class not registered)
//   interchange-import PATH FILE         import FILE into the empty store at PATH

import Foundation
import Larder

/// The objects of the scale run: a title and a number.
final class ScaleRow: StoredObject {
    var title = ""
    var number: UInt64 = 0

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.writeVarInt(number)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        number = try buffer.readVarInt()
    }
}

enum InterchangeScale {
    /// The peak resident memory of this process, in KB.
    static func peakKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    static func populate(path: String, count: Int) throws {
        let store = try Store(path: path, configuration: .init(durability: .noSync))
        try store.register(ScaleRow.self)
        var made = 0
        while made < count {
            let end = min(count, made + 50_000)
            var rows: [ScaleRow] = []
            for number in made ..< end {
                let row = ScaleRow()
                row.title = "row \(number) of the interchange scale run"
                row.number = UInt64(number) &* 2_654_435_761
                try store.insert(row)
                rows.append(row)
            }
            try store.saveChanges()
            for row in rows where row.rowID % 97 == 0 { try store.delete(row) }
            try store.saveChanges()
            made = end
        }
        try store.close()
    }

    static func export(path: String, file: String) throws {
        let store = try Store(path: path)
        try store.exportInterchange(to: URL(fileURLWithPath: file))
    }

    static func `import`(path: String, file: String) throws {
        let store = try Store(path: path, configuration: .init(durability: .noSync))
        try store.importInterchange(from: URL(fileURLWithPath: file))
        try store.register(ScaleRow.self)
        guard try store.count(of: ScaleRow.self) == store.registryEntries().first?.objectCount else {
            throw ScaleFailure("the imported store's count differs from its registry")
        }
    }

    /// Runs every step in a child process; returns the report, "ok" last when every check passed.
    static func run(directory: String, count: Int, limitMegabytes: Int) throws -> (report: [String], passed: Bool) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = directory + "/source.larder", copy = directory + "/copy.larder"
        let first = directory + "/first.json", second = directory + "/second.json"
        var report: [String] = []
        var passed = true
        for (step, arguments) in [("populate", ["interchange-populate", source, String(count)]),
                                  ("export", ["interchange-export", source, first]),
                                  ("import", ["interchange-import", copy, first]),
                                  ("export again", ["interchange-export", copy, second])] {
            let started = Date()
            let output = try child(arguments)
            guard let peak = output.split(separator: " ").last.flatMap({ Int($0) }), output.hasPrefix("peak ") else {
                return (report + ["\(step): \(output)"], false)
            }
            let megabytes = Double(peak) / 1024
            let seconds = Date().timeIntervalSince(started)
            report.append("\(step): peak \(String(format: "%.1f", megabytes)) MB, \(String(format: "%.1f", seconds)) s")
            // Making the store is not the interchange's: its peak is reported, not limited.
            if step != "populate" && megabytes >= Double(limitMegabytes) {
                report.append("\(step) went over \(limitMegabytes) MB")
                passed = false
            }
        }
        let size = (try FileManager.default.attributesOfItem(atPath: first)[.size] as? Int) ?? 0
        report.append("file: \(size) bytes, \(count) objects made, \(count / 97) deleted")
        if !FileManager.default.contentsEqual(atPath: first, andPath: second) {
            report.append("the second export differs from the first")
            passed = false
        }
        return (report, passed)
    }

    private static func child(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct ScaleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
