// What a store directory can hold after a power cut, rebuilt from the records the PowerCut
// interposer (Tests/PowerCut/PowerCut.c) left: the names are those of the last fsync of the
// directory or those at the cut (both are states a journaling file system can come back with),
// and each file is a mix, page by page, of its bytes at its last sync and its bytes at the cut
// (a page written through a memory map or a write may or may not have reached the disk).

import Foundation
import LarderTestSupport

struct PowerCutImage {
    /// The store directory as the process left it when it was cut.
    let storePath: String
    /// The interposer's records: `namespace`, `<inode>` (synced bytes), `gone-<inode>`.
    let shadowPath: String

    /// False for the state a kill -9 leaves (the names and bytes at the cut, nothing lost): the
    /// control that shows the harness itself reports no false failure.
    var losesUnsyncedBytes = true

    static let pageSize = 4096

    /// Writes a possible after-cut state of the store into `target`; returns how it was chosen.
    func rebuild(into target: String, using generator: inout SplitMix) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
        let current = try currentNames()
        let useDurableNames = losesUnsyncedBytes && Bool.random(using: &generator)
        let names = useDurableNames ? try durableNames() : current
        var mixedPages = 0
        var neverSynced: [String] = []
        for (inode, links) in names.sorted(by: { $0.value[0] < $1.value[0] }) {
            let name = links[0]
            if contents(shadowPath + "/\(inode)") == nil { neverSynced.append(name) }
            let synced = contents(shadowPath + "/\(inode)") ?? Data()
            let atCut = current[inode].flatMap { contents(storePath + "/" + $0[0]) }
                ?? contents(shadowPath + "/gone-\(inode)") ?? synced
            let (bytes, mixed) = mix(synced, atCut, using: &generator)
            mixedPages += mixed
            try bytes.write(to: URL(fileURLWithPath: target + "/" + name))
            // A file with several names (one linked into place under its final name, say)
            // keeps them all: hard links to the one file.
            for other in links.dropFirst() {
                try manager.linkItem(atPath: target + "/" + name, toPath: target + "/" + other)
            }
        }
        return "\(useDurableNames ? "durable" : "current") names (\(names.count) files), \(mixedPages) pages taken from the last sync where the cut differs"
            + (neverSynced.isEmpty ? "" : "; never synced: \(neverSynced.joined(separator: ", "))")
    }

    /// Each page from one of the two versions at random; the length of one of them. A page (or
    /// the part of one) that only one version has comes from that one: a power cut leaves a
    /// file's old bytes or its new ones, never zeros that neither held (a truncation that is
    /// not durable leaves the old bytes, an extension that is leaves the new ones).
    private func mix(_ synced: Data, _ atCut: Data, using generator: inout SplitMix) -> (Data, Int) {
        if synced == atCut || !losesUnsyncedBytes { return (atCut, 0) }
        let length = Bool.random(using: &generator) ? synced.count : atCut.count
        var result = Data(count: length)
        var fromSynced = 0
        for start in stride(from: 0, to: length, by: Self.pageSize) {
            let end = min(start + Self.pageSize, length)
            let useSynced = Bool.random(using: &generator)
            let (chosen, other) = useSynced ? (synced, atCut) : (atCut, synced)
            if useSynced, synced.count > start, atCut.count > start,
               synced[start ..< min(end, synced.count)] != atCut[start ..< min(end, atCut.count)] {
                fromSynced += 1
            }
            for source in [other, chosen] {
                let available = max(0, min(end, source.count) - start)
                if available > 0 {
                    result.replaceSubrange(start ..< start + available, with: source[start ..< start + available])
                }
            }
        }
        return (result, fromSynced)
    }

    /// The directory's names at the cut, by inode (every name of a file, sorted).
    private func currentNames() throws -> [UInt64: [String]] {
        var names: [UInt64: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: storePath).sorted() {
            let attributes = try FileManager.default.attributesOfItem(atPath: storePath + "/" + name)
            if let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value { names[inode, default: []].append(name) }
        }
        return names
    }

    /// The names at the last fsync of the directory, by inode (lines "inode name"; every name
    /// of a file, sorted).
    private func durableNames() throws -> [UInt64: [String]] {
        let text = String(decoding: contents(shadowPath + "/namespace") ?? Data(), as: UTF8.self)
        var names: [UInt64: [String]] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let inode = UInt64(parts[0]) { names[inode, default: []].append(String(parts[1])) }
        }
        return names.mapValues { $0.sorted() }
    }

    private func contents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }
}
