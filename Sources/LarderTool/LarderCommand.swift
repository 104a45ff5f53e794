// The `larder` command: inspect and maintain a Larder store from the shell, as `sqlite3` and
// Realm Studio serve their users. Each subcommand is a file of its own; docs/TOOL.md is the
// manual (opening, passphrases, output, exit statuses).

import ArgumentParser

@main
struct LarderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder",
        abstract: "Inspect and maintain a Larder store (objects or documents) from the shell.",
        discussion: """
            Commands that only read open the store read-only: they share it with other readers, \
            and fail at once (exit status 75) when another process has it open for writing, \
            unless --wait gives it time to let go. An encrypted store's passphrase comes from \
            LARDER_PASSPHRASE or from a prompt on the terminal, never from the command line. \
            export writes the interchange format (or a collection's JSON Lines); import reads \
            it into a new or empty store, the one command that creates a store. \
            Output is a table, or JSON with --json. See docs/TOOL.md for the exit statuses.
            """,
        subcommands: [InfoCommand.self, VerifyCommand.self, DumpCommand.self, FindCommand.self,
                      SearchCommand.self, CompactCommand.self, RekeyCommand.self,
                      ExportCommand.self, ImportCommand.self]
    )
}
