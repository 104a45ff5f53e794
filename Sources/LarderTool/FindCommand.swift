// `larder find PATH COLLECTION --where …`: a query of a document collection in LarderDocuments'
// query language, its documents as a table or JSON, or its plan with --explain.

import ArgumentParser
import Foundation
import LarderDocuments

struct FindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find documents of a collection with a query (the LarderDocuments query language).",
        discussion: """
            Each --arguments value binds one ? in order: JSON text when it parses as JSON \
            (30, true, null, "30" for the string), else the text as a string (UK). Opens the \
            store read-only.

            Example: larder find /tmp/people.larder people --where "[age] > ?" --arguments 30 --order-by "[last_name]" --limit 20
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The collection's name.")
    var collection: String

    @Option(name: .customLong("where"), help: "The WHERE clause, e.g. \"[age] > ? AND [country] = ?\".")
    var query: String?

    @Option(parsing: .upToNextOption, help: "The values of the query's ? placeholders, in order.")
    var arguments: [String] = []

    @Option(name: .customLong("order-by"), help: "The order, e.g. \"[last_name], [first_name] DESC\".")
    var orderBy: String?

    @Option(help: "At most this many documents.")
    var limit: Int?

    @Option(help: "Skip this many documents first.")
    var offset: Int?

    @Flag(help: "Print how the query would run (index or scan) instead of running it.")
    var explain = false

    @Flag(help: "Print the number of matching documents instead of the documents.")
    var count = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: true)
            guard try opener.kind().holdsDocuments else {
                throw ToolError.noSuchCollection(collection, available: [])
            }
            let documents = try opener.openDocuments()
            defer { try? documents.close() }
            let names = try documents.storedCollectionNames()
            guard names.contains(collection) else { throw ToolError.noSuchCollection(collection, available: names) }
            let found = try documents.collection(collection)
            let values = arguments.map(QueryArgument.value(of:))
            if explain {
                let plan = try found.explain(where: query, arguments: values, orderBy: orderBy, limit: limit)
                print(output.json ? try JSONOutput.text(of: ["plan": plan]) : plan)
            } else if count {
                let number = try found.count(where: query, arguments: values)
                print(output.json ? try JSONOutput.text(of: ["count": number]) : "\(number)")
            } else {
                let results = try found.find(where: query, arguments: values, orderBy: orderBy, limit: limit, offset: offset)
                if output.json {
                    try JSONOutput.print(results)
                } else {
                    print(Self.table(of: results).rendered, terminator: "")
                }
            }
        }
    }

    /// Documents as a table: a column per top-level key, the rowID first; strings as they are,
    /// other values as JSON, long cells cut.
    static func table(of documents: [JSON]) -> TextTable {
        let rowIDKey = "__rowid__"
        var keys = Set<String>()
        for document in documents {
            if let object = document.objectValue { keys.formUnion(object.keys) }
        }
        keys.remove(rowIDKey)
        let columns = [rowIDKey] + keys.sorted()
        var table = TextTable(columns, numeric: [0])
        for document in documents {
            table.append(columns.map { key in
                let value = document[key]
                let text = (value.stringValue ?? (document.objectValue?[key] == nil ? "" : value.description))
                    .replacingOccurrences(of: "\n", with: "\\n")
                return text.count > 40 ? String(text.prefix(39)) + "…" : text
            })
        }
        return table
    }
}
