// InterchangeInputError: an InterchangeError about the text of the file `import` reads, told as
// compilers tell a fault in a source file: `FILE:LINE:COLUMN: what is wrong`.

import Larder

struct InterchangeInputError: Error, CustomStringConvertible {
    /// The file read.
    var file: String
    /// The error, which has a position.
    var error: InterchangeError
    var position: TextPosition

    /// The error of reading `file`, when `error` is about its text (it has a position).
    init?(file: String, error: InterchangeError) {
        guard let position = error.position else { return nil }
        self.file = file
        self.error = error
        self.position = position
    }

    var description: String {
        // InterchangeError's description is "<position>: <what is wrong>".
        let text = error.description
        let prefix = "\(position): "
        let reason = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        return "\(file):\(position.line):\(position.column): \(reason)"
    }
}
