// The options every command that opens a store shares: where the store is and how long to wait
// for another process to let go of it.

import ArgumentParser
import Foundation

struct StoreOptions: ParsableArguments {
    @Argument(help: "The store directory.")
    var path: String

    @Option(name: .customLong("wait"), help: ArgumentHelp(
        "Seconds to wait for another process to let go of the store (default: fail at once).",
        valueName: "seconds"))
    var lockTimeout: Double?

    func validate() throws {
        if let lockTimeout, !(lockTimeout >= 0 && lockTimeout.isFinite) {
            throw ValidationError("--wait takes a number of seconds, 0 or more")
        }
    }

    /// An opener of the store, read-only or for writing.
    func opener(readOnly: Bool) -> StoreOpener {
        StoreOpener(path: path, readOnly: readOnly, lockTimeout: lockTimeout ?? 0)
    }
}
