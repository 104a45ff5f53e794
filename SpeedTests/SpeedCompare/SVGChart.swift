// SVGChart: results.svg, the figure the README embeds: for each headline (Headline), in the
// run's first durability (`.full` in `make speed`), how many times faster Larder is than SQLite
// and GRDB, on a log scale centred on 1×
// (a bar to the right: Larder is faster; to the left: slower). Times, sizes and memory are in the
// tables of RESULTS.md.

import Foundation
import SpeedSupport

/// The ratio chart of a run.
struct SVGChart {
    let summaries: Summaries

    private static let engines = [("SQLite", "#ff7f0e"), ("GRDB", "#2ca02c")]
    /// The ratios the axis spans; a ratio beyond is drawn at the end, with its value.
    private static let lowest = 0.05, highest = 50.0

    var text: String {
        let sizes = WorkloadSizes(scale: Double(summaries.options.scale) ?? 1)
        let labelWidth = 370.0, axisLeft = 440.0, axisWidth = 470.0, barHeight = 11.0
        let decades = log10(Self.highest) - log10(Self.lowest)
        func x(_ ratio: Double) -> Double {
            axisLeft + (log10(min(max(ratio, Self.lowest), Self.highest)) - log10(Self.lowest)) / decades * axisWidth
        }
        var body = ""
        var y = 70.0
        for durability in summaries.options.durabilities.prefix(1) {
            let rows = Headline.all(sizes).filter { headline in
                summaries.summary(GroupKey(durability: durability, workload: headline.workload, phase: headline.phase), "Larder") != nil
            }
            guard !rows.isEmpty else { continue }
            body += "<text x=\"10\" y=\"\(y)\" font-size=\"14\" font-weight=\"bold\">Durability \(xml(durability))</text>\n"
            y += 12
            let top = y
            for headline in rows {
                let key = GroupKey(durability: durability, workload: headline.workload, phase: headline.phase)
                let otherKey = GroupKey(durability: durability, workload: headline.workload, phase: headline.otherPhase)
                body += "<text x=\"\(labelWidth)\" y=\"\(y + 15)\" text-anchor=\"end\">\(xml(headline.label.replacingOccurrences(of: "`", with: "")))</text>\n"
                for (index, (engine, color)) in Self.engines.enumerated() {
                    let barY = y + 3 + Double(index) * (barHeight + 1)
                    guard let larder = summaries.summary(key, "Larder"), let other = summaries.summary(otherKey, engine) else { continue }
                    let ratio = other.wall / larder.wall
                    let (start, end) = (min(x(1), x(ratio)), max(x(1), x(ratio)))
                    body += "<rect x=\"\(format(start))\" y=\"\(format(barY))\" width=\"\(format(max(end - start, 1)))\" height=\"\(barHeight)\" fill=\"\(color)\"/>"
                    let labelX = ratio >= 1 ? end + 4 : start - 4
                    body += "<text x=\"\(format(labelX))\" y=\"\(format(barY + 9))\" font-size=\"10\" text-anchor=\"\(ratio >= 1 ? "start" : "end")\">\(xml(formatRatio(ratio)))</text>\n"
                }
                y += 2 * (barHeight + 1) + 10
            }
            // The axis: ticks at the ratios a reader looks for, the 1× line across the rows.
            for tick in [0.1, 0.2, 0.5, 1, 2, 5, 10, 20] {
                let tickX = format(x(tick))
                body += "<line x1=\"\(tickX)\" y1=\"\(format(top))\" x2=\"\(tickX)\" y2=\"\(format(y))\" stroke=\"\(tick == 1 ? "#333" : "#ddd")\"/>"
                body += "<text x=\"\(tickX)\" y=\"\(format(y + 12))\" font-size=\"10\" text-anchor=\"middle\">\(tick.formatted())×</text>\n"
            }
            y += 34
        }
        var legend = ""
        var legendX = axisLeft
        for (engine, color) in Self.engines {
            legend += "<rect x=\"\(legendX)\" y=\"42\" width=\"12\" height=\"12\" fill=\"\(color)\"/><text x=\"\(legendX + 16)\" y=\"52\">\(xml(engine))'s time / Larder's</text>"
            legendX += 170
        }
        let title = "Larder against SQLite and GRDB: scale \(summaries.options.scale), median of \(summaries.options.repetitions) runs"
        let subtitle = "Right of 1×: Larder is faster; left: slower (log scale). Times, sizes and memory: SpeedTests/RESULTS.md."
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="960" height="\(Int(y))" viewBox="0 0 960 \(Int(y))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="20" font-size="15" font-weight="bold">\(xml(title))</text>
            <text x="10" y="36">\(xml(subtitle))</text>
            \(legend)
            \(body)</svg>

            """
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
