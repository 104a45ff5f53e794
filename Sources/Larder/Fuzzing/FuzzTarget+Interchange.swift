// The interchange reader's fuzz target: the bytes of an interchange file (docs/INTERCHANGE.md)
// imported into an empty store in memory, with a field coder for one class so that named fields
// and references are read too. An import succeeds or throws; one that throws leaves the store
// empty; one that succeeds exports a file that imports into another empty store and exports the
// same bytes again.

extension FuzzTarget {
    /// An interchange file (docs/INTERCHANGE.md).
    package static let interchange = FuzzTarget(name: "interchange", seeds: interchangeSeeds) { input throws(FuzzViolation) in
        guard let store = try? Store(backend: MemoryBackend()) else { throw FuzzViolation("an empty store does not open") }
        store.interchangeFields = NoteFields()
        do {
            // Small batches, so that the import's series of batches is reached too.
            try store.importInterchange(reading: { JSONTextReader(bytes: input) }, batchRecords: 3)
        } catch {
            let classes = (try? store.registryEntries()) ?? []
            let names = (try? store.dataBufferNames()) ?? ["?"]
            try FuzzViolation.check(classes.isEmpty && names.isEmpty, "a refused import (\(error)) left \(classes) and \(names)")
            return false
        }
        let exported = try exportText(of: store)
        guard let again = try? Store(backend: MemoryBackend()) else { throw FuzzViolation("an empty store does not open") }
        again.interchangeFields = NoteFields()
        do {
            try again.importInterchange(reading: { JSONTextReader(bytes: exported) })
        } catch {
            throw FuzzViolation("an export does not import: \(error)")
        }
        try FuzzViolation.check(try exportText(of: again) == exported, "an export imported and exported again differs")
        return true
    }

    private static func exportText(of store: Store) throws(FuzzViolation) -> [UInt8] {
        var writer = JSONTextWriter()
        do {
            try store.exportInterchange(into: &writer)
        } catch {
            throw FuzzViolation("an imported store does not export: \(error)")
        }
        return writer.bytes
    }

    @Sendable private static func interchangeSeeds() -> [[UInt8]] {
        [#"""
        {"format":"larder-interchange","version":1,
        "classes":[
        {"name":"Song","classID":1,"version":1,"nextRowID":5,"deletedRowIDs":[[2,3]]},
        {"name":"Note","classID":3,"version":2,"nextRowID":3,"deletedRowIDs":[]}
        ],
        "objects":[
        {"class":"Song","rowID":1,"version":1,"bytes":"B1NvIFdoYXQsAQAA"},
        {"class":"Song","rowID":4,"version":0,"bytes":""},
        {"class":"Note","rowID":1,"version":2,"fields":{"text":"caf\u00e9 \"\n","about":{"$ref":{"class":"Song","rowID":4}}}},
        {"class":"Note","rowID":2,"version":2,"fields":{"text":"","about":null}}
        ],
        "namedBuffers":[
        {"name":"current","version":1,"bytes":"AQ=="},
        {"name":"empty","version":7,"bytes":""}
        ]}

        """#,
         #"{"format":"larder-interchange","version":1,"classes":[],"objects":[],"namedBuffers":[]}"#,
         #"""
         {"format":"larder-interchange","version":1,"classes":[{"name":"Blob","classID":9,"version":255,"nextRowID":4,"deletedRowIDs":[[1,1]]}],
         "objects":[{"rowID":2,"bytes":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8=","class":"Blob","version":1},
         {"class":"Blob","rowID":3,"version":1,"bytes":"/w=="}],"namedBuffers":[{"name":"\u65e5","version":0,"bytes":"3q2+7w=="}]}
         """#].map { Array($0.utf8) }
    }
}

/// The field coder the fuzz target imports with: class Note, a text then a reference to a Song.
private struct NoteFields: InterchangeFieldCoding {
    private struct MissingText: Error {}

    func coder(for registered: RegistryEntry, in store: Store) throws -> ClassFieldCoder? {
        guard registered.name == "Note" else { return nil }
        return ClassFieldCoder(fields: { content, version in
            var buffer = DataBuffer(bytes: content, versionOfData: version)
            let text = try buffer.readString()
            let about = try buffer.readVarInt()
            return [InterchangeField(name: "text", value: .string(text)),
                    InterchangeField(name: "about", value: about == 0 ? .null : .reference(className: "Song", rowID: about))]
        }, content: { fields, _ in
            guard case let .string(text)? = fields.first(where: { $0.name == "text" })?.value else { throw MissingText() }
            var buffer = DataBuffer()
            buffer.write(text)
            if case let .reference(_, rowID)? = fields.first(where: { $0.name == "about" })?.value {
                buffer.writeVarInt(rowID)
            } else {
                buffer.writeVarInt(0)
            }
            return buffer.bytes
        })
    }
}
