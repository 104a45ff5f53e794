// SVGChart: results.svg: one bar per engine for each workload phase, relative to the slowest
// engine of its group, with each bar's median and its ratio to Larder.

import Foundation
import SpeedSupport

/// The bar chart of a run.
struct SVGChart {
    let summaries: Summaries

    var text: String {
        let sizes = WorkloadSizes(scale: Double(summaries.options.scale) ?? 1)
        /// The chart leaves out ComplexInsert's middle rounds (they are in the tables).
        let chartGroups = summaries.groups.filter { key in
            guard key.workload == Workload.complexInsert.rawValue, key.phase.hasPrefix("round") else { return true }
            return key.phase == "round1" || key.phase == "round\(sizes.complexRounds)"
        }
        let palette: [String: String] = ["Larder": "#1f77b4", "SQLite": "#ff7f0e", "GRDB": "#2ca02c", "TokyoCabinet": "#7f7f7f"]
        let extraColors = ["#9467bd", "#8c564b", "#e377c2", "#17becf"]
        func color(_ engine: String) -> String {
            palette[engine] ?? extraColors[(summaries.engines.firstIndex(of: engine) ?? 0) % extraColors.count]
        }

        let width = 1000.0, labelRight = 200.0, barLeft = 210.0, barMax = 520.0
        let barHeight = 14.0, barGap = 4.0, groupTitle = 20.0, groupGap = 14.0
        var svgBody = ""
        var y = 84.0
        var lastDurability = ""
        for key in chartGroups {
            let present = summaries.engines.compactMap { engine in summaries.summary(key, engine).map { (engine, $0) } }
            guard !present.isEmpty else { continue }
            if key.durability != lastDurability {
                lastDurability = key.durability
                svgBody += "<text x=\"10\" y=\"\(y + 4)\" font-size=\"16\" font-weight=\"bold\">Durability \(xml(key.durability))</text>\n"
                y += 26
            }
            let slowest = present.map { $0.1.wall }.max() ?? 1
            svgBody += "<text x=\"10\" y=\"\(y + 13)\" font-size=\"13\" font-weight=\"bold\">\(xml(key.workload)) · \(xml(key.phase))</text>\n"
            y += groupTitle
            for (engine, s) in present {
                let length = slowest > 0 ? max(1, s.wall / slowest * barMax) : 1
                var label = formatTime(s.wall)
                if let r = summaries.ratio(key, engine) { label += " (\(r.label) \(formatRatio(r.value)))" }
                svgBody += "<text x=\"\(labelRight)\" y=\"\(y + barHeight - 3)\" text-anchor=\"end\">\(xml(engine))</text>"
                svgBody += "<rect x=\"\(barLeft)\" y=\"\(y)\" width=\"\(String(format: "%.1f", length))\" height=\"\(barHeight)\" fill=\"\(color(engine))\"/>"
                svgBody += "<text x=\"\(String(format: "%.1f", barLeft + length + 6))\" y=\"\(y + barHeight - 3)\">\(xml(label))</text>\n"
                y += barHeight + barGap
            }
            y += groupGap
        }
        var legend = ""
        var legendX = 10.0
        for engine in summaries.engines {
            legend += "<rect x=\"\(legendX)\" y=\"52\" width=\"12\" height=\"12\" fill=\"\(color(engine))\"/><text x=\"\(legendX + 16)\" y=\"62\">\(xml(engine))</text>"
            legendX += 30 + Double(engine.count) * 8
        }
        let title = "Larder speed comparison: scale \(summaries.options.scale), median of \(summaries.options.repetitions) runs"
        let subtitle = "Median wall time; each bar is relative to the slowest engine of its group (shorter is faster). ComplexInsert rounds 2–\(sizes.complexRounds - 1) are in RESULTS.md."
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(y + 10))" viewBox="0 0 \(Int(width)) \(Int(y + 10))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="22" font-size="15" font-weight="bold">\(xml(title))</text>
            <text x="10" y="40">\(xml(subtitle))</text>
            \(legend)
            \(svgBody)</svg>

            """
        return svg
    }
}
