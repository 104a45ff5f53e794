// RecordBatch: the stored records of many documents, copied out of their pages in one pass,
// so that decoding them (the larger cost of a big find) can run outside the storage lock and
// spread over the machine's cores.

import Dispatch
import Foundation

/// Raw document records, in rowID order.
struct RecordBatch {
    /// The records' bytes, back to back.
    var bytes: [UInt8] = []
    /// Each record's rowID and place in `bytes`.
    var spans: [(rowID: Int64, start: Int, count: Int)] = []

    /// Adds a copy of `record` as the record of `rowID`.
    mutating func append(_ record: UnsafeRawBufferPointer, rowID: Int64) {
        spans.append((rowID, bytes.count, record.count))
        bytes.append(contentsOf: record)
    }

    /// Below this many records, decoding stays on the calling thread.
    static let parallelThreshold = 2_048

    /// The documents of the records, in order, decoded by `open` (called with a record and
    /// its rowID) on as many threads as the machine has cores when the batch is large.
    func decode(_ open: @Sendable (UnsafeRawBufferPointer, Int64) throws -> JSON) throws -> [JSON] {
        let spans = spans
        return try bytes.withUnsafeBytes { bytes in
            guard spans.count >= Self.parallelThreshold else {
                return try spans.map { try open(UnsafeRawBufferPointer(rebasing: bytes[$0.start ..< $0.start + $0.count]), $0.rowID) }
            }
            let chunks = min(spans.count / 512, ProcessInfo.processInfo.activeProcessorCount * 4)
            let results = ChunkResults(count: chunks)
            let shared = SharedInput(bytes: bytes, spans: spans)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let range = (chunk * shared.spans.count / chunks) ..< ((chunk + 1) * shared.spans.count / chunks)
                do {
                    var documents: [JSON] = []
                    documents.reserveCapacity(range.count)
                    for span in shared.spans[range] {
                        documents.append(try open(UnsafeRawBufferPointer(rebasing: shared.bytes[span.start ..< span.start + span.count]), span.rowID))
                    }
                    results.set(chunk, .success(documents))
                } catch {
                    results.set(chunk, .failure(error))
                }
            }
            var documents: [JSON] = []
            documents.reserveCapacity(spans.count)
            for chunk in 0 ..< chunks { documents.append(contentsOf: try results.get(chunk)) }
            return documents
        }
    }

    /// The batch's bytes and spans, read by every decoding thread and written by none.
    private struct SharedInput: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        let spans: [(rowID: Int64, start: Int, count: Int)]
    }

    /// One slot per chunk, each written by the one thread that decodes the chunk.
    private final class ChunkResults: @unchecked Sendable {
        private var results: [Result<[JSON], any Error>?]
        private let lock = NSLock()

        init(count: Int) {
            results = Array(repeating: nil, count: count)
        }

        func set(_ chunk: Int, _ result: Result<[JSON], any Error>) {
            lock.lock()
            results[chunk] = result
            lock.unlock()
        }

        func get(_ chunk: Int) throws -> [JSON] {
            lock.lock()
            defer { lock.unlock() }
            guard let result = results[chunk] else { return [] }
            return try result.get()
        }
    }
}
