// RowID: the one identifier type of stored things: an object's rowID within its class, a
// document's "__rowid__" within its collection. Handed out from 1, never reused.

/// The identifier of a stored object within its class, or of a document within its
/// collection: handed out from 1 in insertion order and never reused, even after a delete.
///
/// ```swift
/// let id: RowID = song.rowID
/// let again = try store.object(of: Song.self, rowID: id)
/// ```
public typealias RowID = UInt64
