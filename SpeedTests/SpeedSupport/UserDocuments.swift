// UserDocuments: the seeded user documents of the Documents workload, identical for every
// engine: names, a nested address (country, city), an age and a tags array; and the queries'
// arguments.

import LarderTestSupport

/// One user document of the Documents workload.
public struct UserDocument: Sendable {
    public var firstName: String
    public var lastName: String
    public var age: Int
    public var country: String
    public var city: String
    public var tags: [String]

    /// The document as JSON text (keys in a fixed order), for engines that store text.
    public var jsonText: String {
        let tagList = tags.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"first_name":"\#(firstName)","last_name":"\#(lastName)","age":\#(age),"address":{"country":"\#(country)","city":"\#(city)"},"tags":[\#(tagList)]}"#
    }
}

/// The Documents workload's data and query arguments.
public enum UserDocuments {
    /// 8 countries: an equality find on one returns about 1/8 of the documents.
    public static let countries = ["UK", "FR", "DE", "US", "JP", "BR", "IN", "NG"]
    /// 50 tags; each document has 1-3 distinct ones.
    public static let tags = (0 ..< 50).map { "tag\($0)" }
    static let firstNames = (0 ..< 300).map { "First\($0)" }
    static let lastNames = (0 ..< 2_000).map { "Last\($0)" }

    /// The equality find: `[address.country] = findCountry`.
    public static let findCountry = "FR"
    /// The range find: `[last_name] >= rangeStart`, ordered by last then first name, 20 rows.
    public static let rangeStart = "Last1500"
    /// The repeated range find: the same query from each of these 100 last names (spread over
    /// the alphabet), timed together: what paging through a list costs once the code is warm.
    public static let rangeStarts = (0 ..< 100).map { lastNames[($0 * 7_919) % lastNames.count] }
    /// The array-contains find: `[tags] CONTAINS findTag`.
    public static let findTag = "tag7"
    /// The count: `[address.country] = countCountry`.
    public static let countCountry = "JP"

    /// `count` documents, the same for every engine (a fixed seed).
    public static func generate(count: Int) -> [UserDocument] {
        var generator = SplitMix(seed: 0xD0C5)
        func next(_ bound: Int) -> Int { Int(generator.next(below: UInt64(bound))) }
        return (0 ..< count).map { _ in
            var documentTags: [String] = []
            for _ in 0 ... next(3) {
                let tag = tags[next(tags.count)]
                if !documentTags.contains(tag) { documentTags.append(tag) }
            }
            return UserDocument(firstName: firstNames[next(firstNames.count)], lastName: lastNames[next(lastNames.count)],
                                age: 18 + next(70), country: countries[next(countries.count)],
                                city: "City\(next(500))", tags: documentTags)
        }
    }
}
