// `larder verify PATH`: reads every record and checks it, with a progress bar on a terminal;
// exit status 0 only when the store is healthy, 1 when it has problems (listed).

import ArgumentParser

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every record, index and log of a store; exit status 0 only when it is healthy.",
        discussion: """
            Objects: checksums or authentication of every page and record, the registry's counts, \
            references, object and full-text indexes, named buffers, the change log and histories \
            (records of classes are checked for damage; their fields cannot be decoded without the \
            Swift class). Documents: every document is read and every index recomputed. Changes \
            nothing; opens the store read-only. Exit status 1 when problems are found.

            Example: larder verify /tmp/music.larder
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Draw no progress bar, even on a terminal.")
    var noProgress = false

    func run() throws {
        var healthy = true
        try reportingFailure(path: store.path) {
            let summary = try VerificationSummary(opening: store.opener(readOnly: true),
                                                  progress: ProgressBar(label: "verifying", enabled: !noProgress))
            healthy = summary.healthy
            if output.json {
                try JSONOutput.print(summary)
            } else {
                print(summary.rendered, terminator: "")
            }
        }
        if !healthy { throw ExitCode(ExitStatus.unhealthy) }
    }
}
