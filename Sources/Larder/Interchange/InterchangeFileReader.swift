// InterchangeFileReader: one pass over an interchange file (docs/INTERCHANGE.md) that checks
// everything the format promises and hands each part to its caller: the classes, then each
// object as a record (named fields turned into content bytes by the class's field coder), then
// each named buffer. It keeps only the classes and, per class, the last rowID and a count, so
// memory stays flat for any number of objects. Every failure is an InterchangeError with the
// position of the value at fault.

import Foundation

/// Reads and checks an interchange file, part by part.
internal struct InterchangeFileReader {
    /// What the reader hands out, in the file's order.
    struct Visitor {
        /// The classes, checked (names, class IDs, registries), before any object.
        var classes: ([RegistryEntry]) throws -> Void = { _ in }
        /// One object, its content bytes ready to seal.
        var object: (RegistryEntry, Store.RawRecord) throws -> Void = { _, _ in }
        /// One named buffer.
        var namedBuffer: (String, DataBuffer) throws -> Void = { _, _ in }
    }

    private var reader: JSONTextReader
    /// The field coder of each class, asked once; nil for a class without a field schema.
    private let coder: (RegistryEntry) throws -> ClassFieldCoder?
    private var classes: [String: RegistryEntry] = [:]
    private var coders: [String: ClassFieldCoder?] = [:]
    /// Per class: the last rowID read and how many objects.
    private var progress: [String: (lastRowID: UInt64, count: Int)] = [:]

    init(reader: JSONTextReader, coder: @escaping (RegistryEntry) throws -> ClassFieldCoder?) {
        self.reader = reader
        self.coder = coder
    }

    /// Reads the whole file, calling `visitor` with each part.
    mutating func read(_ visitor: Visitor) throws {
        try reader.beginObject()
        try expectKey("format")
        let formatStart = try reader.positionOfNext()
        guard case .string(Store.interchangeFormat) = try reader.readValue() else {
            throw InterchangeError.invalidStructure(reason: "\"format\" must be \"\(Store.interchangeFormat)\"", at: formatStart)
        }
        try expectKey("version")
        let versionStart = try reader.positionOfNext()
        let version = try reader.readUnsigned("\"version\"")
        guard version == Store.interchangeVersion else {
            throw InterchangeError.invalidStructure(
                reason: "interchange version \(version) is not supported (this Larder reads \(Store.interchangeVersion))", at: versionStart)
        }
        try expectKey("classes")
        try readClasses()
        try visitor.classes(classes.values.sorted { $0.classID < $1.classID })
        try expectKey("objects")
        try reader.beginArray()
        var end = try reader.positionOfNext()
        while try reader.nextElement() {
            try readObject(visitor)
            end = try reader.positionOfNext()
        }
        for registered in classes.values.sorted(by: { $0.classID < $1.classID }) {
            let found = progress[registered.name]?.count ?? 0
            guard found == registered.objectCount else {
                throw InterchangeError.missingObjects(class: registered.name, expected: registered.objectCount, found: found, at: end)
            }
        }
        try expectKey("namedBuffers")
        try readNamedBuffers(visitor)
        let closing = try reader.positionOfNext()
        guard try reader.nextKey() == nil else {
            throw InterchangeError.invalidStructure(reason: "unexpected key after \"namedBuffers\"", at: closing)
        }
        try reader.finish()
    }

    // MARK: Parts

    private mutating func readClasses() throws {
        var ids: Set<UInt64> = []
        try reader.beginArray()
        while try reader.nextElement() {
            let start = try reader.positionOfNext()
            let value = try reader.readValue()
            guard case let .object(members) = value,
                  [Self.classKeys, Self.classKeys + ["fields"]].contains(members.map(\.key)),
                  case let .string(name)? = value["name"],
                  let classID = Self.unsigned(value["classID"]), let version = Self.unsigned(value["version"]),
                  version <= UInt64(UInt8.max), let nextRowID = Self.unsigned(value["nextRowID"]),
                  case let .array(rangeValues)? = value["deletedRowIDs"] else {
                throw InterchangeError.invalidStructure(
                    reason: "a class is {\"name\", \"classID\", \"version\" (0-255), \"nextRowID\", \"deletedRowIDs\"} and may have \"fields\"",
                    at: start)
            }
            var schema: StoredModelSchema?
            if let fields = value["fields"] {
                guard let fieldSchema = StoredModelSchema(fields) else {
                    throw InterchangeError.invalidStructure(
                        reason: "class \(name): \"fields\" is an array of {\"name\", \"tag\", \"type\"}", at: start)
                }
                do {
                    try fieldSchema.validate()
                } catch {
                    throw InterchangeError.invalidStructure(reason: "class \(name): \(error)", at: start)
                }
                schema = fieldSchema
            }
            var ranges: [ClosedRange<UInt64>] = []
            for rangeValue in rangeValues {
                guard case let .array(bounds) = rangeValue, bounds.count == 2, let first = Self.unsigned(bounds[0]),
                      let last = Self.unsigned(bounds[1]), first >= 1, first <= last, last < nextRowID else {
                    throw InterchangeError.invalidStructure(
                        reason: "class \(name): deleted rowIDs are [first, last] pairs from 1 to below nextRowID", at: start)
                }
                ranges.append(first ... last)
            }
            guard Store.isValidStorageName(name) else {
                throw InterchangeError.invalidStructure(reason: "\(name) is not a valid storage name", at: start)
            }
            guard var registered = RegistryEntry(name: name, classID: classID, version: UInt8(version), nextRowID: nextRowID,
                                                   deletedRowIDs: ranges) else {
                throw InterchangeError.invalidStructure(
                    reason: "class \(name): classID and nextRowID start at 1, deleted rowIDs ascend without overlapping", at: start)
            }
            guard classes[name] == nil, ids.insert(classID).inserted else {
                throw InterchangeError.invalidStructure(reason: "class \(name) or class ID \(classID) is declared twice", at: start)
            }
            registered.schema = schema
            classes[name] = registered
        }
    }

    /// The keys of a class entry, in their order; `"fields"` may follow.
    private static let classKeys = ["name", "classID", "version", "nextRowID", "deletedRowIDs"]

    private mutating func readObject(_ visitor: Visitor) throws {
        let start = try reader.positionOfNext()
        try reader.beginObject()
        var className: (String, TextPosition)?
        var rowID: (UInt64, TextPosition)?
        var version: UInt8?
        var bytes: ([UInt8], TextPosition)?
        var fields: ([JSONTextValue.Member], TextPosition)?
        var seen: Set<String> = []
        while let key = try reader.nextKey() {
            let valueStart = try reader.positionOfNext()
            guard seen.insert(key).inserted else { throw InterchangeError.invalidStructure(reason: "\"\(key)\" appears twice", at: valueStart) }
            switch key {
            case "class":
                guard case let .string(name) = try reader.readValue() else {
                    throw InterchangeError.invalidStructure(reason: "\"class\" must be a string", at: valueStart)
                }
                className = (name, valueStart)
            case "rowID":
                rowID = (try reader.readUnsigned("\"rowID\""), valueStart)
            case "version":
                let number = try reader.readUnsigned("\"version\"")
                guard number <= UInt64(UInt8.max) else {
                    throw InterchangeError.invalidStructure(reason: "\"version\" must be from 0 to 255", at: valueStart)
                }
                version = UInt8(number)
            case "bytes":
                bytes = (try readBase64(), valueStart)
            case "fields":
                guard case let .object(members) = try reader.readValue() else {
                    throw InterchangeError.invalidStructure(reason: "\"fields\" must be an object", at: valueStart)
                }
                fields = (members, valueStart)
            default:
                throw InterchangeError.invalidStructure(reason: "an object has no key \"\(key)\"", at: valueStart)
            }
        }
        guard let (name, namePosition) = className, let (rowID, rowIDPosition) = rowID, let version,
              (bytes == nil) != (fields == nil) else {
            throw InterchangeError.invalidStructure(
                reason: "an object has \"class\", \"rowID\", \"version\" and either \"bytes\" or \"fields\"", at: start)
        }
        guard let registered = classes[name] else { throw InterchangeError.unknownClass(name, at: namePosition) }
        let last = progress[name] ?? (0, 0)
        guard rowID > last.lastRowID else { throw InterchangeError.duplicateRowID(class: name, rowID: rowID, at: rowIDPosition) }
        guard registered.holds(rowID) else { throw InterchangeError.rowIDOutsideRegistry(class: name, rowID: rowID, at: rowIDPosition) }
        progress[name] = (rowID, last.count + 1)
        let content: [UInt8]
        if let (bytes, _) = bytes {
            content = bytes
        } else if let (members, fieldsPosition) = fields {
            content = try self.content(of: members, of: registered, version: version, at: fieldsPosition)
        } else {
            content = []
        }
        try visitor.object(registered, Store.RawRecord(rowID: rowID, version: version, content: content))
    }

    /// The content bytes of an object's named fields, through its class's field coder; every
    /// reference checked against the file's classes.
    private mutating func content(of members: [JSONTextValue.Member], of registered: RegistryEntry, version: UInt8,
                                  at position: TextPosition) throws -> [UInt8] {
        let className = registered.name
        let coder: ClassFieldCoder?
        if let known = coders[className] {
            coder = known
        } else {
            coder = try self.coder(registered)
            coders[className] = coder
        }
        guard let coder else { throw InterchangeError.noFieldSchema(class: className, at: position) }
        var fields: [InterchangeField] = []
        var names: Set<String> = []
        for member in members {
            guard names.insert(member.key).inserted, let value = StoredFieldValue(member.value) else {
                throw InterchangeError.invalidStructure(
                    reason: "field \"\(member.key)\" appears twice or is an object that is none of $data, $date, $ref, $double",
                    at: position)
            }
            try value.forEachReference { target, rowID in
                guard let targetClass = classes[target] else { throw InterchangeError.unknownClass(target, at: position) }
                guard targetClass.holds(rowID) else { throw InterchangeError.danglingReference(class: target, rowID: rowID, at: position) }
            }
            fields.append(InterchangeField(name: member.key, value: value))
        }
        do {
            return try coder.content(fields, version)
        } catch {
            throw InterchangeError.invalidStructure(reason: "fields of \(className): \(error)", at: position)
        }
    }

    private mutating func readNamedBuffers(_ visitor: Visitor) throws {
        var previous: String?
        try reader.beginArray()
        while try reader.nextElement() {
            try reader.beginObject()
            try expectKey("name")
            let nameStart = try reader.positionOfNext()
            let name = try reader.readString()
            guard !name.isEmpty else { throw InterchangeError.invalidStructure(reason: "a named buffer's name is empty", at: nameStart) }
            if let previous, !(previous < name) {
                throw InterchangeError.invalidStructure(reason: "named buffer \(name) is repeated or out of order", at: nameStart)
            }
            previous = name
            try expectKey("version")
            let versionStart = try reader.positionOfNext()
            let version = try reader.readUnsigned("\"version\"")
            guard version <= UInt64(UInt8.max) else {
                throw InterchangeError.invalidStructure(reason: "\"version\" must be from 0 to 255", at: versionStart)
            }
            try expectKey("bytes")
            let bytes = try readBase64()
            let end = try reader.positionOfNext()
            guard try reader.nextKey() == nil else {
                throw InterchangeError.invalidStructure(reason: "a named buffer is {\"name\", \"version\", \"bytes\"}", at: end)
            }
            try visitor.namedBuffer(name, DataBuffer(bytes: bytes, versionOfData: UInt8(version)))
        }
    }

    // MARK: Helpers

    private mutating func expectKey(_ expected: String) throws {
        let start = try reader.positionOfNext()
        guard try reader.nextKey() == expected else {
            throw InterchangeError.invalidStructure(reason: "expected the key \"\(expected)\"", at: start)
        }
    }

    private mutating func readBase64() throws -> [UInt8] {
        let start = try reader.positionOfNext()
        guard case let .string(text) = try reader.readValue(), let data = Data(base64Encoded: text) else {
            throw InterchangeError.invalidStructure(reason: "\"bytes\" must be a base64 string", at: start)
        }
        return Array(data)
    }

    private static func unsigned(_ value: JSONTextValue?) -> UInt64? {
        switch value {
        case let .integer(number)? where number >= 0: UInt64(number)
        case let .unsignedInteger(number)?: number
        default: nil
        }
    }
}
