// The interchange export: the store's saved state (its classes' registry entries, every
// object's record, every named buffer) written as one JSON file (docs/INTERCHANGE.md), streamed
// a page of records at a time so that memory stays flat however many objects there are. An
// encrypted store's records are written decrypted: an export is for reading elsewhere.

import Foundation

extension Store {
    /// The interchange format's name, the value of `"format"` in every file.
    internal static let interchangeFormat = "larder-interchange"
    /// The version of the interchange format this Larder writes and reads.
    internal static let interchangeVersion: UInt64 = 1

    /// Writes the store's saved state to a JSON file in the interchange format
    /// (docs/INTERCHANGE.md): every class's registry entry (class ID, version, next rowID,
    /// deleted rowIDs), every object (rowID, version, and its fields by name for a class with
    /// a field schema, else its record bytes in base64), and every named buffer.
    ///
    /// The Swift classes need not be registered: records are read as stored. Unsaved changes
    /// are not exported. An encrypted store's records are written **decrypted**: keep the file
    /// as safe as the passphrase. The file is written beside `url` and renamed over it once
    /// complete, so a failed export leaves no partial file. Memory stays flat for any number of
    /// objects. Throws ``InterchangeError/fileFailure(path:reason:)`` when the file cannot be
    /// written, and a ``StoreError`` for damage found in the store.
    ///
    /// ```swift
    /// try store.exportInterchange(to: URL(fileURLWithPath: "/tmp/music.json"))
    /// ```
    public func exportInterchange(to url: URL) throws {
        try checkOpen()
        var writer = try JSONTextWriter(path: url.path)
        try exportInterchange(into: &writer)
        try writer.finish()
    }

    /// The interchange text of the store, into `writer` (flushed as it fills, not finished).
    internal func exportInterchange(into writer: inout JSONTextWriter) throws {
        let classes = try registryEntries()
        writer.raw(#"{"format":"#)
        writer.string(Self.interchangeFormat)
        writer.raw(#","version":"#)
        writer.unsigned(Self.interchangeVersion)
        writer.raw(",\n\"classes\":[")
        for (position, registered) in classes.enumerated() {
            writer.raw(position == 0 ? "\n" : ",\n")
            Self.writeClass(registered, to: &writer)
        }
        writer.raw(classes.isEmpty ? "],\n\"objects\":[" : "\n],\n\"objects\":[")
        var isFirst = true
        for registered in classes {
            let coder = try interchangeFields.coder(for: registered, in: self)
            var found = 0
            try forEachRawRecord(ofClassNamed: registered.name) { record in
                // A record the registry says cannot exist would make a file no import accepts.
                guard registered.holds(record.rowID) else {
                    throw StoreError.corruptRecord(class: registered.name, rowID: record.rowID)
                }
                found += 1
                writer.raw(isFirst ? "\n" : ",\n")
                isFirst = false
                try Self.writeObject(record, of: registered.name, coder: coder, to: &writer)
                try writer.flushIfFull()
            }
            guard found == registered.objectCount else {
                throw StoreError.missingRecords(table: registered.name, expected: registered.objectCount, found: found)
            }
        }
        writer.raw(isFirst ? "],\n\"namedBuffers\":[" : "\n],\n\"namedBuffers\":[")
        let names = try dataBufferNames()
        for (position, name) in names.enumerated() {
            guard let buffer = try dataBuffer(forName: name) else { continue }
            writer.raw(position == 0 ? "\n" : ",\n")
            writer.raw(#"{"name":"#)
            writer.string(name)
            writer.raw(#","version":"#)
            writer.unsigned(UInt64(buffer.versionOfData))
            writer.raw(#","bytes":"#)
            writer.string(Data(buffer.bytes).base64EncodedString())
            writer.raw("}")
            try writer.flushIfFull()
        }
        writer.raw(names.isEmpty ? "]}\n" : "\n]}\n")
    }

    private static func writeClass(_ registered: RegistryEntry, to writer: inout JSONTextWriter) {
        writer.raw(#"{"name":"#)
        writer.string(registered.name)
        writer.raw(#","classID":"#)
        writer.unsigned(registered.classID)
        writer.raw(#","version":"#)
        writer.unsigned(UInt64(registered.version))
        writer.raw(#","nextRowID":"#)
        writer.unsigned(registered.nextRowID)
        writer.raw(#","deletedRowIDs":["#)
        for (position, range) in registered.deletedRowIDs.enumerated() {
            writer.raw(position == 0 ? "[" : ",[")
            writer.unsigned(range.lowerBound)
            writer.raw(",")
            writer.unsigned(range.upperBound)
            writer.raw("]")
        }
        writer.raw("]")
        if let schema = registered.schema {
            writer.raw(#","fields":"#)
            schema.write(to: &writer)
        }
        writer.raw("}")
    }

    private static func writeObject(_ record: RawRecord, of className: String, coder: ClassFieldCoder?,
                                    to writer: inout JSONTextWriter) throws {
        writer.raw(#"{"class":"#)
        writer.string(className)
        writer.raw(#","rowID":"#)
        writer.unsigned(record.rowID)
        writer.raw(#","version":"#)
        writer.unsigned(UInt64(record.version))
        if let coder {
            let fields: [InterchangeField]
            do {
                fields = try coder.fields(record.content, record.version)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.undecodableRecord(class: className, rowID: record.rowID, reason: "\(error)")
            }
            writer.raw(#","fields":{"#)
            for (position, field) in fields.enumerated() {
                if position > 0 { writer.raw(",") }
                writer.string(field.name)
                writer.raw(":")
                field.value.write(to: &writer)
            }
            writer.raw("}}")
        } else {
            writer.raw(#","bytes":"#)
            writer.string(Data(record.content).base64EncodedString())
            writer.raw("}")
        }
    }
}
