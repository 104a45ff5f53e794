// ProgressBar: a bar on standard error, redrawn in place at most ten times a second and erased
// when the work ends. Drawn only when standard error is a terminal: piped or redirected output
// gets no bar and no carriage returns.

import Foundation

final class ProgressBar {
    private let label: String
    private let width = 30
    private var lastDrawn = Date.distantPast
    private var isShown = false

    /// A bar labelled `label`; nil when standard error is not a terminal (or `enabled` is false).
    init?(label: String, enabled: Bool = true) {
        guard enabled, StandardError.isTerminal else { return nil }
        self.label = label
    }

    /// Shows `done` of `total`, unless the bar was drawn less than 0.1 s ago.
    func update(_ done: Int, of total: Int) {
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        StandardError.write("\r\(label) [\(bar)] \(Int(fraction * 100))% \(done)/\(total)")
        isShown = true
    }

    /// Erases the bar.
    func finish() {
        guard isShown else { return }
        StandardError.write("\r\u{1B}[K")
        isShown = false
    }
}
