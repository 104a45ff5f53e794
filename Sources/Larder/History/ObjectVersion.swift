// ObjectVersion: one saved version of an object of a class that keeps history, as
// Store.history(of:) gives it: the save's sequence number and date, and the object decoded
// from that version (nil for its deletion).

import Foundation

/// One version of an object: what a save wrote for it, or its deletion.
///
/// ```swift
/// for version in try store.history(of: note) {
///     print(version.sequence, version.savedAt, version.object?.text ?? "deleted")
/// }
/// ```
public struct ObjectVersion<T: StoredObject> {
    /// The sequence number of the save that wrote the version (the one ``StoreChange/sequence``
    /// and ``Store/changes(since:)`` give for that save).
    public let sequence: UInt64
    /// When the save that wrote the version ran (the clock of the saving process).
    public let savedAt: Date
    /// A detached object decoded from the version (not the store's live instance, not in its
    /// identity map, with its rowID set; its references are the store's objects), or nil when
    /// the version is the object's deletion.
    public let object: T?

    /// True when the version is the object's deletion.
    public var isDeletion: Bool { object == nil }
}
