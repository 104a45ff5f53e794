// LarderModel: the @StoredModel macro, and Larder re-exported so that `import LarderModel` is all
// a model file needs. The macro's implementation is LarderModelMacros (a compiler plug-in).

@_exported import Larder

/// Makes a `StoredObject` subclass store its `var` properties without hand-written
/// serialization: each becomes a ``Stored`` field (faulting on read, marking the object updated
/// on write), and the macro writes `writeContent(to:)`, `readContent(from:in:)` and
/// `storedModelSchema`.
///
/// ```swift
/// import LarderModel
///
/// @StoredModel
/// final class Song: StoredObject {
///     var title = ""
///     var seconds: UInt32 = 0
///     var album: Album?          // a reference
///     var tags: [String] = []
///     var songs: [Song] = []     // an ordered relationship
/// }
/// ```
///
/// Records are tagged by field (docs/FORMAT.md section 21): adding, removing or reordering
/// properties needs no version handling. A field a record lacks keeps its default value; a
/// field the class no longer has is skipped. A field's tag comes from its name, so renaming a
/// property loses its stored values (give the class a new ``StoredObject/storageName``, or keep
/// the old name). Computed, `static` and ``NotStored`` properties are not stored; anything else
/// the macro cannot store is a compile-time error.
@attached(member, names: named(writeContent), named(readContent), named(storedModelSchema))
@attached(memberAttribute)
public macro StoredModel() = #externalMacro(module: "LarderModelMacros", type: "StoredModelMacro")

/// Leaves a `var` of a `@StoredModel` class out of its records: it is neither saved nor
/// loaded, and keeps its initial value in every new instance (and every fault).
///
/// ```swift
/// @StoredModel
/// final class Song: StoredObject {
///     var title = ""
///     @NotStored var isPlaying = false
/// }
/// ```
@attached(peer)
public macro NotStored() = #externalMacro(module: "LarderModelMacros", type: "NotStoredMacro")
