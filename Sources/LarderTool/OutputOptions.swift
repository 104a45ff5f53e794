// The option every command shares for its output: a table by default, JSON with --json.

import ArgumentParser

struct OutputOptions: ParsableArguments {
    @Flag(help: "Write JSON instead of a table.")
    var json = false
}
