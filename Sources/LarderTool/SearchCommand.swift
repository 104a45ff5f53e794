// `larder search PATH --class Track --attribute title "[[blue*]]"`: full-text search of a class
// through its stored index, without the Swift class: the matching rowIDs (which `larder dump
// --rowid` shows).

import ArgumentParser
import Larder

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search a class's full-text index; print the matching rowIDs.",
        discussion: """
            The query uses Tokyo Dystopia's expressions, as Store.objects(of:matchingText:forAttribute:): \
            [[word]] a whole word, [[word*]] a word's start, [[*word]] its end, [[*word*]] any part, \
            "a phrase", a bare word anywhere; && and, || or, !! and not. Matching folds case and \
            Unicode normalization. Opens the store read-only.

            Example: larder search /tmp/tracks.larder --class Track --attribute title "[[blue*]] !! bird"
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("class"), help: "The class's storage name.")
    var className: String

    @Option(help: "The indexed attribute to search (a key of the class's indexedText()).")
    var attribute: String

    @Argument(help: "The search expression.")
    var query: String

    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        var `class`: String
        var attribute: String
        var query: String
        var rowIDs: [UInt64]
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: true)
            guard try opener.kind().holdsObjects else { throw ToolError.noSuchClass(className, available: []) }
            let objects = try opener.openObjects()
            defer { try? objects.close() }
            guard objects.storedClassNames.contains(className) else {
                throw ToolError.noSuchClass(className, available: objects.storedClassNames)
            }
            guard let rowIDs = try objects.rowIDs(ofClassNamed: className, matchingText: query, forAttribute: attribute),
                  let attributes = try objects.textAttributes(ofClassNamed: className) else {
                throw ToolError.noTextIndex(class: className)
            }
            if !attributes.contains(attribute) {
                StandardError.write("larder: note: the index of \(className) holds no word of '\(attribute)' "
                    + "(its attributes: \(attributes.isEmpty ? "none" : attributes.joined(separator: ", ")))\n")
            }
            if output.json {
                try JSONOutput.print(Result(class: className, attribute: attribute, query: query, rowIDs: rowIDs))
            } else {
                var table = TextTable(["rowID"], numeric: [0])
                for rowID in rowIDs { table.append(["\(rowID)"]) }
                print(table.rendered, terminator: "")
                print("\(rowIDs.count) \(className) object\(rowIDs.count == 1 ? "" : "s") match")
            }
        }
    }
}
