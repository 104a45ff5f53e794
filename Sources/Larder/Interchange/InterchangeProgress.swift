// InterchangeProgress: how far an import has come, reported as it goes, for a progress bar over
// a long one (an import reads its file twice: checking, then writing).

/// How far ``Store/importInterchange(from:progress:)`` has come.
///
/// ```swift
/// try copy.importInterchange(from: file) { progress in
///     print(progress.phase, progress.objects, "of", progress.totalObjects)
/// }
/// ```
public struct InterchangeProgress: Sendable, Equatable {
    /// The two passes of an import over its file.
    public enum Phase: Sendable, Equatable {
        /// The first pass: the whole file checked, nothing written.
        case checking
        /// The second pass: the records written, a batch at a time.
        case writing
    }

    /// The pass under way.
    public var phase: Phase
    /// The objects checked (or written) so far in this pass.
    public var objects: Int
    /// How many objects the file holds, from its classes' registries (known once they are
    /// read, before any object).
    public var totalObjects: Int

    /// A report.
    ///
    /// ```swift
    /// let done = InterchangeProgress(phase: .writing, objects: 10, totalObjects: 10)
    /// ```
    public init(phase: Phase, objects: Int, totalObjects: Int) {
        self.phase = phase
        self.objects = objects
        self.totalObjects = totalObjects
    }
}
