// The README's speed table is the one `make speed` wrote into SpeedTests/RESULTS.md (SpeedCompare's
// ReadmeSummary): the two cannot disagree, and the README keeps no other figure of a run.

import Foundation
import Testing

@Suite struct ReadmeSpeedSummaryTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The text between the speed-summary markers of `file`, markers included.
    private func summaryBlock(of file: String) throws -> String {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- speed-summary:begin -->"), "\(file) has no summary block")
        let end = try #require(text.range(of: "<!-- speed-summary:end -->", range: begin.upperBound ..< text.endIndex))
        return String(text[begin.lowerBound ..< end.upperBound])
    }

    @Test func theReadmeShowsTheTableOfTheLastSpeedRun() throws {
        let readme = try summaryBlock(of: "README.md")
        #expect(readme == (try summaryBlock(of: "SpeedTests/RESULTS.md")))
        for workload in ["ComplexInsert", "SimpleInsert", "SimpleFetch", "SimpleUpdate", "PointRead", "FullText", "Documents"] {
            #expect(readme.contains("| \(workload)"), "\(workload) missing from the README's table")
        }
    }

    @Test func theReadmeIsAFrontDoorNotALabNotebook() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count < 350, "README.md has \(lines.count) lines")
        // Timings appear only in the generated table.
        let outside = text.replacingOccurrences(of: try summaryBlock(of: "README.md"), with: "")
        let timing = try Regex(#"\b\d+(\.\d+)? ?(ms|µs|s)\b"#)
        #expect(outside.firstMatch(of: timing) == nil, "a timing outside the generated table")
    }
}
