// QueryArgument: a `?` argument of `larder find` as typed: JSON text when it is some (`30`,
// `true`, `null`, `"30"`, `[1,2]`), else the text itself as a string (`UK`).

import Foundation
import LarderDocuments

enum QueryArgument {
    static func value(of text: String) -> JSON {
        if let data = text.data(using: .utf8), let value = try? JSONDecoder().decode(JSON.self, from: data) {
            return value
        }
        return .string(text)
    }
}
