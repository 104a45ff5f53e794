// JSONTextValue: a JSON value as the interchange reader parses it and its writer writes it.
// Numbers keep their kind (an integer, one beyond Int64, or a double), object members their
// order, so a value read and written again is the same text. The object interchange reads one
// object's fields into one; the documents' JSON Lines read each line into one.

/// A parsed JSON value, its members in the order of the text.
package indirect enum JSONTextValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits an Int64.
    case integer(Int64)
    /// A number written without fraction or exponent, above Int64.max, that fits a UInt64.
    case unsignedInteger(UInt64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONTextValue])
    case object([Member])

    /// One member of an object.
    package struct Member: Equatable, Sendable {
        package var key: String
        package var value: JSONTextValue

        package init(key: String, value: JSONTextValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of the first member named `key` of an object; nil for a missing key or a
    /// value that is not an object.
    package subscript(key: String) -> JSONTextValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}
