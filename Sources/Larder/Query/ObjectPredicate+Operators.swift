// ObjectPredicate+Operators: `\.seconds > 300`, `\.album == kindOfBlue`, `&&`, `||`, `!`.

/// Objects whose value at `keyPath` equals `value` (`nil` allowed for optionals).
///
/// ```swift
/// let one = try store.firstObject(of: Song.self, where: \.isrc == "USRC17607839")
/// ```
public func == <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .equal(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) == \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects whose value at `keyPath` differs from `value` (`nil` differs from every value).
///
/// ```swift
/// let others = try store.objects(of: Song.self, where: \.album != kindOfBlue)
/// ```
public func != <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .notEqual(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) != \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects whose value at `keyPath` is less than `value` (never `nil`).
///
/// ```swift
/// let short = try store.objects(of: Song.self, where: \.seconds < 60)
/// ```
public func < <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .less(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) < \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects whose value at `keyPath` is at most `value` (never `nil`).
///
/// ```swift
/// let short = try store.objects(of: Song.self, where: \.seconds <= 60)
/// ```
public func <= <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .lessOrEqual(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) <= \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects whose value at `keyPath` is greater than `value` (never `nil`).
///
/// ```swift
/// let long = try store.objects(of: Song.self, where: \.seconds > 300)
/// ```
public func > <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .greater(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) > \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects whose value at `keyPath` is at least `value` (never `nil`).
///
/// ```swift
/// let long = try store.objects(of: Song.self, where: \.seconds >= 300)
/// ```
public func >= <Root: StoredObject, Value: IndexableValue>(keyPath: KeyPath<Root, Value>, value: Value) -> ObjectPredicate<Root> {
    ObjectPredicate(keyPath, .greaterOrEqual(value.indexKey), "\(ObjectPredicate<Root>.describe(keyPath)) >= \(ObjectPredicate<Root>.describeValue(value))")
}

/// Objects that pass both predicates.
///
/// ```swift
/// let set = try store.objects(of: Song.self, where: \.album == kindOfBlue && \.seconds >= 60)
/// ```
public func && <Root>(left: ObjectPredicate<Root>, right: ObjectPredicate<Root>) -> ObjectPredicate<Root> {
    ObjectPredicate(.and(left.node, right.node))
}

/// Objects that pass either predicate.
///
/// ```swift
/// let either = try store.objects(of: Song.self, where: \.seconds < 60 || .isNil(\.rating))
/// ```
public func || <Root>(left: ObjectPredicate<Root>, right: ObjectPredicate<Root>) -> ObjectPredicate<Root> {
    ObjectPredicate(.or(left.node, right.node))
}

/// Objects that do not pass the predicate.
///
/// ```swift
/// let rest = try store.objects(of: Song.self, where: !.hasPrefix(\.title, "So"))
/// ```
public prefix func ! <Root>(predicate: ObjectPredicate<Root>) -> ObjectPredicate<Root> {
    ObjectPredicate(.not(predicate.node))
}
