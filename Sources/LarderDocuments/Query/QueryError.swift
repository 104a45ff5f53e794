// QueryError: a malformed query, orderBy or index definition, or arguments that do not fit
// it, reported with the character position in the text the caller wrote.

/// A query (or orderBy, or index key list) that cannot run, with where and why. It is thrown
/// before anything is read or changed.
///
/// ```swift
/// do {
///     _ = try users.find(where: "[age] >> ?", arguments: [30])
/// } catch let error as QueryError {
///     print(error.position, error.message)   // 7 expected a value after '>'
/// }
/// ```
public struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text that failed (as the caller wrote it, before alias expansion).
    ///
    /// ```swift
    /// print(error.query)   // [age] >> ?
    /// ```
    public var query: String
    /// The 0-based offset, in characters, where the problem was found.
    ///
    /// ```swift
    /// print(String(error.query.dropFirst(error.position)))   // > ?
    /// ```
    public var position: Int
    /// What is wrong.
    ///
    /// ```swift
    /// print(error.message)   // expected a value after '>'
    /// ```
    public var message: String

    /// Creates an error.
    ///
    /// ```swift
    /// let error = QueryError(query: "[a] = ", position: 6, message: "expected a value")
    /// ```
    public init(query: String, position: Int, message: String) {
        self.query = query
        self.position = position
        self.message = message
    }

    /// The message with its position and the query.
    ///
    /// ```swift
    /// print(error)   // query error at 7: expected a value after '>' in "[age] >> ?"
    /// ```
    public var description: String {
        "query error at \(position): \(message) in \"\(query)\""
    }
}
