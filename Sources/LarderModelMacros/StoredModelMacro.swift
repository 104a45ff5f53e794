// @StoredModel: adds @Stored to each stored `var` of a StoredObject subclass (member-attribute
// role) and writes its writeContent, readContent and storedModelSchema (member role), in the
// tagged layout of docs/FORMAT.md section 21.

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@StoredModel`: tagged, schema-described storage for a `StoredObject` subclass.
public struct StoredModelMacro: MemberMacro, MemberAttributeMacro {
    // MARK: Member attributes

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), case let .stored(property) = StoredProperty.read(member),
              let variable = property.node.as(VariableDeclSyntax.self), !variable.hasAttribute(named: "Stored") else {
            return []
        }
        return ["@Stored"]
    }

    // MARK: Members

    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: StoredModelDiagnostic.notAClass))
            return []
        }
        guard classDecl.inheritanceClause != nil else {
            let clause = InheritanceClauseSyntax(
                colon: .colonToken(trailingTrivia: .space),
                inheritedTypes: [InheritedTypeSyntax(type: TypeSyntax(IdentifierTypeSyntax(name: .identifier("StoredObject"))))],
                trailingTrivia: classDecl.name.trailingTrivia)
            let fixed = classDecl.with(\.name, classDecl.name.with(\.trailingTrivia, [])).with(\.inheritanceClause, clause)
            let fixIt = FixIt(message: StoredModelFixIt.inheritStoredObject, changes: [
                .replace(oldNode: Syntax(classDecl), newNode: Syntax(fixed)),
            ])
            context.diagnose(Diagnostic(node: classDecl.name, message: StoredModelDiagnostic.noSuperclass, fixIts: [fixIt]))
            return []
        }
        var properties: [StoredProperty] = []
        var failed = false
        for member in classDecl.memberBlock.members {
            switch StoredProperty.read(member.decl) {
            case .ignored: continue
            case let .invalid(diagnostics):
                diagnostics.forEach(context.diagnose)
                failed = true
            case let .stored(property):
                if let other = properties.first(where: { $0.tag == property.tag }) {
                    context.diagnose(Diagnostic(node: property.node,
                                                message: StoredModelDiagnostic.tagCollision(property: property.name, other: other.name)))
                    failed = true
                }
                properties.append(property)
            }
        }
        guard !failed else { return [] }
        let access = accessPrefix(of: classDecl)
        return [writeContent(properties, access: access), readContent(properties, access: access),
                schema(properties, access: access)]
    }

    // MARK: Generated members

    private static func writeContent(_ properties: [StoredProperty], access: String) -> DeclSyntax {
        let body = properties.flatMap { $0.kind.writeStatements("self.\($0.identifier)", tag: $0.tag) }
        return """
        \(raw: access)override func writeContent(to buffer: inout DataBuffer) {
        \(raw: body.map { "    " + $0 }.joined(separator: "\n"))
        }
        """
    }

    private static func readContent(_ properties: [StoredProperty], access: String) -> DeclSyntax {
        let cases = properties.flatMap { $0.kind.readCases("self.\($0.identifier)", tag: $0.tag) }
        return """
        \(raw: access)override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
            while let key = try buffer.readFieldKey() {
                switch key {
        \(raw: cases.map { "        " + $0 + "\n" }.joined())        default: try buffer.skipField(key: key)
                }
            }
        }
        """
    }

    private static func schema(_ properties: [StoredProperty], access: String) -> DeclSyntax {
        let fields = properties.map { property in
            "        StoredField(name: \"\(property.name)\", tag: 0x\(String(property.tag, radix: 16)), type: \(property.kind.schemaType)),\n"
        }
        return """
        \(raw: access)override class var storedModelSchema: StoredModelSchema? {
            StoredModelSchema(fields: [
        \(raw: fields.joined())    ])
        }
        """
    }

    /// `public ` for a public or open class (an override must be as visible as its class),
    /// `package ` for a package one, nothing otherwise.
    private static func accessPrefix(of classDecl: ClassDeclSyntax) -> String {
        let modifiers = Set(classDecl.modifiers.map(\.name.text))
        if !modifiers.isDisjoint(with: ["public", "open"]) { return "public " }
        if modifiers.contains("package") { return "package " }
        return ""
    }
}
