// StoredFieldValue+JSON: the JSON form of a named field's value (docs/INTERCHANGE.md, "Named
// fields"). JSON's own kinds stand for themselves; the kinds JSON lacks are objects with one
// `$`-key: `{"$data": base64}`, `{"$date": seconds}`, `{"$ref": {"class": name, "rowID": n}}`,
// and `{"$double": "nan" | "inf" | "-inf"}` for doubles JSON cannot write.

import Foundation

extension StoredFieldValue {
    /// Writes the value's JSON form.
    package func write(to writer: inout JSONTextWriter) {
        switch self {
        case let .bool(flag): flag ? writer.raw("true") : writer.raw("false")
        case let .integer(number): writer.integer(number)
        case let .unsignedInteger(number): writer.unsigned(number)
        case let .double(number):
            guard number.isFinite else {
                writer.raw(#"{"$double":"#)
                writer.string(number.isNaN ? "nan" : number < 0 ? "-inf" : "inf")
                return writer.raw("}")
            }
            writer.double(number)
        case let .string(text): writer.string(text)
        case let .data(bytes):
            writer.raw(#"{"$data":"#)
            writer.string(Data(bytes).base64EncodedString())
            writer.raw("}")
        case let .date(seconds):
            writer.raw(#"{"$date":"#)
            writer.double(seconds)
            writer.raw("}")
        case let .reference(className, rowID):
            writer.raw(#"{"$ref":{"class":"#)
            writer.string(className)
            writer.raw(#","rowID":"#)
            writer.unsigned(rowID)
            writer.raw("}}")
        case let .array(elements):
            writer.raw("[")
            for (position, element) in elements.enumerated() {
                if position > 0 { writer.raw(",") }
                element.write(to: &writer)
            }
            writer.raw("]")
        case .null: writer.raw("null")
        }
    }

    /// The value a parsed JSON value stands for; nil when it is an object that is none of the
    /// `$` forms (or a malformed one).
    init?(_ json: JSONTextValue) {
        switch json {
        case .null: self = .null
        case let .bool(flag): self = .bool(flag)
        case let .integer(number): self = .integer(number)
        case let .unsignedInteger(number): self = .unsignedInteger(number)
        case let .double(number): self = .double(number)
        case let .string(text): self = .string(text)
        case let .array(elements):
            var values: [StoredFieldValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = StoredFieldValue(element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let .object(members):
            guard members.count == 1, let member = members.first else { return nil }
            switch (member.key, member.value) {
            case let ("$data", .string(text)):
                guard let data = Data(base64Encoded: text) else { return nil }
                self = .data(Array(data))
            case let ("$date", .double(seconds)): self = .date(seconds)
            case let ("$date", .integer(seconds)): self = .date(Double(seconds))
            case let ("$double", .string(text)):
                switch text {
                case "nan": self = .double(.nan)
                case "inf": self = .double(.infinity)
                case "-inf": self = .double(-.infinity)
                default: return nil
                }
            case let ("$ref", reference):
                guard case let .object(parts) = reference, parts.count == 2, case let .string(className)? = reference["class"]
                else { return nil }
                switch reference["rowID"] {
                case let .integer(rowID)? where rowID >= 1: self = .reference(className: className, rowID: UInt64(rowID))
                case let .unsignedInteger(rowID)?: self = .reference(className: className, rowID: rowID)
                default: return nil
                }
            default: return nil
            }
        }
    }

    /// Calls `body` with every reference in the value.
    func forEachReference(_ body: (String, UInt64) throws -> Void) rethrows {
        switch self {
        case let .reference(className, rowID): try body(className, rowID)
        case let .array(elements): for element in elements { try element.forEachReference(body) }
        default: break
        }
    }
}
