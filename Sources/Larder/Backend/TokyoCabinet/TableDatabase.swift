// TableDatabase: what the commit machinery of TokyoCabinetBackend needs from one open file,
// whatever its kind (hash database for records, B+tree database for ordered tables), so that
// one batch commits atomically across files of both kinds.

/// One open Tokyo Cabinet file of a ``TokyoCabinetBackend`` table.
internal protocol TableDatabase: AnyObject {
    /// The file's path.
    var path: String { get }
    func close() throws
    func readValue(forKey key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> Void) throws
    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws
    func recordCount() throws -> Int
    func beginTransaction() throws
    func commit() throws
    func abort()
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws
    func putNew(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws
    func delete(_ key: UnsafeRawBufferPointer) throws
    func sync() throws
    /// True when ``commit()`` leaves the file synced to the device: a sync after it would
    /// only repeat the msync of the whole mapping and the fsync.
    var commitSyncsFile: Bool { get }
}

extension HashDatabase: TableDatabase {}
extension BTreeDatabase: TableDatabase {}
