// JSONBinary+PathLookup: the values at a few field paths of an encoded document, read without
// decoding the rest: members and elements no path names are stepped over, so an update that
// only needs a stored document's index key values builds no dictionary for it. The values
// found are those FieldPath.lookup finds in the decoded document (keys matched as Swift
// strings, the last of a repeated key winning); bounds and depth are checked as decoding
// does, though the UTF-8 of strings stepped over is not.

import Larder

extension JSONBinary {
    /// Field paths ready to be matched against encoded keys: each component's UTF-8, and the
    /// array position it names, if any, in flat arrays (matching a key retains nothing).
    struct LookupPaths {
        /// At most this many paths (a set of them is one word).
        static let maximumCount = 64

        /// One component of a path.
        struct Component {
            /// Where its UTF-8 is in `utf8`.
            var start: Int
            var count: Int
            var isASCII: Bool
            /// `Int(name)`, as FieldPath.lookup reads an array position.
            var position: Int?
        }

        let paths: [FieldPath]
        /// Every path's components, one path after another.
        let components: [Component]
        /// Where each path's components start in `components`, and how many it has.
        let firstComponents: [Int]
        let componentCounts: [Int]
        /// Every component's UTF-8, back to back.
        let utf8: [UInt8]

        /// Nil for more than ``maximumCount`` paths.
        init?(_ paths: [FieldPath]) {
            guard paths.count <= Self.maximumCount else { return nil }
            self.paths = paths
            var components: [Component] = []
            var firstComponents: [Int] = []
            var utf8: [UInt8] = []
            for path in paths {
                firstComponents.append(components.count)
                for name in path.components {
                    let start = utf8.count
                    utf8.append(contentsOf: name.utf8)
                    components.append(Component(start: start, count: utf8.count - start,
                                                isASCII: utf8[start...].allSatisfy { $0 < 0x80 }, position: Int(name)))
                }
            }
            self.components = components
            self.firstComponents = firstComponents
            componentCounts = paths.map(\.components.count)
            self.utf8 = utf8
        }

        /// Component `level` of path `path`, which has more than `level` components.
        @inline(__always)
        func component(_ level: Int, of path: Int) -> Component {
            components[firstComponents[path] + level]
        }

        /// Whether a member named `key` (its UTF-8; `keyIsASCII` when it has no byte past
        /// 0x7F) is component `level` of path `path`, as a dictionary lookup decides: the same
        /// bytes, or canonically equivalent text (which takes a non-ASCII byte on one side).
        @inline(__always)
        func matches(_ key: UnsafeRawBufferPointer, keyIsASCII: Bool, component level: Int, of path: Int) -> Bool {
            let component = component(level, of: path)
            if key.count == component.count {
                let same = utf8.withUnsafeBytes {
                    ByteOrder.compare(key, UnsafeRawBufferPointer(rebasing: $0[component.start ..< component.start + component.count])) == 0
                }
                if same { return true }
            }
            guard !(component.isASCII && keyIsASCII) else { return false }
            return UTF8Decoding.string(key) == paths[path].components[level]
        }
    }

    /// The value at each of `paths` in the document encoded in `bytes`, and the set of paths
    /// found (bit `n` for `paths.paths[n]`; a path missing has `.null`): what
    /// ``FieldPath/lookup(in:from:)`` finds in the decoded document, a stored document's
    /// `"__rowid__"` member left out as decoding replaces it (`[__rowid__]` itself is the
    /// caller's). Throws `DecodingFailure` for bytes decoding refuses, except invalid UTF-8 in
    /// strings it steps over.
    static func lookUp(_ paths: LookupPaths, inDocument bytes: UnsafeRawBufferPointer) throws -> (values: [JSON], found: UInt64) {
        var values = [JSON](repeating: .null, count: paths.paths.count)
        var found: UInt64 = 0
        var reader = Reader(bytes: bytes, rowID: nil, shapes: nil)
        let all: UInt64 = paths.paths.count == 64 ? .max : (1 << UInt64(paths.paths.count)) - 1
        try reader.lookUp(paths, wanted: all, level: 0, depth: 0, into: &values, found: &found)
        guard reader.offset == bytes.count else { throw DecodingFailure(reason: "trailing bytes") }
        return (values, found)
    }

    /// The UTF-8 of `"__rowid__"`.
    fileprivate static let rowIDFieldUTF8 = Array(FieldPath.rowIDField.utf8)
}

extension JSONBinary.Reader {
    /// Reads the value at the reader, finding in it the paths of `paths` in `wanted` (a bit per
    /// path), whose first `level` components led here, into `values` (adding those found to
    /// `found`).
    mutating func lookUp(_ paths: JSONBinary.LookupPaths, wanted: UInt64, level: Int, depth: Int,
                         into values: inout [JSON], found: inout UInt64) throws {
        guard depth < JSONBinary.maximumDepth else { throw JSONBinary.DecodingFailure(reason: "nested too deeply") }
        var ending: UInt64 = 0
        var remaining = wanted
        while remaining != 0 {
            let path = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            if paths.componentCounts[path] == level { ending |= 1 << UInt64(path) }
        }
        if ending != 0 {
            // A path names this value: decoded whole, any longer ones read on from it.
            let value = try value(depth: depth)
            var remaining = wanted
            while remaining != 0 {
                let path = remaining.trailingZeroBitCount
                remaining &= remaining &- 1
                let pathValue = ending & (1 << UInt64(path)) != 0 ? value : paths.paths[path].lookup(in: value, from: level)
                if let pathValue {
                    values[path] = pathValue
                    found |= 1 << UInt64(path)
                }
            }
            return
        }
        guard offset < bytes.count else { throw JSONBinary.DecodingFailure(reason: "truncated at \(offset)") }
        switch bytes[offset] {
        case JSONBinary.object:
            offset += 1
            let count = try count()
            for _ in 0 ..< count {
                let key = try stringBytes()
                var matching: UInt64 = 0
                // Decoding a document replaces a stored "__rowid__" member.
                if depth > 0 || key.count != JSONBinary.rowIDFieldUTF8.count || ByteOrder.compare(key, JSONBinary.rowIDFieldUTF8) != 0 {
                    let keyIsASCII = !key.contains { $0 >= 0x80 }
                    var remaining = wanted
                    while remaining != 0 {
                        let path = remaining.trailingZeroBitCount
                        remaining &= remaining &- 1
                        if paths.matches(key, keyIsASCII: keyIsASCII, component: level, of: path) { matching |= 1 << UInt64(path) }
                    }
                }
                try lookUp(paths, matching: matching, level: level, depth: depth, into: &values, found: &found)
            }
        case JSONBinary.array:
            offset += 1
            let count = try count()
            for position in 0 ..< count {
                var matching: UInt64 = 0
                var remaining = wanted
                while remaining != 0 {
                    let path = remaining.trailingZeroBitCount
                    remaining &= remaining &- 1
                    if paths.component(level, of: path).position == position { matching |= 1 << UInt64(path) }
                }
                try lookUp(paths, matching: matching, level: level, depth: depth, into: &values, found: &found)
            }
        default:
            // A scalar has no members: the paths are missing.
            try skipValue(depth: depth)
        }
    }

    /// Reads a member or element that the paths of `matching` name (stepped over when none
    /// does); a later member of the same name replaces what an earlier one found.
    private mutating func lookUp(_ paths: JSONBinary.LookupPaths, matching: UInt64, level: Int, depth: Int,
                                 into values: inout [JSON], found: inout UInt64) throws {
        guard matching != 0 else { return try skipValue(depth: depth + 1) }
        if found & matching != 0 {
            var remaining = found & matching
            while remaining != 0 {
                values[remaining.trailingZeroBitCount] = .null
                remaining &= remaining &- 1
            }
            found &= ~matching
        }
        try lookUp(paths, wanted: matching, level: level + 1, depth: depth + 1, into: &values, found: &found)
    }

    /// Moves past the value at the reader, checking its bounds and depth, building nothing.
    mutating func skipValue(depth: Int) throws {
        guard depth < JSONBinary.maximumDepth else { throw JSONBinary.DecodingFailure(reason: "nested too deeply") }
        switch try byte() {
        case JSONBinary.null, JSONBinary.falseTag, JSONBinary.trueTag: return
        case JSONBinary.int: _ = try varint()
        case JSONBinary.double:
            guard bytes.count - offset >= 8 else { throw JSONBinary.DecodingFailure(reason: "truncated double at \(offset)") }
            offset += 8
        case JSONBinary.string: _ = try stringBytes()
        case JSONBinary.array:
            for _ in 0 ..< (try count()) { try skipValue(depth: depth + 1) }
        case JSONBinary.object:
            for _ in 0 ..< (try count()) {
                _ = try stringBytes()
                try skipValue(depth: depth + 1)
            }
        case let tag: throw JSONBinary.DecodingFailure(reason: "unknown tag \(tag) at \(offset - 1)")
        }
    }
}
