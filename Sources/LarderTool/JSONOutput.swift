// JSONOutput: what `--json` writes: one value, encoded with sorted keys so that output is stable
// from run to run, followed by a newline.

import Foundation

enum JSONOutput {
    /// `value` as JSON text, pretty-printed unless `compact`.
    static func text(of value: some Encodable, compact: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = compact ? [.sortedKeys, .withoutEscapingSlashes]
            : [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Writes `value` to standard output as JSON.
    static func print(_ value: some Encodable) throws {
        Swift.print(try text(of: value))
    }
}
