import Foundation

/// Writes a self-contained HTML page (inline SVG and CSS, no scripts or fonts to fetch) with, per
/// scenario, bar charts of the metrics per policy and a timeline per policy.
///
/// A timeline has time across and the item index up. The viewport is the blue band, the prefetch
/// window the pale band around it; each load is a line from start to finish (green: completed,
/// grey ending in a tick: cancelled, red: failed), and each blank period of a visible cell is a
/// thick red line.
enum HTMLReport {
    /// One scenario under one policy, and what happened over time.
    struct Run: Sendable {
        var result: SimulationResult
        var timeline: SimulationTimeline
    }

    /// The key to the timelines' colours.
    static let timelineLegend = """
        <p class="legend"><span><i class="swatch" style="background:#9ec5fe"></i>viewport</span><span><i class="swatch" style="background:#fff3bf"></i>prefetch window</span><span><i class="swatch" style="background:#2f9e44"></i>load completed</span><span><i class="swatch" style="background:#adb5bd"></i>load cancelled</span><span><i class="swatch" style="background:#e03131"></i>failed load / blank visible cell</span></p>
        """

    /// Renders the page.
    ///
    /// `sections` is more HTML (such as ``Frontier/html(_:)``) placed after the runs.
    static func render(_ runs: [Run], title: String = "PrefetchKit simulation", subtitle: String = "", sections: String = "") -> String {
        var scenarios: [String] = []
        for run in runs where !scenarios.contains(run.result.scenario) { scenarios.append(run.result.scenario) }
        var html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>
        body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 8px; border-top: 1px solid #ddd; padding-top: 16px; }
        h3 { font-size: 13px; margin: 12px 0 2px; color: #444; }
        table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 10px; text-align: right; border-bottom: 1px solid #eee; }
        th:first-child, td:first-child { text-align: left; } .muted { color: #666; } .charts { display: flex; flex-wrap: wrap; gap: 16px; }
        .legend span { display: inline-block; margin-right: 14px; } .swatch { display: inline-block; width: 12px; height: 12px; vertical-align: -2px; margin-right: 4px; }
        </style></head><body>
        <h1>\(escape(title))</h1><p class="muted">\(escape(subtitle))</p>
        \(runs.isEmpty ? "" : timelineLegend)
        """
        for scenario in scenarios {
            let group = runs.filter { $0.result.scenario == scenario }
            html += "<h2 id=\"\(escape(scenario))\">\(escape(scenario))</h2>\n"
            html += table(group.map(\.result))
            html += "<div class=\"charts\">"
            html += barChart("display-ready rate (%)", group.map { ($0.result.policy, $0.result.displayReadyRate * 100) }, maximum: 100, color: "#2f9e44")
            html += barChart("mean visible wait (ms)", group.map { ($0.result.policy, $0.result.visibleWaitMeanMs) }, color: "#e03131")
            html += barChart("settle time p95 (ms)", group.map { ($0.result.policy, $0.result.settleP95Ms) }, color: "#f08c00")
            html += barChart("wasted loads", group.map { ($0.result.policy, Double($0.result.loadsWasted)) }, color: "#868e96")
            html += barChart("MB wasted", group.map { ($0.result.policy, Double($0.result.bytesWasted) / 1e6) }, color: "#495057")
            html += "</div>\n"
            for run in group {
                html += "<h3>\(escape(run.result.policy))</h3>\n" + timeline(run.timeline)
            }
        }
        html += sections
        html += "</body></html>\n"
        return html
    }

    private static func table(_ results: [SimulationResult]) -> String {
        var rows = "<table><tr><th>policy</th><th>ready %</th><th>wait ms</th><th>p95 ms</th><th>blank s</th><th>settle ms</th><th>settle p95</th><th>started</th><th>cancelled</th><th>wasted</th><th>wasted at end</th><th>wasted MB</th><th>wire MB</th><th>link %</th><th>never shown</th><th>peak</th></tr>"
        for r in results {
            rows += "<tr><td>\(escape(r.policy))</td><td>\(format(r.displayReadyRate * 100, 1))</td><td>\(format(r.visibleWaitMeanMs, 0))</td><td>\(format(r.visibleWaitP95Ms, 0))</td><td>\(format(r.blankCellSeconds, 1))</td><td>\(format(r.settleMeanMs, 0))</td><td>\(format(r.settleP95Ms, 0))</td><td>\(r.loadsStarted)</td><td>\(r.loadsCancelled)</td><td>\(r.loadsWasted)</td><td>\(r.loadsWastedAtEnd)</td><td>\(format(Double(r.bytesWasted) / 1e6, 1))</td><td>\(format(Double(r.bytesOnWire) / 1e6, 1))</td><td>\(format(r.linkUtilisation * 100, 0))</td><td>\(r.loadsNeverShown)</td><td>\(r.peakInFlight)</td></tr>"
        }
        return rows + "</table>\n"
    }

    private static func barChart(_ title: String, _ values: [(String, Double)], maximum: Double? = nil, color: String) -> String {
        let width = 300.0, rowHeight = 20.0, labelWidth = 90.0
        let top = max(maximum ?? values.map(\.1).max() ?? 1, 1e-9)
        let height = Double(values.count) * rowHeight + 24
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(escape(title))\">"
        svg += "<text x=\"0\" y=\"14\" font-size=\"12\" fill=\"#444\">\(escape(title))</text>"
        for (index, (label, value)) in values.enumerated() {
            let y = 22 + Double(index) * rowHeight
            let barWidth = max(0, value / top) * (width - labelWidth - 50)
            svg += "<text x=\"0\" y=\"\(format(y + 13, 1))\" font-size=\"11\">\(escape(label))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(format(y + 3, 1))\" width=\"\(format(barWidth, 1))\" height=\"13\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(format(labelWidth + barWidth + 4, 1))\" y=\"\(format(y + 13, 1))\" font-size=\"11\">\(format(value, value < 10 ? 1 : 0))</text>"
        }
        return svg + "</svg>"
    }

    private static func timeline(_ t: SimulationTimeline) -> String {
        let width = 900.0, height = 220.0, left = 48.0, bottom = 18.0
        var low = Int.max, high = Int.min
        for f in t.frames {
            for r in [f.visible, f.prefetch].compactMap({ $0 }) { low = min(low, r.lowerBound); high = max(high, r.upperBound) }
        }
        for l in t.loads { low = min(low, l.item); high = max(high, l.item) }
        guard low <= high, t.duration > 0 else { return "<p class=\"muted\">nothing happened</p>" }
        let span = Double(max(high - low + 1, 1))
        let x = { (time: Double) in left + time / t.duration * (width - left - 8) }
        let y = { (item: Double) in (height - bottom) - (item - Double(low)) / span * (height - bottom - 6) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"timeline\">"
        svg += "<rect x=\"\(left)\" y=\"0\" width=\"\(width - left - 8)\" height=\"\(height - bottom)\" fill=\"#fafafa\" stroke=\"#ddd\"/>"
        func band(_ range: (SimulationTimeline.Frame) -> ClosedRange<Int>?, fill: String) -> String {
            var upper: [String] = [], lower: [String] = []
            var out = ""
            func flush() {
                if !upper.isEmpty { out += "<polygon points=\"\((upper + lower.reversed()).joined(separator: " "))\" fill=\"\(fill)\"/>" }
                upper = []
                lower = []
            }
            for f in t.frames {
                guard let r = range(f) else { flush(); continue }
                upper.append("\(format(x(f.time), 1)),\(format(y(Double(r.upperBound) + 1), 1))")
                lower.append("\(format(x(f.time), 1)),\(format(y(Double(r.lowerBound)), 1))")
            }
            flush()
            return out
        }
        svg += band({ $0.prefetch }, fill: "#fff3bf")
        svg += band({ $0.visible }, fill: "#9ec5fe")
        for l in t.loads {
            let color: String
            switch l.outcome {
            case .completed: color = "#2f9e44"
            case .cancelled: color = "#adb5bd"
            case .failed: color = "#e03131"
            case .running: color = "#f08c00"
            }
            let yy = format(y(Double(l.item) + 0.5), 1)
            svg += "<line x1=\"\(format(x(l.start), 1))\" y1=\"\(yy)\" x2=\"\(format(max(x(l.end), x(l.start) + 1), 1))\" y2=\"\(yy)\" stroke=\"\(color)\" stroke-width=\"1.2\"/>"
            if l.outcome == .cancelled {
                svg += "<line x1=\"\(format(x(l.end), 1))\" y1=\"\(format(y(Double(l.item) + 0.5) - 3, 1))\" x2=\"\(format(x(l.end), 1))\" y2=\"\(format(y(Double(l.item) + 0.5) + 3, 1))\" stroke=\"#868e96\"/>"
            }
        }
        for b in t.blanks {
            let yy = format(y(Double(b.item) + 0.5), 1)
            svg += "<line x1=\"\(format(x(b.start), 1))\" y1=\"\(yy)\" x2=\"\(format(max(x(b.end), x(b.start) + 1.5), 1))\" y2=\"\(yy)\" stroke=\"#e03131\" stroke-width=\"3\" opacity=\"0.8\"/>"
        }
        let ticks = stride(from: 0.0, through: t.duration, by: max(1, (t.duration / 10).rounded()))
        for s in ticks {
            svg += "<text x=\"\(format(x(s), 1))\" y=\"\(height - 4)\" font-size=\"10\" text-anchor=\"middle\" fill=\"#666\">\(format(s, 0))s</text>"
        }
        svg += "<text x=\"\(left - 4)\" y=\"\(format(y(Double(low)), 1))\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">\(low)</text>"
        svg += "<text x=\"\(left - 4)\" y=\"10\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">\(high)</text>"
        return svg + "</svg>\n"
    }

    private static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
