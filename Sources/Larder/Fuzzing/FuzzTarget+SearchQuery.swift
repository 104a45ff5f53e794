// The full-text query fuzz target: a query in Tokyo Dystopia's syntax as a user may type it.
// It parses or throws a SearchQueryError whose position lies in the text. (Evaluation is not
// fuzzed here: it needs a store.)

extension FuzzTarget {
    /// The input's bytes as UTF-8 text (invalid sequences replaced).
    package static let searchQuery = FuzzTarget(name: "searchQuery", seeds: searchQuerySeeds) { input throws(FuzzViolation) in
        let text = String(decoding: input, as: UTF8.self)
        do throws(SearchQueryError) {
            _ = try SearchQuery.parse(text)
            return true
        } catch {
            try FuzzViolation.check(error.position >= 0 && error.position <= text.count,
                                    "position \(error.position) outside a query of \(text.count) characters")
            return false
        }
    }

    @Sendable private static func searchQuerySeeds() -> [[UInt8]] {
        ["blue", "blue && green || \"kind of\"", "[[miles]] !! [[davis*]] || [[*coltrane*]]", "[[*bill]] evans",
         "\"so what\" && [[modal]] !! \"freddie freeloader\"", "café && straße || 日本語"].map { Array($0.utf8) }
    }
}
