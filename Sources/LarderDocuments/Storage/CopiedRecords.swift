// CopiedRecords: the stored records of many documents, copied out of their pages in one pass
// so that decoding them (the larger cost of a big find) can run outside the storage lock and
// spread over the machine's cores.

import Dispatch
import Foundation
import Larder

/// Raw document records, in rowID order.
struct CopiedRecords {
    /// The records' bytes, back to back.
    var bytes: [UInt8] = []
    /// Each record's rowID and place in `bytes`.
    var spans: [(rowID: Int64, start: Int, count: Int)] = []

    /// Makes room for `count` records of a typical size, so that a big batch is not copied
    /// each time it grows (untouched room costs no memory).
    mutating func reserveCapacity(records count: Int) {
        spans.reserveCapacity(count)
        bytes.reserveCapacity(count * 128)
    }

    /// Adds a copy of `record` as the record of `rowID`.
    mutating func append(_ record: UnsafeRawBufferPointer, rowID: Int64) {
        spans.append((rowID, bytes.count, record.count))
        bytes.appendBytes(record)
    }

    /// Below this many records, decoding stays on the calling thread.
    static let parallelThreshold = 2_048

    /// The rowIDs and documents of the records of `batches`, one batch after the other,
    /// decoded by `open` (called with a record, its rowID and the key sets its thread has
    /// decoded) as one batch: batches picked on several threads are decoded where they lie,
    /// never joined into one. A large total is decoded on as many threads as the machine has
    /// cores, each writing its documents straight into their places in the result; a small
    /// one on the calling thread, with `shapes` (that thread's key sets).
    static func decode(_ batches: [CopiedRecords], shapes: ObjectShapes,
                       _ open: @Sendable (UnsafeRawBufferPointer, Int64, ObjectShapes) throws -> JSON) throws -> [(rowID: Int64, document: JSON)] {
        // Where each batch's records start in the result, and the total.
        var starts = [0]
        for batch in batches { starts.append(starts[starts.count - 1] + batch.spans.count) }
        let count = starts[starts.count - 1]
        return try withBytes(of: batches[...], []) { bytes in
            guard count >= parallelThreshold else {
                return try Array(unsafeUninitializedCapacity: count) { buffer, initialized in
                    guard let output = buffer.baseAddress else { return }
                    for (batch, bytes) in zip(batches, bytes) {
                        for span in batch.spans {
                            let record = UnsafeRawBufferPointer(rebasing: bytes[span.start ..< span.start + span.count])
                            (output + initialized).initialize(to: (span.rowID, try open(record, span.rowID, shapes)))
                            initialized += 1
                        }
                    }
                }
            }
            let chunks = min(count / 512, ProcessInfo.processInfo.activeProcessorCount * 4)
            let outcomes = ChunkOutcomes(count: chunks, initial: 0)
            return try Array(unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let output = buffer.baseAddress else { return }
                let shared = SharedInput(bytes: bytes, spans: batches.map(\.spans), starts: starts, output: output)
                @Sendable func range(of chunk: Int) -> Range<Int> {
                    (chunk * count / chunks) ..< ((chunk + 1) * count / chunks)
                }
                let learned = LearnedShapes()
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    var done = 0
                    let shapes = ObjectShapes()
                    defer { if chunk == 0 { learned.keep(shapes) } }
                    do {
                        let wanted = range(of: chunk)
                        // The part of the chunk in each batch.
                        for part in shared.spans.indices {
                            let lower = max(wanted.lowerBound, shared.starts[part])
                            let upper = min(wanted.upperBound, shared.starts[part + 1])
                            guard lower < upper else { continue }
                            let spans = shared.spans[part], bytes = shared.bytes[part]
                            for index in lower ..< upper {
                                let span = spans[index - shared.starts[part]]
                                let record = UnsafeRawBufferPointer(rebasing: bytes[span.start ..< span.start + span.count])
                                (shared.output + index).initialize(to: (span.rowID, try open(record, span.rowID, shapes)))
                                done += 1
                            }
                        }
                        outcomes.set(chunk, value: done, error: nil)
                    } catch {
                        outcomes.set(chunk, value: done, error: error)
                    }
                }
                if let error = outcomes.firstError {
                    // Nothing is returned: undo what every chunk initialized.
                    for chunk in 0 ..< chunks {
                        (output + range(of: chunk).lowerBound).deinitialize(count: outcomes.value(chunk))
                    }
                    throw error
                }
                initialized = count
                // The first chunk's key sets serve the calling thread's next small decodes.
                if let first = learned.shapes { shapes.adopt(first) }
            }
        }
    }

    /// Calls `body` with the bytes of every batch of `batches` at once (appended to `bytes`).
    private static func withBytes<Result>(of batches: ArraySlice<CopiedRecords>, _ bytes: [UnsafeRawBufferPointer],
                                          _ body: ([UnsafeRawBufferPointer]) throws -> Result) rethrows -> Result {
        guard let first = batches.first else { return try body(bytes) }
        return try first.bytes.withUnsafeBytes { try withBytes(of: batches.dropFirst(), bytes + [$0], body) }
    }

    /// The key sets a decoding thread learned, handed to the calling thread once it is done.
    private final class LearnedShapes: @unchecked Sendable {
        // @unchecked: set by one thread inside concurrentPerform, read after it returns.
        private(set) var shapes: ObjectShapes?

        func keep(_ shapes: ObjectShapes) {
            self.shapes = shapes
        }
    }

    /// The batches' records, read by every decoding thread, and the result, each element
    /// written by one thread only.
    private struct SharedInput: @unchecked Sendable {
        let bytes: [UnsafeRawBufferPointer]
        let spans: [[(rowID: Int64, start: Int, count: Int)]]
        /// Where each batch's records start in the result, then the total.
        let starts: [Int]
        let output: UnsafeMutablePointer<(rowID: Int64, document: JSON)>
    }
}
