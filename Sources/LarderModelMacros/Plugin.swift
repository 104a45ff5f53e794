// The compiler plug-in of LarderModel's macros.

import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct LarderModelPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [StoredModelMacro.self, NotStoredMacro.self]
}
