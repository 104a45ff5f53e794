// The @StoredModel fuzz targets: a schema record of `_store` (`schema/<Class>`), and a tagged
// record's content read by the schemaless decoder, as a damaged or hostile file holds them.
// Each decodes or throws; what decodes encodes to bytes that decode the same.

extension FuzzTarget {
    /// A schema record's content.
    package static let storedModelSchema = FuzzTarget(name: "storedModelSchema", seeds: storedModelSchemaSeeds) { input throws(FuzzViolation) in
        var buffer = DataBuffer(bytes: input)
        guard let schema = try? StoredModelSchema(decoding: &buffer) else { return false }
        var encoded = schema.encoded()
        let again = try? StoredModelSchema(decoding: &encoded)
        try FuzzViolation.check(again == schema, "a schema does not survive encoding: \(schema)")
        return true
    }

    /// A tagged record's content, decoded with a schema of every supported kind of field.
    package static let storedModelContent = FuzzTarget(name: "storedModelContent", seeds: storedModelContentSeeds) { input throws(FuzzViolation) in
        let schema = fuzzedSchema
        guard let values = try? schema.decodeContent(input) else { return false }
        let encoded: [UInt8]
        do {
            encoded = try schema.encodeContent(values)
        } catch {
            throw FuzzViolation("decoded values do not encode: \(error)")
        }
        let again = try? schema.decodeContent(encoded)
        try FuzzViolation.check(again.map { same($0, values) } == true, "decoded values do not survive encoding: \(values)")
        return true
    }

    /// A schema with a field of each supported kind.
    private static let fuzzedSchema = StoredModelSchema(fields: [
        StoredField(name: "flag", type: .bool),
        StoredField(name: "small", type: .int(bits: 8, signed: true)),
        StoredField(name: "year", type: .int(bits: 16, signed: false)),
        StoredField(name: "seconds", type: .int(bits: 32, signed: false)),
        StoredField(name: "count", type: .int(bits: 64, signed: true)),
        StoredField(name: "ratio", type: .float),
        StoredField(name: "gain", type: .double),
        StoredField(name: "title", type: .string),
        StoredField(name: "artwork", type: .data),
        StoredField(name: "added", type: .date),
        StoredField(name: "album", type: .reference(className: "Album")),
        StoredField(name: "tags", type: .array(.string)),
        StoredField(name: "songs", type: .array(.reference(className: "Song"))),
        StoredField(name: "rating", type: .optional(.int(bits: 64, signed: true))),
    ])

    /// Equal values, NaN equal to NaN (a float read back is the same bits, not an equal number).
    private static func same(_ left: [String: StoredFieldValue], _ right: [String: StoredFieldValue]) -> Bool {
        left.keys == right.keys && left.allSatisfy { name, value in right[name].map { same(value, $0) } ?? false }
    }

    private static func same(_ left: StoredFieldValue, _ right: StoredFieldValue) -> Bool {
        switch (left, right) {
        case let (.double(a), .double(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.date(a), .date(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.array(a), .array(b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        default: return left == right
        }
    }

    @Sendable private static func storedModelSchemaSeeds() -> [[UInt8]] {
        [StoredModelSchema(fields: []).encoded().bytes, fuzzedSchema.encoded().bytes]
    }

    @Sendable private static func storedModelContentSeeds() -> [[UInt8]] {
        let full: [String: StoredFieldValue] = [
            "flag": .bool(true), "small": .integer(-3), "year": .unsignedInteger(1959), "seconds": .unsignedInteger(562),
            "count": .integer(1 << 40), "ratio": .double(0.5), "gain": .double(-1.25), "title": .string("So What"),
            "artwork": .data([1, 2, 3]), "added": .date(1_000_000), "album": .reference(className: "Album", rowID: 300),
            "tags": .array([.string("modal"), .string("")]),
            "songs": .array([.reference(className: "Song", rowID: 1), .reference(className: "Song", rowID: 200)]),
            "rating": .null,
        ]
        return [[], (try? fuzzedSchema.encodeContent(full)) ?? [],
                (try? fuzzedSchema.encodeContent(["rating": .integer(5), "title": .string("é")])) ?? []]
    }
}
