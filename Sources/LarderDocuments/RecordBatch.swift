// RecordBatch: the stored records of many documents, copied out of their pages in one pass,
// so that decoding them (the larger cost of a big find) can run outside the storage lock and
// spread over the machine's cores.

import Dispatch
import Foundation
import Larder

/// Raw document records, in rowID order.
struct RecordBatch {
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

    /// Adds copies of every record of `other`, after this batch's.
    mutating func append(contentsOf other: RecordBatch) {
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        spans.append(contentsOf: other.spans.lazy.map { ($0.rowID, base + $0.start, $0.count) })
    }

    /// Below this many records, decoding stays on the calling thread.
    static let parallelThreshold = 2_048

    /// The records' rowIDs and documents, in order, decoded by `open` (called with a record,
    /// its rowID and the key sets its thread has decoded) on as many threads as the machine
    /// has cores when the batch is large. Each thread writes its documents straight into
    /// their places in the result. A small batch is decoded on the calling thread, with
    /// `shapes` (that thread's key sets).
    func decode(shapes: ObjectShapes, _ open: @Sendable (UnsafeRawBufferPointer, Int64, ObjectShapes) throws -> JSON) throws -> [(rowID: Int64, document: JSON)] {
        let spans = spans
        return try bytes.withUnsafeBytes { bytes in
            guard spans.count >= Self.parallelThreshold else {
                return try spans.map { span in
                    (span.rowID, try open(UnsafeRawBufferPointer(rebasing: bytes[span.start ..< span.start + span.count]), span.rowID, shapes))
                }
            }
            let chunks = min(spans.count / 512, ProcessInfo.processInfo.activeProcessorCount * 4)
            let outcomes = ChunkOutcomes(count: chunks, initial: 0)
            return try Array(unsafeUninitializedCapacity: spans.count) { buffer, initialized in
                guard let output = buffer.baseAddress else { return }
                let shared = SharedInput(bytes: bytes, spans: spans, output: output)
                let count = spans.count
                @Sendable func range(of chunk: Int) -> Range<Int> {
                    (chunk * count / chunks) ..< ((chunk + 1) * count / chunks)
                }
                let learned = LearnedShapes()
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    var done = 0
                    let shapes = ObjectShapes()
                    defer { if chunk == 0 { learned.keep(shapes) } }
                    do {
                        for index in range(of: chunk) {
                            let span = shared.spans[index]
                            let record = UnsafeRawBufferPointer(rebasing: shared.bytes[span.start ..< span.start + span.count])
                            (shared.output + index).initialize(to: (span.rowID, try open(record, span.rowID, shapes)))
                            done += 1
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
                initialized = spans.count
                // The first chunk's key sets serve the calling thread's next small decodes.
                if let first = learned.shapes { shapes.adopt(first) }
            }
        }
    }

    /// The key sets a decoding thread learned, handed to the calling thread once it is done.
    private final class LearnedShapes: @unchecked Sendable {
        // @unchecked: set by one thread inside concurrentPerform, read after it returns.
        private(set) var shapes: ObjectShapes?

        func keep(_ shapes: ObjectShapes) {
            self.shapes = shapes
        }
    }

    /// The batch's records, read by every decoding thread, and the result, each element
    /// written by one thread only.
    private struct SharedInput: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        let spans: [(rowID: Int64, start: Int, count: Int)]
        let output: UnsafeMutablePointer<(rowID: Int64, document: JSON)>
    }
}
