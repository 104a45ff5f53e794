// ObjectIndexState: one declared index of a registered class in this session: its definition,
// its name and its table of runs (the index engine the documents layer uses too).

/// A class's index, ready to read and write.
internal final class ObjectIndexState {
    let definition: ObjectIndex
    let name: String
    let className: String
    var table: IndexTable

    init(definition: ObjectIndex, name: String, className: String, table: IndexTable) {
        self.definition = definition
        self.name = name
        self.className = className
        self.table = table
    }

    var isUnique: Bool { definition.isUnique }
}
