// TextIndex: the full-text index of one class, in three tables of the store:
//
//   _text.<Class>       posting chunks: (attribute, token ID, chunk) -> rowIDs of that chunk
//   _textvocab.<Class>  vocabulary: (attribute, token ID) -> token, row count, chunk numbers
//   _textrows.<Class>   row blocks: block of 64 rowIDs -> each row's normalized indexed text
//
// Every record is sealed like an object record (checksummed, or encrypted with the store's
// key), under a scope of its own. The vocabulary is loaded into memory on first use and kept in
// step with saves. docs/FORMAT.md section 15 has the bytes.

/// The full-text index of one registered class.
internal final class TextIndex {
    let className: String
    let classID: UInt64
    let postingsTable: String
    let vocabularyTable: String
    let rowsTable: String
    /// Whether the store's registry has this index (`text/<Class>` in `_store`).
    var isRegistered: Bool
    /// Whether the class declares indexed text (its `indexedText()` is overridden).
    let declaresText: Bool
    /// The vocabulary of each attribute, once loaded.
    private(set) var vocabularies: [String: TextVocabulary]?
    /// The next token ID to hand out (IDs of tokens no row holds any more may be reused).
    var nextTokenID: UInt32 = 1

    /// The most rowIDs a posting chunk holds: a save that adds rows to a token rewrites its
    /// last chunk, at most this many rowIDs.
    static let maxChunkRows = 4_096
    /// Rows per row block: 2^6.
    static let rowBlockShift = 6
    /// The registry record's format.
    static let formatVersion: UInt64 = 1

    init(className: String, classID: UInt64, isRegistered: Bool, declaresText: Bool) {
        self.className = className
        self.classID = classID
        self.postingsTable = "_text." + className
        self.vocabularyTable = "_textvocab." + className
        self.rowsTable = "_textrows." + className
        self.isRegistered = isRegistered
        self.declaresText = declaresText
    }

    /// The key of the registry record of the index of `className` in `_store`.
    static func registryKey(for className: String) -> [UInt8] { Array(("text/" + className).utf8) }

    /// The tables of the index of `className`.
    static func tables(for className: String) -> [String] {
        ["_text." + className, "_textvocab." + className, "_textrows." + className]
    }

    // Scopes told apart so that a record cannot pass for one of another table.
    var postingScope: UInt64 { classID | 1 << 60 }
    var vocabularyScope: UInt64 { classID | 2 << 60 }
    var rowScope: UInt64 { classID | 3 << 60 }

    static func scopes(classID: UInt64) -> [UInt64] { [classID | 1 << 60, classID | 2 << 60, classID | 3 << 60] }

    // MARK: Keys

    /// The key prefix of an attribute: its name as a string (varint length, UTF-8).
    static func attributePrefix(_ attribute: String) -> [UInt8] {
        var buffer = DataBuffer()
        buffer.write(attribute)
        return buffer.bytes
    }

    static func vocabularyKey(prefix: [UInt8], tokenID: UInt32) -> [UInt8] {
        var key = prefix
        key.appendBigEndian(tokenID)
        return key
    }

    static func postingKey(prefix: [UInt8], tokenID: UInt32, chunk: UInt32) -> [UInt8] {
        var key = vocabularyKey(prefix: prefix, tokenID: tokenID)
        key.appendBigEndian(chunk)
        return key
    }

    /// The attribute and token ID of a vocabulary key (or of a posting key, with its chunk).
    static func parseKey(_ key: UnsafeRawBufferPointer) -> (attribute: String, tokenID: UInt32, chunk: UInt32?)? {
        var buffer = DataBuffer(bytes: Array(key))
        guard let attribute = try? buffer.readString() else { return nil }
        let rest = Array(buffer.bytes[buffer.readPosition...])
        guard rest.count == 4 || rest.count == 8 else { return nil }
        let tokenID = rest[0 ..< 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let chunk = rest.count == 8 ? rest[4 ..< 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
        return (attribute, tokenID, chunk)
    }

    // MARK: Reading

    /// Opens a sealed index record, or throws ``StoreError/corruptTextIndex(class:reason:)``.
    func open(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, scope: UInt64,
              cipher: RecordCipher?, what: String) throws -> DataBuffer {
        do {
            return try RecordEnvelope.open(value, key: key, cipher: cipher, scope: scope)
        } catch .encryptedWithoutKey {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw StoreError.corruptTextIndex(class: className, reason: "damaged \(what) record")
        }
    }

    /// Decodes with `body`, turning decoding errors into ``StoreError/corruptTextIndex(class:reason:)``.
    func decode<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.corruptTextIndex(class: className, reason: "\(what) does not decode: \(error)")
        }
    }

    /// The vocabulary of every attribute, loaded from the store on first use.
    func loadedVocabularies(in store: Store) throws -> [String: TextVocabulary] {
        if let vocabularies { return vocabularies }
        // Before its first save the index has no files, and reading would create them outside
        // of any commit.
        guard isRegistered else { return [:] }
        var loaded: [String: TextVocabulary] = [:]
        var maxTokenID: UInt32 = 0
        try store.backend.forEachRecord(in: vocabularyTable) { key, value in
            guard let parsed = Self.parseKey(key), parsed.chunk == nil else {
                throw StoreError.corruptTextIndex(class: className, reason: "malformed vocabulary key")
            }
            var buffer = try open(value, key: key, scope: vocabularyScope, cipher: store.cipher, what: "vocabulary")
            let entry = try decode("a vocabulary record") { try Self.decodeVocabularyEntry(&buffer, tokenID: parsed.tokenID) }
            let vocabulary = loaded[parsed.attribute] ?? TextVocabulary()
            loaded[parsed.attribute] = vocabulary
            vocabulary.set(entry, for: entry.token)
            maxTokenID = max(maxTokenID, parsed.tokenID)
            return true
        }
        vocabularies = loaded
        nextTokenID = maxTokenID &+ 1
        return loaded
    }

    /// Adds to `batch`, for the save that registers the index, a delete of a key that never
    /// exists in each of its tables: applying it creates their files inside the commit, so that
    /// no later read creates one outside of it.
    func createTables(in batch: inout WriteBatch) {
        for table in [postingsTable, vocabularyTable, rowsTable] { batch.removeValue(forKey: [0], in: table) }
    }

    /// Forgets the loaded vocabulary, or replaces it (after a rebuild).
    func replaceVocabularies(_ vocabularies: [String: TextVocabulary]?, nextTokenID: UInt32) {
        self.vocabularies = vocabularies
        self.nextTokenID = nextTokenID
    }

    static func encodeVocabularyEntry(_ entry: VocabularyEntry) -> DataBuffer {
        var buffer = DataBuffer()
        buffer.write(entry.token)
        buffer.writeVarInt(entry.rowCount)
        buffer.writeVarInt(UInt64(entry.chunks.count))
        var previous: UInt64 = 0
        for chunk in entry.chunks {
            buffer.writeVarInt(UInt64(chunk.id))
            buffer.writeVarInt(chunk.firstRowID - previous)
            previous = chunk.firstRowID
        }
        return buffer
    }

    static func decodeVocabularyEntry(_ buffer: inout DataBuffer, tokenID: UInt32) throws -> VocabularyEntry {
        let token = try buffer.readBytes()
        let rowCount = try buffer.readVarInt()
        let count = try buffer.readVarInt()
        guard count <= UInt64(buffer.remainingCount) else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
        var chunks: [PostingChunk] = []
        var previous: UInt64 = 0
        for index in 0 ..< count {
            let id = try buffer.readVarInt()
            let gap = try buffer.readVarInt()
            guard id <= UInt64(UInt32.max), index == 0 || gap > 0, gap <= UInt64.max - previous else {
                throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
            }
            previous += gap
            chunks.append(PostingChunk(id: UInt32(id), firstRowID: previous))
        }
        return VocabularyEntry(tokenID: tokenID, token: token, rowCount: rowCount, chunks: chunks)
    }

    /// The rowIDs of the posting chunk under `key` (empty when it has no record).
    func chunk(key: [UInt8], in store: Store) throws -> [UInt64] {
        var rowIDs: [UInt64] = []
        try store.backend.readValue(forKey: key, in: postingsTable) { value in
            guard let value else { return }
            try key.withUnsafeBytes { key in
                var buffer = try open(value, key: key, scope: postingScope, cipher: store.cipher, what: "posting")
                try decode("a posting record") { try PostingList.decode(&buffer, appendingTo: &rowIDs) }
            }
        }
        return rowIDs
    }

    /// Every rowID holding the token of `entry`, ascending.
    func postings(of entry: VocabularyEntry, attribute: String, in store: Store) throws -> [UInt64] {
        let prefix = Self.attributePrefix(attribute)
        var rowIDs: [UInt64] = []
        for chunk in entry.chunks {
            rowIDs += try self.chunk(key: Self.postingKey(prefix: prefix, tokenID: entry.tokenID, chunk: chunk.id), in: store)
        }
        return rowIDs
    }
}
