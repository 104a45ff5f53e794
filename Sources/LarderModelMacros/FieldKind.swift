// FieldKind: what a stored property's type is to @StoredModel, read from its type syntax, and
// the code that writes, reads and describes a field of that kind.

import SwiftSyntax

enum FieldKind {
    case scalar(ScalarType)
    case optional(ScalarType)
    /// An optional reference to a StoredObject subclass, named as written.
    case reference(String)
    case scalarArray(ScalarType)
    /// An ordered relationship: `[Song]`.
    case referenceArray(String)

    /// Why a type cannot be stored.
    enum Failure: Error {
        /// Neither a scalar nor an optional reference (perhaps a reference left non-optional).
        case unsupported(type: String, couldBeReference: Bool)
        case nested(type: String)
    }

    /// The kind of a property declared with `type`.
    static func of(_ type: TypeSyntax) throws(Failure) -> FieldKind {
        if let wrapped = optionalWrapped(type) {
            if let scalar = scalar(wrapped) { return .optional(scalar) }
            guard let name = typeName(wrapped) else { throw .nested(type: type.trimmedDescription) }
            return .reference(name)
        }
        if let element = arrayElement(type) {
            if let scalar = scalar(element) { return .scalarArray(scalar) }
            guard let name = typeName(element) else { throw .nested(type: type.trimmedDescription) }
            return .referenceArray(name)
        }
        if let scalar = scalar(type) { return .scalar(scalar) }
        throw .unsupported(type: type.trimmedDescription, couldBeReference: typeName(type) != nil)
    }

    /// The layout of a present value.
    var wire: FieldTag.Wire {
        switch self {
        case let .scalar(scalar), let .optional(scalar): return scalar.wire
        case .reference: return .varint
        case .scalarArray, .referenceArray: return .sequence
        }
    }

    /// The StoredFieldType, as an expression.
    var schemaType: String {
        switch self {
        case let .scalar(scalar): return scalar.schemaType
        case let .optional(scalar): return ".optional(\(scalar.schemaType))"
        case let .reference(name): return ".reference(className: \(name).storageName)"
        case let .scalarArray(scalar): return ".array(\(scalar.schemaType))"
        case let .referenceArray(name): return ".array(.reference(className: \(name).storageName))"
        }
    }

    /// Statements writing `property` (an expression) after its key.
    func writeStatements(_ property: String, tag: UInt32) -> [String] {
        let key = FieldTag.keyLiteral(tag: tag, wire: wire)
        switch self {
        case .scalar:
            return ["buffer.writeField(\(key), \(property))"]
        case .optional:
            let null = FieldTag.keyLiteral(tag: tag, wire: .null)
            return ["if let value = \(property) { buffer.writeField(\(key), value) } else { buffer.writeFieldKey(\(null)) }"]
        case .reference:
            return ["buffer.writeFieldKey(\(key))", "buffer.writeReference(\(property))"]
        case .scalarArray:
            return ["buffer.writeFieldKey(\(key))", "buffer.writeSequence(\(property)) { $0.write($1) }"]
        case .referenceArray:
            return ["buffer.writeFieldKey(\(key))", "buffer.writeReferenceSequence(\(property))"]
        }
    }

    /// The `case`s of the reader's switch for `property`.
    func readCases(_ property: String, tag: UInt32) -> [String] {
        let key = FieldTag.keyLiteral(tag: tag, wire: wire)
        switch self {
        case let .scalar(scalar):
            return ["case \(key): \(property) = try buffer.\(scalar.reader)()"]
        case let .optional(scalar):
            let null = FieldTag.keyLiteral(tag: tag, wire: .null)
            return ["case \(key): \(property) = try buffer.\(scalar.reader)()", "case \(null): \(property) = nil"]
        case let .reference(name):
            return ["case \(key): \(property) = try buffer.readReference(to: \(name).self, in: store)"]
        case let .scalarArray(scalar):
            return ["case \(key): \(property) = try buffer.readSequence { try $0.\(scalar.reader)() }"]
        case let .referenceArray(name):
            return ["case \(key): \(property) = try buffer.readReferenceSequence(to: \(name).self, in: store)"]
        }
    }

    // MARK: Reading type syntax

    private static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let generic = genericArgument(of: type, named: "Optional") { return generic }
        return nil
    }

    private static func arrayElement(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        return genericArgument(of: type, named: "Array")
    }

    /// `T` in `Name<T>` or `Swift.Name<T>`.
    private static func genericArgument(of type: TypeSyntax, named name: String) -> TypeSyntax? {
        let arguments: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            arguments = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
                  member.baseType.trimmedDescription == "Swift" {
            arguments = member.genericArgumentClause
        } else {
            return nil
        }
        guard let arguments, arguments.arguments.count == 1, let first = arguments.arguments.first else { return nil }
        return TypeSyntax(first.argument)
    }

    /// The scalar `type` names (`Int`, `Swift.Int`, `Foundation.Date`), or nil.
    private static func scalar(_ type: TypeSyntax) -> ScalarType? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return ScalarType.all[identifier.name.text]
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil,
           ["Swift", "Foundation"].contains(member.baseType.trimmedDescription) {
            return ScalarType.all[member.name.text]
        }
        return nil
    }

    /// The name of a plain named type (`Album`, `Music.Album`) that may be a StoredObject
    /// subclass; nil for generics, optionals, arrays, tuples, functions and the like.
    private static func typeName(_ type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil,
           !["Optional", "Array", "Dictionary", "Set", "Any", "AnyObject"].contains(identifier.name.text) {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil, typeName(member.baseType) != nil {
            return member.trimmedDescription
        }
        return nil
    }
}
