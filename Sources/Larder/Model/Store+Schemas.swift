// The schemas of @StoredModel classes in the store's registry: written when such a class is
// registered with fields the registry does not have yet, read when the store opens.

extension Store {
    /// The schema of the `@StoredModel` class stored as `name`, from the store's registry (or,
    /// for a class registered in this session whose schema a read-only store could not record,
    /// from the class); nil for a hand-written class or a name the store does not know. The
    /// Swift class need not be registered, nor exist in this process.
    ///
    /// ```swift
    /// let schema = try #require(store.schema(ofClassNamed: "Song"))
    /// let values = try schema.decodeContent(content)
    /// ```
    public func schema(ofClassNamed name: String) -> StoredModelSchema? {
        schemas[name] ?? entriesByName[name]?.type.storedModelSchema
    }

    /// Records the schema of `type` (stored as `name`) in the registry when it is a
    /// `@StoredModel` class whose fields changed since the registry last saw them. A read-only
    /// store records nothing. An invalid schema throws ``StoreError/invalidSchema(class:reason:)``.
    internal func recordSchema(of type: StoredObject.Type, named name: String) throws {
        guard let schema = type.storedModelSchema else { return }
        do {
            try schema.validate()
        } catch {
            throw StoreError.invalidSchema(class: name, reason: error.description)
        }
        guard schemas[name] != schema, !backend.isReadOnly else { return }
        var batch = WriteBatch()
        try addMetadata(schema.encoded(), forKey: StoredModelSchema.key(for: name), to: &batch)
        try applyToBackend(batch)
        schemas[name] = schema
    }
}
