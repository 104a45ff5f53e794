// FuzzCorpus: the inputs kept in Tests/FuzzCorpus/<target>/, one file each: inputs that once
// crashed a decoder, hung it or broke a promise, replayed by the tests ever after.

import Foundation

/// The regression inputs of every target.
package enum FuzzCorpus {
    /// The corpus folder in the source tree.
    package static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/FuzzCorpus")

    /// The inputs kept for `target`, by file name.
    package static func inputs(of target: String, in directory: URL = directory) throws -> [(name: String, bytes: [UInt8])] {
        let folder = directory.appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
            (name, [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))))
        }
    }

    /// Saves `input` for `target` under a name made from its bytes; returns the file.
    @discardableResult
    package static func save(_ input: [UInt8], of target: String, in directory: URL) throws -> URL {
        let folder = directory.appendingPathComponent(target)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a
        for byte in input { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let file = folder.appendingPathComponent("input-" + String(hash, radix: 16))
        try Data(input).write(to: file)
        return file
    }
}
