// Arguments: the command line of the mutation fuzzer, as `--name value` pairs.

/// `--name value` pairs.
struct Arguments {
    private var values: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) {
        var pending: String?
        for argument in arguments {
            if let name = pending { values[name] = argument; pending = nil } else { pending = argument }
        }
    }

    subscript(name: String) -> String? { values[name] }
}

/// A command line the fuzzer cannot run.
struct ArgumentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
