// StoreKind: what a store directory holds, told from the keys of its `_store` file (FORMAT.md
// sections 8 and 16.4): an object store's format and class records, or a document store's
// collection definitions and metadata values. A store holding neither yet counts as an
// object store with no class.

enum StoreKind: String, Encodable {
    case objects
    case documents
    /// Both libraries wrote into the directory (possible for plaintext stores only).
    case objectsAndDocuments = "objects and documents"

    var holdsObjects: Bool { self != .documents }
    var holdsDocuments: Bool { self != .objects }

    /// The kind of store whose `_store` file holds `keys`.
    init(metadataKeys keys: [[UInt8]]) {
        func startsWith(_ prefix: String) -> Bool { keys.contains { $0.starts(with: Array(prefix.utf8)) } }
        let objects = keys.contains(Array("format".utf8)) || startsWith("class/")
        // An encrypted document store with no collection yet holds only its encryption
        // settings: an encrypted object store always has a format record.
        let onlyEncryption = keys == [Array("encryption".utf8)]
        let documents = startsWith("collection.") || startsWith("meta.") || onlyEncryption
        switch (objects, documents) {
        case (true, true): self = .objectsAndDocuments
        case (false, true): self = .documents
        default: self = .objects
        }
    }
}
