// Formatting: medians, times, ratios, sizes and Markdown/XML escaping for the reports.

import Foundation
import SpeedSupport

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A time for people: "1.23 s", "45.6 ms", "789 µs".
func formatTime(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "–" }
    if seconds >= 100 { return String(format: "%.0f s", seconds) }
    if seconds >= 10 { return String(format: "%.1f s", seconds) }
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 0.1 { return String(format: "%.0f ms", seconds * 1e3) }
    if seconds >= 0.01 { return String(format: "%.1f ms", seconds * 1e3) }
    if seconds >= 0.001 { return String(format: "%.2f ms", seconds * 1e3) }
    return String(format: "%.0f µs", seconds * 1e6)
}

func formatRatio(_ ratio: Double) -> String {
    ratio.isFinite ? String(format: "%.2f×", ratio) : "–"
}

func formatMB(_ bytes: Double) -> String {
    String(format: "%.1f", bytes / 1_048_576)
}

/// Distinct values in first-seen order, joined for a table cell.
func distinct(_ values: [String]) -> String {
    var seen: [String] = []
    for value in values where !seen.contains(value) { seen.append(value) }
    return seen.joined(separator: " / ")
}

/// Makes text safe inside a Markdown table cell.
func cell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|")
}

func xml(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}

/// The trimmed output of a command, or nil.
func commandOutput(_ path: String, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
