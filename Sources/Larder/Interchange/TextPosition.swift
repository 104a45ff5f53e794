// TextPosition: where in a JSON text a reader stands: line and column (1-based, the column
// counted in bytes) and the byte offset from the start (0-based), for errors that point at the
// faulty input.

/// A place in a JSON text, as an ``InterchangeError`` reports it.
///
/// ```swift
/// catch let error as InterchangeError {
///     print(error.position)   // line 12, column 5 (byte 301)
/// }
/// ```
public struct TextPosition: Sendable, Equatable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column within the line, in bytes, from 1.
    public var column: Int
    /// The offset from the start of the text, in bytes, from 0.
    public var byteOffset: Int

    /// A position.
    ///
    /// ```swift
    /// let start = TextPosition(line: 1, column: 1, byteOffset: 0)
    /// ```
    public init(line: Int, column: Int, byteOffset: Int) {
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// `line 12, column 5 (byte 301)`.
    ///
    /// ```swift
    /// print(TextPosition(line: 2, column: 3, byteOffset: 9))   // line 2, column 3 (byte 9)
    /// ```
    public var description: String { "line \(line), column \(column) (byte \(byteOffset))" }
}
