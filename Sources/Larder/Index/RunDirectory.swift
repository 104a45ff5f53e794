// RunDirectory: where an index table of an encrypted store keeps its runs (the index engine
// that object indexes and document collections share). A plaintext index table stores each
// run (IndexRun) under its first entry, so that the B+tree's byte order finds ranges; those
// keys are index values in plaintext. An encrypted index table stores each run sealed under a
// run number instead, and the ordered list of first entries and run numbers in one sealed
// record, the directory, which its owner (a collection, a class's index) reads once and keeps
// in memory: a range find binary-searches it, then reads the runs it names by number.
//
//   run:        key [run number, 8 bytes big-endian]   value [format][sealed IndexRun value]
//   directory:  key "directory"                         value [format][sealed directory content]
//   content:    [varint next run number][varint run count]
//               ([varint run number][varint first entry size][first entry])...    in entry order
//
// Both are sealed by the table's IndexRunSealer with the index table's name as scope and the
// record's key; format is the sealer's sealedFormat (a document store's DocumentCipher:
// DocumentRecord.encryptedFormat, 0x03). A run's value keeps its CRC of first entry and
// entries, so a run read through the directory is checked against the entry the directory
// gives it. docs/FORMAT.md (section 16) has the bytes.

/// The ordered runs of one sealed index table.
package struct RunDirectory: Equatable, Sendable {
    /// One run: its first entry and the number it is stored under.
    package struct Run: Equatable, Sendable {
        package var first: [UInt8]
        package var number: UInt64

        package init(first: [UInt8], number: UInt64) {
            self.first = first
            self.number = number
        }
    }

    /// The key of the directory's record.
    package static let key = Array("directory".utf8)
    /// The runs, in the order of their first entries.
    package var runs: [Run] = []
    /// The number the next new run is stored under (numbers are never reused).
    package var nextNumber: UInt64 = 1

    package init() {}

    /// The directory in `content`; throws `IndexRun.Damage` when it does not parse or its runs
    /// are out of order.
    package init(decoding content: [UInt8]) throws(IndexRun.Damage) {
        var buffer = DataBuffer(bytes: content)
        do {
            nextNumber = try buffer.readVarInt()
            let count = try buffer.readVarInt()
            // Every run takes at least two bytes.
            guard count <= UInt64(buffer.remainingCount / 2) else { throw IndexRun.Damage(reason: "run directory count out of range") }
            runs.reserveCapacity(Int(count))
            for _ in 0 ..< count {
                let number = try buffer.readVarInt()
                let first = try buffer.readBytes()
                guard number < nextNumber, runs.last.map({ ByteOrder.less($0.first, first) }) ?? true else {
                    throw IndexRun.Damage(reason: "run directory out of order")
                }
                runs.append(Run(first: first, number: number))
            }
            guard buffer.remainingCount == 0 else { throw IndexRun.Damage(reason: "run directory has trailing bytes") }
        } catch let damage as IndexRun.Damage {
            throw damage
        } catch {
            throw IndexRun.Damage(reason: "run directory truncated")
        }
    }

    package func encoded() -> [UInt8] {
        var buffer = DataBuffer()
        buffer.writeVarInt(nextNumber)
        buffer.writeVarInt(UInt64(runs.count))
        for run in runs {
            buffer.writeVarInt(run.number)
            buffer.write(run.first)
        }
        return buffer.bytes
    }

    /// The position of the last run whose first entry sorts at or before `entry`, or nil when
    /// every run starts after it.
    package func lastPosition(atOrBefore entry: [UInt8]) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if !ByteOrder.less(entry, runs[middle].first) { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// A new run number.
    package mutating func takeNumber() -> UInt64 {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// The key a run is stored under.
    package static func key(ofRun number: UInt64) -> [UInt8] {
        RowIDKey.bytes(number)
    }
}
