// Inspection: the collections a store holds, and every document of a collection as stored, for
// tools that describe and check a store (the `larder` command's `info` and `verify`).

import Larder

extension DocumentStore {
    /// The names of the store's collections, from their definitions, sorted. Unlike
    /// ``collection(_:)`` it creates nothing: a tool asks it before opening a collection.
    ///
    /// ```swift
    /// for name in try store.storedCollectionNames() { print(name) }
    /// ```
    package func storedCollectionNames() throws -> [String] {
        try withLock { try collectionNames().sorted() }
    }

    /// Whether the store is encrypted (it was opened with its key).
    ///
    /// ```swift
    /// print(store.isEncrypted ? "encrypted" : "plaintext")
    /// ```
    package var isEncrypted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cipher != nil
    }
}

extension DocumentCollection {
    /// Calls `body` with the rowID and content of every document, in storage order, until it
    /// returns false. A damaged document throws (`DocumentError.corruptDocument`).
    ///
    /// ```swift
    /// try people.forEachStoredDocument { rowID, document in print(rowID, document); return true }
    /// ```
    package func forEachStoredDocument(_ body: (Int64, JSON) throws -> Bool) throws {
        try withState { state in try state.forEachDocument(body) }
    }
}
