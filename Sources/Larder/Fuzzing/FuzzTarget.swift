// FuzzTarget: one decoder of untrusted bytes (file bytes, query text) as seen by the fuzzers:
// its name, seeds built with the real encoders, and a function that decodes any input and
// checks the decoder's promises. The fuzz executable (Fuzz/LarderFuzz) and the short runs of
// the test suite (Tests/FuzzTests) call the same functions; they live in the modules whose
// decoders they reach, so no decoder needs wider access than `internal`.

/// A decoder of untrusted bytes, for fuzzing.
///
/// ```swift
/// for target in FuzzTarget.larderTargets {
///     for seed in target.seeds() { assert(try target.run(seed)) }
/// }
/// ```
package struct FuzzTarget: Sendable {
    /// Short and stable: names the target's corpus folder and its command-line selector.
    package let name: String
    /// Valid encodings (and a few that are near misses) to start mutating from.
    package let seeds: @Sendable () -> [[UInt8]]
    /// Decodes `input` and returns whether the decoder accepted it (a typed error from the
    /// decoder is an answer, not a failure); throws ``FuzzViolation`` when the decoder breaks
    /// a promise that does not end the process (a wrong answer, a moved read position).
    package let run: @Sendable ([UInt8]) throws(FuzzViolation) -> Bool

    package init(name: String, seeds: @escaping @Sendable () -> [[UInt8]],
                 run: @escaping @Sendable ([UInt8]) throws(FuzzViolation) -> Bool) {
        self.name = name
        self.seeds = seeds
        self.run = run
    }

    /// The targets of the Larder module's decoders.
    package static let larderTargets: [FuzzTarget] = [dataBuffer, recordPage, sealedPage, recordEnvelope, commitJournal,
                                                      classRecord, objectIndexRecord, encryptionRecord, changeRecord, historyRecord, textIndex,
                                                      searchQuery, indexRun, interchange, storedModelSchema, storedModelContent]
}

/// A decoder that answered wrongly: what it broke.
package struct FuzzViolation: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }

    /// Throws a violation described by `message` unless `condition` holds.
    package static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzViolation) {
        guard condition else { throw FuzzViolation(message()) }
    }
}

extension FuzzTarget {
    /// Calls `body` with `input` copied into an allocation of exactly its size, so that a
    /// read past its end leaves the allocation (which AddressSanitizer reports) instead of
    /// reading an array's spare capacity.
    package static func withExactBytes<Result>(_ input: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FuzzViolation) -> Result)
        throws(FuzzViolation) -> Result {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: input.count, alignment: 1)
        defer { copy.deallocate() }
        input.withUnsafeBytes { copy.copyMemory(from: $0) }
        return try body(UnsafeRawBufferPointer(copy))
    }

    /// Whether `part` lies inside `whole`: a decoder hands out views of its input only.
    package static func lies(_ part: UnsafeRawBufferPointer, inside whole: UnsafeRawBufferPointer) -> Bool {
        guard part.count > 0 else { return true }
        guard let start = part.baseAddress, let base = whole.baseAddress else { return false }
        return start >= base && start + part.count <= base + whole.count
    }
}
