// StoredFieldType: the kinds of value a field of a @StoredModel class holds, as its schema in the
// store's registry names them. docs/FORMAT.md section 21 has their encodings.

/// The kind of value a field of a `@StoredModel` class holds.
///
/// A schema (``StoredModelSchema``) names each field's type with one of these, so that a tool
/// can decode a record without the Swift class. Class names are storage names
/// (``StoredObject/storageName``).
///
/// ```swift
/// let seconds = StoredFieldType.int(bits: 32, signed: false)     // UInt32
/// let songs = StoredFieldType.array(.reference(className: "Song"))  // [Song]
/// let rating = StoredFieldType.optional(.int(bits: 64, signed: true)) // Int?
/// ```
public indirect enum StoredFieldType: Sendable, Equatable {
    /// `Bool`.
    case bool
    /// A fixed-width integer: `Int`/`UInt` are 64 bits.
    case int(bits: Int, signed: Bool)
    /// `Double`.
    case double
    /// `Float`.
    case float
    /// `String`.
    case string
    /// `Data`.
    case data
    /// `Date`.
    case date
    /// An optional reference to an object of the class stored as `className` (a Swift
    /// `Album?`); a nil reference is stored as rowID 0.
    case reference(className: String)
    /// An array: of a scalar type, or of references (an ordered relationship, `[Song]`).
    case array(StoredFieldType)
    /// An optional scalar (`Int?`, `String?`, `Date?`, …).
    case optional(StoredFieldType)

    /// Whether the type is a scalar: neither a reference, an array nor an optional.
    ///
    /// ```swift
    /// StoredFieldType.string.isScalar   // true
    /// ```
    public var isScalar: Bool {
        switch self {
        case .bool, .int, .double, .float, .string, .data, .date: return true
        case .reference, .array, .optional: return false
        }
    }

    /// Whether a `@StoredModel` class can have a field of this type: a scalar (integers of 8,
    /// 16, 32 or 64 bits), a reference, an array of scalars or references, an optional scalar.
    ///
    /// ```swift
    /// StoredFieldType.optional(.array(.bool)).isSupported   // false
    /// ```
    public var isSupported: Bool {
        switch self {
        case let .int(bits, _): return [8, 16, 32, 64].contains(bits)
        case .bool, .double, .float, .string, .data, .date, .reference: return true
        case let .array(element): return element.isSupported && (element.isScalar || element.isReference)
        case let .optional(wrapped): return wrapped.isSupported && wrapped.isScalar
        }
    }

    private var isReference: Bool {
        if case .reference = self { return true }
        return false
    }

    /// How a present value of the type is laid out after its field key.
    internal var wire: StoredFieldWire {
        switch self {
        case .bool: return .byte
        case let .int(bits, _):
            switch bits {
            case 8: return .byte
            case 16: return .fixed16
            case 32: return .fixed32
            default: return .fixed64
            }
        case .float: return .fixed32
        case .double, .date: return .fixed64
        case .string, .data: return .bytes
        case .reference: return .varint
        case .array: return .sequence
        case let .optional(wrapped): return wrapped.wire
        }
    }
}
