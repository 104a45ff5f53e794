// TokyoCabinetBackend: a store directory with one Tokyo Cabinet hash database per table
// (`Song.tch`, `_store.tch`, `_names.tch`), opened on first use.

import Foundation

/// The ``Backend`` that keeps a store in a directory of Tokyo Cabinet hash database files,
/// one per table.
///
/// ```swift
/// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder")
/// let store = try Store(backend: backend)
/// ```
public final class TokyoCabinetBackend: Backend {
    /// The store directory.
    public let path: String
    private var databases: [String: HashDatabase] = [:]
    private var isClosed = false

    /// Opens the store directory at `path`, creating it if it does not exist.
    ///
    /// Throws ``StoreError/notADirectory(path:)`` when `path` is a file.
    ///
    /// ```swift
    /// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder")
    /// ```
    public init(path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw StoreError.notADirectory(path: path) }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StoreError.cannotOpen(path: path, reason: "\(error)")
            }
        }
    }

    /// The file that holds `table`.
    ///
    /// ```swift
    /// backend.filePath(for: "Song")   // "/tmp/music.larder/Song.tch"
    /// ```
    public func filePath(for table: String) -> String {
        (path as NSString).appendingPathComponent(table + ".tch")
    }

    public func withValue<Result>(
        forKey key: [UInt8], in table: String,
        _ body: (UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        try database(for: table).withValue(forKey: key, body)
    }

    public func forEachRecord(
        in table: String,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try database(for: table).forEachRecord(body)
    }

    public func recordCount(in table: String) throws -> Int {
        try database(for: table).recordCount()
    }

    /// Applies the batch one file at a time, each file inside its own Tokyo Cabinet
    /// transaction.
    public func apply(_ batch: WriteBatch) throws {
        for table in batch.tables {
            let database = try database(for: table)
            try database.applyInTransaction { put, delete in
                try batch.forEachOperation(in: table) { kind, key, value in
                    switch kind {
                    case .put: try put(key, value)
                    case .delete: try delete(key)
                    }
                }
            }
        }
    }

    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        var firstError: (any Error)?
        for database in databases.values {
            do { try database.close() } catch { firstError = firstError ?? error }
        }
        databases.removeAll()
        if let firstError { throw firstError }
    }

    private func database(for table: String) throws -> HashDatabase {
        if let database = databases[table] { return database }
        guard !isClosed else { throw StoreError.closed }
        guard Self.isValidTableName(table) else { throw StoreError.invalidStorageName(table) }
        let tuning: HashDatabase.Tuning = table.hasPrefix("_") ? .smallFile : .classFile
        let database = try HashDatabase(path: filePath(for: table), tuning: tuning)
        databases[table] = database
        return database
    }

    /// A table name is a file name: letters, digits, `_`, `-`, `.`; not starting with `.`.
    static func isValidTableName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 200, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0" ... "9").contains(scalar)
                               || scalar == "_" || scalar == "-" || scalar == ".")
        }
    }
}
