// What @StoredModel reports at compile time, and the fix-its it offers.

import SwiftDiagnostics

enum StoredModelDiagnostic: DiagnosticMessage {
    case notAClass
    case noSuperclass
    case letProperty(String)
    case lazyProperty(String)
    case severalBindings
    case notAnIdentifier
    case otherWrapper(property: String, wrapper: String)
    case missingDefault(String)
    case cannotInferType(String)
    case unsupportedType(property: String, type: String)
    case nonOptionalReference(property: String, type: String)
    case nestedType(property: String, type: String)
    case tagCollision(property: String, other: String)

    var message: String {
        switch self {
        case .notAClass:
            return "@StoredModel applies to a class that inherits from StoredObject"
        case .noSuperclass:
            return "a @StoredModel class must inherit from StoredObject"
        case let .letProperty(name):
            return "'\(name)' is a 'let': @StoredModel stores 'var' properties (mark it @NotStored to keep it out of the records)"
        case let .lazyProperty(name):
            return "'\(name)' is 'lazy': @StoredModel cannot store a lazy property (mark it @NotStored to keep it out of the records)"
        case .severalBindings:
            return "@StoredModel needs one property per 'var' declaration"
        case .notAnIdentifier:
            return "@StoredModel cannot store a property declared with a pattern"
        case let .otherWrapper(name, wrapper):
            return "'\(name)' has the attribute @\(wrapper): a @StoredModel property gets @Stored and no other wrapper"
        case let .missingDefault(name):
            return "'\(name)' needs a default value: a record without the field reads as the default"
        case let .cannotInferType(name):
            return "'\(name)' needs a type annotation: @StoredModel cannot tell its type from its initial value"
        case let .unsupportedType(name, type):
            return "'\(name)' has type '\(type)', which @StoredModel cannot store: use Bool, an integer, Double, Float, String, Data, Date, an optional of one, an array of one, an optional reference to a StoredObject subclass or an array of them"
        case let .nonOptionalReference(name, type):
            return "'\(name)' has type '\(type)': @StoredModel stores Bool, integers, Double, Float, String, Data and Date, and references to StoredObject subclasses, which must be optional"
        case let .nestedType(name, type):
            return "'\(name)' has type '\(type)': @StoredModel stores optionals and arrays of scalars or of references, not nested ones"
        case let .tagCollision(name, other):
            return "'\(name)' and '\(other)' have the same field tag (a hash of the name): rename one of them"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .noSuperclass: id = "noSuperclass"
        case .letProperty: id = "letProperty"
        case .lazyProperty: id = "lazyProperty"
        case .severalBindings: id = "severalBindings"
        case .notAnIdentifier: id = "notAnIdentifier"
        case .otherWrapper: id = "otherWrapper"
        case .missingDefault: id = "missingDefault"
        case .cannotInferType: id = "cannotInferType"
        case .unsupportedType: id = "unsupportedType"
        case .nonOptionalReference: id = "nonOptionalReference"
        case .nestedType: id = "nestedType"
        case .tagCollision: id = "tagCollision"
        }
        return MessageID(domain: "LarderModel", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The label of a fix-it @StoredModel offers.
struct StoredModelFixIt: FixItMessage {
    let message: String

    var fixItID: MessageID { MessageID(domain: "LarderModel", id: message) }

    static let useVar = StoredModelFixIt(message: "Replace 'let' with 'var'")
    static let inheritStoredObject = StoredModelFixIt(message: "Inherit from StoredObject")
    static let makeOptional = StoredModelFixIt(message: "Make it an optional reference")
    static func addDefault(_ value: String) -> StoredModelFixIt { StoredModelFixIt(message: "Add the default value '\(value)'") }
}
