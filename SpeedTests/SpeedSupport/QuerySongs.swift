// QuerySongs: the Queries workload's data, the same for every engine: songs with a title, a
// length in seconds and an album, each album about 100 songs and each length about 100 songs,
// both drawn from a seeded generator (an album's songs and a length's songs are spread over the
// whole store, not neighbours); and the arguments of its finds and counts, with the checksum
// every engine computes over what it read back.

import LarderTestSupport

/// One song of the Queries workload.
public struct QuerySongData: Sendable {
    /// "Song <n>", n from 1.
    public var title: String
    /// In 0 ..< ``QuerySongs/secondsValues``.
    public var seconds: UInt32
    /// The album's number, in 1 ... ``QuerySongs/albumCount``: the rowID (SQLite: the id) of
    /// album "Album <n>", inserted in order before the songs.
    public var album: Int
}

/// The Queries workload's sizes, data and query arguments, for `songs` songs.
public struct QuerySongs: Sendable {
    /// The number of songs (1,000,000 at scale 1).
    public let songCount: Int

    public init(songCount: Int) { self.songCount = songCount }

    /// Albums of about 100 songs each (10,000 at scale 1): `album == X` finds about 100.
    public var albumCount: Int { max(1, songCount / 100) }
    /// Distinct lengths (10,000 at scale 1): `seconds == v` finds about 100 songs.
    public var secondsValues: Int { max(1, songCount / 100) }
    /// The number of lengths a 1% range covers (100 at scale 1: about 10,000 songs).
    public var rangeWidth: Int { max(1, secondsValues / 100) }

    /// `songCount` songs, the same for every engine (a fixed seed).
    public func generate() -> [QuerySongData] {
        var generator = SplitMix(seed: 0x0B_1EC7)
        return (1 ... songCount).map { i in
            QuerySongData(title: "Song \(i)", seconds: UInt32(generator.next(below: UInt64(secondsValues))),
                          album: Int(generator.next(below: UInt64(albumCount))) + 1)
        }
    }

    /// The name of album `number`.
    public static func albumName(_ number: Int) -> String { "Album \(number)" }

    /// The equality finds (`seconds == v`): 100 lengths spread over the range (distinct from
    /// scale 0.01 up), about 100 songs each.
    public var equalValues: [UInt32] { (0 ..< 100).map { UInt32(($0 * 7_919) % secondsValues) } }

    /// The 1% range finds (`seconds BETWEEN start AND start + rangeWidth - 1`): 10 disjoint
    /// ranges, about 10,000 songs each.
    public var rangeStarts: [UInt32] {
        (0 ..< 10).map { UInt32(min($0 * secondsValues / 10, secondsValues - rangeWidth)) }
    }

    /// The counts: the same 1% ranges from 100 starts.
    public var countStarts: [UInt32] {
        let starts = max(1, secondsValues - rangeWidth + 1)
        return (0 ..< 100).map { UInt32(($0 * 7_919) % starts) }
    }

    /// The album pages (`album == X` ordered by title, limit 20): 100 albums.
    public var pageAlbums: [Int] { (0 ..< 100).map { ($0 * 7_919) % albumCount + 1 } }
    /// The page size of the album finds.
    public static let pageSize = 20

    /// The last length of the range from `start`.
    public func rangeEnd(_ start: UInt32) -> UInt32 { start + UInt32(rangeWidth - 1) }
}

/// What a find read back, the same for every engine: the songs' number, and sums over their
/// titles, lengths and album numbers (in any order); with `ordered`, also a hash of the titles
/// in the order read (for a find with an order).
public struct SongChecksum: Sendable {
    public private(set) var count = 0
    private var titleBytes = 0
    private var seconds: UInt64 = 0
    private var albums = 0
    private var orderHash: UInt64 = 0xCBF2_9CE4_8422_2325
    private let ordered: Bool

    public init(ordered: Bool = false) { self.ordered = ordered }

    public mutating func add(title: String, seconds: UInt32, album: Int) {
        count += 1
        titleBytes += title.utf8.count
        self.seconds += UInt64(seconds)
        albums += album
        if ordered {
            for byte in title.utf8 { orderHash = (orderHash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            orderHash = (orderHash ^ 0xFF) &* 0x100_0000_01B3
        }
    }

    /// For a RESULT line's count and check.
    public var result: (count: Int, check: String) {
        (count, "titles_\(titleBytes)_seconds_\(seconds)_albums_\(albums)" + (ordered ? "_order_\(String(orderHash, radix: 16))" : ""))
    }
}
