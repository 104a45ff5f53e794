// StoredProperty: a `var` of a @StoredModel class that it stores, read from its declaration;
// what cannot be stored becomes a diagnostic instead.

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

struct StoredProperty {
    /// The name as written (with backticks if any), for code.
    let identifier: String
    /// The name without backticks: the field's name in records and schemas.
    let name: String
    let kind: FieldKind
    let tag: UInt32
    /// The declaration, for diagnostics.
    let node: Syntax

    /// What a member of the class is to @StoredModel.
    enum Member {
        /// Not a field: a method, a computed, static or @NotStored property…
        case ignored
        case stored(StoredProperty)
        /// A property the macro cannot store: its diagnostics.
        case invalid([Diagnostic])
    }

    /// Reads `member`.
    static func read(_ member: some SyntaxProtocol) -> Member {
        guard let variable = member.as(VariableDeclSyntax.self) else { return .ignored }
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if !modifiers.isDisjoint(with: ["static", "class"]) || variable.hasAttribute(named: "NotStored") { return .ignored }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            if variable.bindings.allSatisfy(\.isComputed) { return .ignored }
            return .invalid([Diagnostic(node: variable, message: StoredModelDiagnostic.severalBindings)])
        }
        if binding.isComputed { return .ignored }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
            return .invalid([Diagnostic(node: binding.pattern, message: StoredModelDiagnostic.notAnIdentifier)])
        }
        let identifier = pattern.identifier.text
        let name = identifier.filter { $0 != "`" }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            let fixIt = FixIt(message: StoredModelFixIt.useVar, changes: [
                .replace(oldNode: Syntax(variable.bindingSpecifier),
                         newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))),
            ])
            return .invalid([Diagnostic(node: variable.bindingSpecifier, message: StoredModelDiagnostic.letProperty(name), fixIts: [fixIt])])
        }
        if modifiers.contains("lazy") {
            return .invalid([Diagnostic(node: variable, message: StoredModelDiagnostic.lazyProperty(name))])
        }
        for attribute in variable.attributes {
            guard case let .attribute(attribute) = attribute else { continue }
            let wrapper = attribute.attributeName.trimmedDescription
            if wrapper != "Stored" && wrapper != "Larder.Stored" {
                return .invalid([Diagnostic(node: attribute, message: StoredModelDiagnostic.otherWrapper(property: name, wrapper: wrapper))])
            }
        }
        let kind: FieldKind
        do {
            kind = try binding.fieldKind(name: name)
        } catch {
            return .invalid([error.diagnostic])
        }
        if binding.initializer == nil, let fixIt = binding.defaultValueFixIt(for: kind) {
            return .invalid([Diagnostic(node: binding, message: StoredModelDiagnostic.missingDefault(name), fixIts: [fixIt])])
        }
        return .stored(StoredProperty(identifier: identifier, name: name, kind: kind, tag: FieldTag.tag(forName: name),
                                      node: Syntax(variable)))
    }
}

/// A diagnostic thrown while reading a property.
struct PropertyFailure: Error {
    let diagnostic: Diagnostic
}

extension VariableDeclSyntax {
    func hasAttribute(named name: String) -> Bool {
        attributes.contains { element in
            guard case let .attribute(attribute) = element else { return false }
            let written = attribute.attributeName.trimmedDescription
            return written == name || written == "LarderModel." + name || written == "Larder." + name
        }
    }
}

extension PatternBindingSyntax {
    /// Whether the binding is computed (a getter), not stored (observers are stored).
    var isComputed: Bool {
        guard let accessorBlock else { return false }
        switch accessorBlock.accessors {
        case .getter: return true
        case let .accessors(list):
            return list.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    /// The kind of the field, from the annotation or else the initial value.
    func fieldKind(name: String) throws(PropertyFailure) -> FieldKind {
        let type: TypeSyntax
        if let annotation = typeAnnotation?.type {
            type = annotation
        } else if let inferred = initializer.flatMap({ Self.inferredType(of: $0.value) }) {
            type = TypeSyntax(IdentifierTypeSyntax(name: .identifier(inferred)))
        } else {
            throw PropertyFailure(diagnostic: Diagnostic(node: Syntax(self), message: StoredModelDiagnostic.cannotInferType(name)))
        }
        let failure: FieldKind.Failure
        do {
            return try FieldKind.of(type)
        } catch {
            failure = error
        }
        switch failure {
        case let .unsupported(written, couldBeReference):
            guard couldBeReference, let annotation = typeAnnotation?.type else {
                throw PropertyFailure(diagnostic: Diagnostic(node: Syntax(self), message: StoredModelDiagnostic.unsupportedType(property: name, type: written)))
            }
            let optional = OptionalTypeSyntax(wrappedType: annotation.trimmed).with(\.trailingTrivia, annotation.trailingTrivia)
            let fixIt = FixIt(message: StoredModelFixIt.makeOptional, changes: [
                .replace(oldNode: Syntax(annotation), newNode: Syntax(optional)),
            ])
            throw PropertyFailure(diagnostic: Diagnostic(node: Syntax(annotation), message: StoredModelDiagnostic.nonOptionalReference(property: name, type: written),
                                                         fixIts: [fixIt]))
        case let .nested(written):
            throw PropertyFailure(diagnostic: Diagnostic(node: Syntax(self), message: StoredModelDiagnostic.nestedType(property: name, type: written)))
        }
    }

    /// A fix-it adding a default value for `kind`; nil when none is needed (an optional is nil).
    func defaultValueFixIt(for kind: FieldKind) -> FixIt? {
        let value: String
        switch kind {
        case .optional, .reference: return nil
        case let .scalar(scalar): value = scalar.defaultValue
        case .scalarArray, .referenceArray: value = "[]"
        }
        let clause = InitializerClauseSyntax(
            equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
            value: ExprSyntax(stringLiteral: value))
        var fixed = self
        fixed.typeAnnotation = typeAnnotation?.with(\.trailingTrivia, [])
        fixed.initializer = clause.with(\.trailingTrivia, typeAnnotation?.trailingTrivia ?? [])
        return FixIt(message: StoredModelFixIt.addDefault(value), changes: [.replace(oldNode: Syntax(self), newNode: Syntax(fixed))])
    }

    /// The scalar type of a literal or of a call or member of a scalar type (`Date()`,
    /// `UInt32(7)`, `Date.distantPast`), or nil.
    private static func inferredType(of value: ExprSyntax) -> String? {
        if value.is(StringLiteralExprSyntax.self) { return "String" }
        if value.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if value.is(FloatLiteralExprSyntax.self) { return "Double" }
        if value.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return inferredType(of: prefix.expression).flatMap { ["Int", "Double"].contains($0) ? $0 : nil }
        }
        let base: ExprSyntax?
        if let call = value.as(FunctionCallExprSyntax.self) {
            base = call.calledExpression
        } else if let member = value.as(MemberAccessExprSyntax.self) {
            base = member.base
        } else {
            base = nil
        }
        guard let name = base?.as(DeclReferenceExprSyntax.self)?.baseName.text, ScalarType.all[name] != nil else { return nil }
        return name
    }
}
