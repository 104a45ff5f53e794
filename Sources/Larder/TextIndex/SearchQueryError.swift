// SearchQueryError: a full-text query that does not parse, with where and why.

/// A full-text search query that cannot be parsed: ``position`` is the offset, in characters
/// from 0, where the problem was found.
///
/// ```swift
/// do {
///     _ = try store.objects(of: Song.self, matchingText: "blue &&", forAttribute: "title")
/// } catch let error as SearchQueryError {
///     print(error.position, error.message)   // 5 "expected a term after &&"
/// }
/// ```
public struct SearchQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Offset in characters (from 0) in the query where the problem is.
    public var position: Int
    /// What is wrong, in a sentence.
    public var message: String

    /// Creates an error at `position` with `message`.
    ///
    /// ```swift
    /// let error = SearchQueryError(position: 0, message: "empty query")
    /// ```
    public init(position: Int, message: String) {
        self.position = position
        self.message = message
    }

    /// "position N: message".
    public var description: String { "search query, position \(position): \(message)" }
}
