// @NotStored: a marker that @StoredModel reads; it adds nothing itself.

import SwiftSyntax
import SwiftSyntaxMacros

/// `@NotStored`: leaves a property of a `@StoredModel` class out of its records.
public struct NotStoredMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        []
    }
}
