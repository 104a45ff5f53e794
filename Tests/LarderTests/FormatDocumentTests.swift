// docs/FORMAT.md section 11 shows every key and value of a small store; this test builds that
// store and compares, so the document cannot drift from the bytes Larder writes.

import Foundation
import Testing
@testable import Larder

@Suite struct FormatDocumentTests {
    /// The store of section 11, built as the section says.
    private func buildDocumentedStore(_ directory: TemporaryDirectory) throws {
        let store = try directory.openStore([Song.self, Playlist.self, Bookmark.self])
        let playlist = Playlist()
        playlist.title = "Mix"
        playlist.songs = [Song(title: "Test Song 1", seconds: 1), Song(title: "Test Song 2", seconds: 2)]
        try store.insert(playlist)
        try store.saveChanges()
        let bookmark = Bookmark()
        bookmark.label = "B"
        bookmark.target = playlist.songs[1]
        bookmark.extras = [playlist, playlist.songs[0]]
        try store.insert(bookmark)
        let more = (3 ... 10).map { Song(title: "S\($0)", seconds: UInt32($0)) }
        for song in more { try store.insert(song) }
        try store.saveChanges()
        for index in [4, 5, 8] { try store.delete(more[index - 3]) }
        try store.saveChanges()
        var buffer = DataBuffer()
        buffer.writeReference(playlist)
        try store.setDataBuffer(buffer, forName: "current-playlist")
        try store.close()
    }

    private func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    private func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// Every file's keys and values, in the layout of section 11.
    private func dump(_ directory: TemporaryDirectory) throws -> String {
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: .init(readOnly: true))
        defer { try? backend.close() }
        var lines: [String] = []
        for table in ["_store", "_names", "Song", "Playlist", "Bookmark"] {
            lines.append("\(table).tch")
            var records: [([UInt8], [UInt8])] = []
            try backend.forEachRecord(in: table) { key, value in
                records.append((Array(key), Array(value)))
                return true
            }
            for (key, value) in records.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                guard let number = key.withUnsafeBytes({ RecordPage.number(inKey: $0) }) else {
                    lines.append("  " + padded(String(decoding: key, as: UTF8.self), 31) + hex(value))
                    continue
                }
                lines.append("  " + padded(hex(key), 31) + "page \(number)")
                let checked = value.first == PageCheck.format
                if checked { lines.append("    " + padded(hex(value.prefix(PageCheck.overhead)), 29) + "checked page format, CRC-32") }
                let page = checked ? Array(value.dropFirst(PageCheck.overhead)) : value
                lines.append("    " + padded(hex(page.prefix(1)), 29) + "page format")
                try page.withUnsafeBytes { page in
                    try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                        var size = DataBuffer()
                        size.writeVarInt(UInt64(envelope.count))
                        let header = hex([UInt8(rowID & 31)] + size.bytes)
                        lines.append("    " + padded(header, 29) + "rowID \(rowID): " + hex(envelope))
                    }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The first fenced block after the heading of section 11.
    private func documentedDump() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/FORMAT.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let section = try #require(text.range(of: "## 11. A whole store, dumped"))
        let open = try #require(text.range(of: "```\n", range: section.upperBound ..< text.endIndex))
        let close = try #require(text.range(of: "\n```", range: open.upperBound ..< text.endIndex))
        return String(text[open.upperBound ..< close.lowerBound])
    }

    @Test func sectionElevenIsTheStoreLarderWrites() throws {
        let directory = TemporaryDirectory()
        try buildDocumentedStore(directory)
        let actual = try dump(directory)
        let documented = try documentedDump()
        if actual != documented { print("FORMAT.md section 11 should read:\n\(actual)") }
        #expect(actual == documented)
    }
}
