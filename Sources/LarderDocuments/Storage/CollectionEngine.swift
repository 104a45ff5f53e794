// CollectionEngine: the engine behind one collection, used under its own lock. Reads
// documents (through the cache and DocumentTable) and index ranges (IndexTable, Larder's index
// engine, read through the SharedBackend and sealed with the DocumentCipher) for the
// executor, and stages every write (documents, index entries, the definition), checking
// unique indexes, before one WriteBatch applies it all: a call commits whole or changes
// nothing.

import Foundation
import Larder

/// One collection's definition, cache and storage access.
final class CollectionEngine: DocumentSource {
    let name: String
    let backend: SharedBackend
    /// Held for each whole operation on the collection: one at a time, in order.
    let lock = NSLock()
    var definition: CollectionDefinition
    var cache: DocumentCache
    /// The documents' pages.
    var documents: DocumentTable
    /// The store's cipher, in an encrypted store.
    let cipher: DocumentCipher?
    /// Index id -> the directory of its sealed runs, in an encrypted store: read once, then
    /// kept up to date by commits.
    var runDirectories: [Int: RunDirectory] = [:]
    /// Set when the store replaced this state (a rekey): an operation that took it before
    /// takes the new one.
    var isRetired = false
    /// The collection's change feed (the store keeps it by name, across engines).
    let feed: CollectionFeed

    init(name: String, backend: SharedBackend, definition: CollectionDefinition, cacheSize: Int, cipher: DocumentCipher?,
         feed: CollectionFeed) {
        self.name = name
        self.feed = feed
        self.backend = backend
        self.definition = definition
        self.cipher = cipher
        self.cache = DocumentCache(capacity: cacheSize)
        self.documents = DocumentTable(backend: backend, name: name, layout: definition.pageLayout, cipher: cipher)
    }

    var defaults: JSON { definition.defaults }

    /// Query and orderBy texts parsed lately, with the aliases they were expanded with: an
    /// application runs the same few queries with different arguments.
    private var templateCache: [String: QueryTemplate] = [:]
    private var sortKeyCache: [String: [SortKey]] = [:]
    private var parseCacheAliases: [String: String] = [:]
    private static let parseCacheSize = 128

    /// The WHERE clause `text` parsed with the collection's aliases, placeholders unbound.
    func template(of text: String) throws -> QueryTemplate {
        clearParseCachesIfAliasesChanged()
        return try parsed(text, cache: &templateCache, QueryParser.parseTemplate)
    }

    /// The keys of the orderBy `text`, parsed with the collection's aliases.
    func sortKeys(of text: String) throws -> [SortKey] {
        clearParseCachesIfAliasesChanged()
        return try parsed(text, cache: &sortKeyCache, QueryParser.parseSortKeys)
    }

    /// `text` tokenized with the collection's aliases and parsed by `parse`, from `cache`
    /// when it was lately (the caches hold texts parsed with the aliases of now).
    private func parsed<Value>(_ text: String, cache: inout [String: Value],
                               _ parse: (String, [QueryToken]) throws -> Value) throws -> Value {
        if let value = cache[text] { return value }
        let value = try parse(text, QueryTokenizer.tokenize(text, aliases: definition.aliases))
        if cache.count >= Self.parseCacheSize { cache.removeAll() }
        cache[text] = value
        return value
    }

    private func clearParseCachesIfAliasesChanged() {
        guard parseCacheAliases != definition.aliases else { return }
        templateCache.removeAll()
        sortKeyCache.removeAll()
        parseCacheAliases = definition.aliases
    }

    /// The table of `index` (in an encrypted store, with the directory of its runs, read on
    /// first use).
    func table(of index: IndexDefinition) throws -> IndexTable {
        var table = plaintextTable(of: index)
        if let cipher {
            if runDirectories[index.id] == nil { runDirectories[index.id] = try table.readDirectory(with: cipher) }
            table.sealedRuns = SealedRuns(cipher: cipher, directory: runDirectories[index.id] ?? RunDirectory())
        }
        return table
    }

    /// The table of `index` for a write that replaces all its runs (sealed with `cipher`, by
    /// default the store's): its directory is not read, so a damaged one goes too.
    func tableToReplace(_ index: IndexDefinition, sealingWith cipher: DocumentCipher?? = nil) -> IndexTable {
        var table = plaintextTable(of: index)
        table.sealedRuns = (cipher ?? self.cipher).map { SealedRuns(cipher: $0, directory: RunDirectory()) }
        return table
    }

    /// The table of `index` without its sealed runs (a plaintext store's table).
    func plaintextTable(of index: IndexDefinition) -> IndexTable {
        let tableName = index.table(in: name)
        backend.declareOrderedTable(tableName)
        // The definition rather than its name: the name is only made for an error.
        return IndexTable(storage: backend, name: tableName, restartPoints: definition.indexRunsHaveRestartPoints) { [collection = name] reason in
            DocumentError.corruptIndex(collection: collection, index: index.name, reason: reason)
        }
    }

    /// The number of documents.
    func documentCount() throws -> Int {
        try documents.count()
    }
}
