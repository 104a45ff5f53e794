// EncodingContext: what a DataBuffer needs from the store while a save encodes objects:
// inserting new objects met as references, and remembering the first failure.

/// The store side of a save's encoding, reachable from the buffer passed to `writeContent`.
internal final class EncodingContext: @unchecked Sendable {
    // Unchecked: a context lives for one save on the store's thread.
    weak var store: Store?
    private(set) var error: StoreError?
    var autoInserted: [StoredObject] = []

    init(store: Store) {
        self.store = store
    }

    /// Prepares a referenced object for writing: inserts it if it is new, and checks it
    /// belongs to this store.
    func prepareReference(to object: StoredObject) {
        guard let store else { return }
        if let owner = object.attachedStore {
            if owner !== store {
                record(StoreError.objectInAnotherStore(class: type(of: object).storageName, rowID: object.rowID))
            }
        } else if object.rowID == 0 && !object.isDeleted {
            store.insertReferenced(object, context: self)
        }
    }

    func record(_ error: any Error) {
        guard self.error == nil else { return }
        self.error = (error as? StoreError) ?? .encryptionFailure(reason: "\(error)")
    }
}
