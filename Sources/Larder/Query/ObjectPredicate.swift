// ObjectPredicate: a typed condition on the stored properties of a class, built from key paths
// with Swift's operators. A tree of conditions (PredicateNode) joined by and, or and not.

/// A condition on objects of `Root`, for ``Store/objects(of:where:orderBy:limit:offset:)``,
/// ``Store/count(of:where:)`` and ``Store/firstObject(of:where:orderBy:)``.
///
/// Compare a key path with a value (`==`, `!=`, `<`, `<=`, `>`, `>=`), join with `&&`, `||`
/// and `!`, or use ``in(_:_:)``, ``between(_:_:_:)``, ``hasPrefix(_:_:)-(KeyPath<Root,String>,_)`` and ``isNil(_:)``.
/// `<`, `<=`, `>`, `>=`, `between` and `hasPrefix` never match `nil`; `==` and `!=` treat
/// `nil` as a value, as Swift does. Strings compare by their UTF-8 bytes (code-point order).
/// References compare by identity.
///
/// ```swift
/// let page = try store.objects(of: Song.self,
///                              where: \.album == kindOfBlue && \.seconds >= 60,
///                              orderBy: [.ascending(\.title)], limit: 20)
/// let some = try store.count(of: Song.self, where: .between(\.seconds, 100, 200) || .isNil(\.rating))
/// ```
public struct ObjectPredicate<Root: StoredObject>: @unchecked Sendable {
    // @unchecked: conditions hold key paths and keys, both immutable.
    internal let node: PredicateNode

    internal init(_ node: PredicateNode) {
        self.node = node
    }

    internal init<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>, _ test: QueryCondition.Test,
                                         _ summary: @escaping @autoclosure () -> String) {
        let term = QueryTerm(keyPath)
        node = .condition(QueryCondition(term: term, test: test, describe: summary))
    }

    /// Objects whose value at `keyPath` is one of `values`.
    ///
    /// ```swift
    /// let some = try store.objects(of: Song.self, where: .in(\.seconds, [60, 120]))
    /// ```
    public static func `in`<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>, _ values: [Value]) -> Self {
        Self(keyPath, .within(values.map(\.indexKey)), "\(Self.describe(keyPath)) in \(Self.describeValue(values))")
    }

    /// Objects whose value at `keyPath` lies from `lower` through `upper` (both included).
    ///
    /// ```swift
    /// let mid = try store.objects(of: Song.self, where: .between(\.seconds, 100, 200))
    /// ```
    public static func between<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>, _ lower: Value, _ upper: Value) -> Self {
        Self(keyPath, .between(lower.indexKey, upper.indexKey), "\(Self.describe(keyPath)) between \(Self.describeValue(lower)) and \(Self.describeValue(upper))")
    }

    /// Objects whose string at `keyPath` starts with `prefix` (by UTF-8 bytes).
    ///
    /// ```swift
    /// let so = try store.objects(of: Song.self, where: .hasPrefix(\.title, "So"))
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Root, String>, _ prefix: String) -> Self {
        Self(keyPath, .hasPrefix(Self.prefixKey(prefix)), "\(Self.describe(keyPath)) has prefix \"\(prefix)\"")
    }

    /// Objects whose optional string at `keyPath` starts with `prefix` (nil never does).
    ///
    /// ```swift
    /// let so = try store.objects(of: Song.self, where: .hasPrefix(\.subtitle, "Live"))
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Root, String?>, _ prefix: String) -> Self {
        Self(keyPath, .hasPrefix(Self.prefixKey(prefix)), "\(Self.describe(keyPath)) has prefix \"\(prefix)\"")
    }

    /// Objects whose optional value at `keyPath` is nil.
    ///
    /// ```swift
    /// let unrated = try store.count(of: Song.self, where: .isNil(\.rating))
    /// ```
    public static func isNil<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value?>) -> Self {
        Self(keyPath, .isNil, "\(Self.describe(keyPath)) is nil")
    }

    /// "seconds > 300 && (title has prefix "So" || rating is nil)".
    internal var summary: String { node.summary }

    /// A value as explain shows it: `nil`, `"text"`, `Album 3`, `42`.
    internal static func describeValue(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return describeValue(wrapped)
        }
        switch value {
        case let text as String: return "\"\(text)\""
        case let object as StoredObject: return "\(type(of: object).storageName) \(object.rowID)"
        case let values as [Any]: return "[" + values.map(describeValue).joined(separator: ", ") + "]"
        default: return "\(value)"
        }
    }

    internal static func describe<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) -> String {
        KeyPathName.name(of: keyPath) ?? String(describing: keyPath)
    }

    private static func prefixKey(_ prefix: String) -> [UInt8] {
        var key = [IndexKeyBytes.stringTag]
        IndexKeyBytes.appendEscapedPrefix(prefix.utf8, to: &key)
        return key
    }
}
