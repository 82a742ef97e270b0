import Foundation
import PrefetchKit

/// The frontier report: each fixed-window policy family swept over its window, as blank
/// cell-seconds and display-ready against the bytes wasted (`prefetch-bench --frontier`).
/// On a shared link waste is a cost to what is shown as well as to the user's data plan, so the
/// plots put megabytes on their horizontal axis; the text gives wasted loads too.
///
/// The families: `uikitLike` (its `lead`, viewports ahead) and `textureLike` (its `ahead`, with
/// `behind` at its default 1.5), and `adaptive` over its budget knob
/// (`PrefetchPolicies.Adaptive.aggressiveness`, every length ahead scaled; 1 is the standard policy).
public enum Frontier {
    /// The windows swept, in viewports ahead: 0.25 to 6.
    static let windows: [Double] = [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 6]

    /// The adaptive policy's budget knob swept: `PrefetchPolicies.Adaptive.aggressiveness` from 0.25 to 2.
    static let aggressiveness: [Double] = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2]

    /// One family at one window, totalled over the scenarios.
    struct Point: Sendable, Hashable {
        /// `uikitLike`, `textureLike` or `adaptive`.
        var family: String
        /// The window in viewports ahead, or adaptive's aggressiveness.
        var window: Double
        /// Blank cell-seconds over the scenarios.
        var blankCellSeconds: Double
        /// The mean of the scenarios' display-ready rates, from 0 to 1.
        var displayReadyRate: Double
        /// Wasted loads over the scenarios.
        var loadsWasted: Int
        /// Bytes wasted over the scenarios.
        var bytesWasted: Int = 0
    }

    /// The policies of the sweep: each family at each window, then adaptive at each aggressiveness.
    static func policies(
        windows: [Double] = windows, aggressiveness: [Double] = aggressiveness
    ) throws -> [(family: String, window: Double, policy: any PrefetchPolicy)] {
        var result: [(String, Double, any PrefetchPolicy)] = []
        for w in windows { result.append(("uikitLike", w, try PrefetchPolicies.UIKitLike(lead: w))) }
        for w in windows { result.append(("textureLike", w, try PrefetchPolicies.TextureLike(ahead: w))) }
        for a in aggressiveness { result.append(("adaptive", a, try PrefetchPolicies.Adaptive(aggressiveness: a))) }
        return result
    }

    /// One latency profile's sweep, totalled over the scenarios.
    public struct Sweep: Sendable {
        /// What the report calls it, such as `lte: log-normal …`.
        let label: String
        let points: [Point]
        /// The sweep as text: one line per family and window.
        public var text: String { render(points) }
    }

    /// Runs the sweep over `scenarios` under `configuration`, calling `progress(done, total)`
    /// before each run; `label` names it in the report.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    @MainActor
    public static func sweep(
        _ scenarios: [Scenario], configuration: SimulationConfiguration, label: String, progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Sweep {
        Sweep(label: label, points: try await points(scenarios, configuration: configuration, progress: progress))
    }

    /// A self-contained HTML page of `sweeps`: two plots per latency profile.
    public static func report(_ sweeps: [Sweep], subtitle: String) -> String {
        HTMLReport.render([], title: "PrefetchKit frontier", subtitle: subtitle, sections: html(sweeps.map { ($0.label, $0.points) }))
    }

    /// The sweep's points over `scenarios` under `configuration`.
    @MainActor
    static func points(
        _ scenarios: [Scenario], configuration: SimulationConfiguration, windows: [Double] = windows,
        aggressiveness: [Double] = aggressiveness, progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> [Point] {
        let policies = try policies(windows: windows, aggressiveness: aggressiveness)
        var points: [Point] = []
        var done = 0
        for entry in policies {
            var results: [SimulationResult] = []
            for scenario in scenarios {
                progress(done, policies.count * scenarios.count)
                results.append(try await Simulator.run(scenario, policy: .policy(entry.policy), configuration: configuration))
                done += 1
            }
            points.append(Point(
                family: entry.family, window: entry.window,
                blankCellSeconds: results.map(\.blankCellSeconds).reduce(0, +),
                displayReadyRate: results.map(\.displayReadyRate).reduce(0, +) / Double(max(results.count, 1)),
                loadsWasted: results.map(\.loadsWasted).reduce(0, +), bytesWasted: results.map(\.bytesWasted).reduce(0, +)))
        }
        return points
    }

    /// The sweep as text: one line per family and window.
    static func render(_ points: [Point]) -> String {
        var lines = ["frontier: family, window (viewports ahead; adaptive: aggressiveness), mean ready %, blank cell-s, wasted loads, wasted MB"]
        for p in points {
            lines.append("  " + p.family.padding(toLength: 12, withPad: " ", startingAt: 0)
                         + String(format: " %5.2f %6.1f %8.1f %7d %8.1f", p.window, p.displayReadyRate * 100,
                                  p.blankCellSeconds, p.loadsWasted, Double(p.bytesWasted) / 1e6))
        }
        return lines.joined(separator: "\n")
    }

    /// A self-contained HTML section per latency profile: two SVG plots (blank cell-seconds and
    /// display-ready against megabytes wasted), one curve per family.
    static func html(_ sweeps: [(profile: String, points: [Point])]) -> String {
        var html = "<h2 id=\"frontier\">Frontier</h2>\n<p class=\"muted\">Each fixed-window family swept from 0.25 to 6 viewports ahead; adaptive swept over its aggressiveness from 0.25 to 2. Down-left is better for blank time, up-left for display-ready.</p>\n"
        for sweep in sweeps {
            html += "<h3>\(HTMLReport.escape(sweep.profile))</h3>\n<div class=\"charts\">"
            html += plot(sweep.points, title: "blank cell-seconds vs MB wasted", floor: { _ in 0 }, y: \.blankCellSeconds)
            // The families differ by a few points of display-ready near the top: an axis from 0
            // would squeeze them into the top fifth of the plot. It starts at the tens below the
            // lowest point instead (90 for a sweep all at 100 %).
            html += plot(sweep.points, title: "display-ready % vs MB wasted", floor: { max((($0 - 0.001) / 10).rounded(.down) * 10, 0) },
                         y: { $0.displayReadyRate * 100 })
            html += "</div>\n"
        }
        return html
    }

    private static let colors = ["uikitLike": "#1971c2", "textureLike": "#2f9e44", "adaptive": "#e03131"]

    /// One SVG plot of `value` against megabytes wasted; the value axis starts at `floor` of the
    /// lowest value, and never above it.
    private static func plot(_ points: [Point], title: String, floor: (Double) -> Double, y value: (Point) -> Double) -> String {
        let width = 440.0, height = 300.0, left = 52.0, bottom = 36.0, top = 24.0, right = 90.0
        let megabytes = { (p: Point) in Double(p.bytesWasted) / 1e6 }
        let xs = points.map(megabytes), ys = points.map(value)
        let xMax = xs.max().map { $0 > 0 ? $0 : 1 } ?? 1, yMin = min(floor(ys.min() ?? 0), ys.min() ?? 0)
        // A flat sweep (every point at 0 blank seconds, say) still gets a readable axis.
        let highest = ys.max() ?? yMin, yMax = highest > yMin ? highest : yMin + 1
        let px = { (x: Double) in left + x / xMax * (width - left - right) }
        let py = { (y: Double) in top + (1 - (y - yMin) / (yMax - yMin)) * (height - top - bottom) }
        let f = { (x: Double) in String(format: "%.1f", x) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTMLReport.escape(title))\">"
        svg += "<text x=\"0\" y=\"14\" font-size=\"12\" fill=\"#444\">\(HTMLReport.escape(title))</text>"
        svg += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width - left - right))\" height=\"\(f(height - top - bottom))\" fill=\"#fafafa\" stroke=\"#ddd\"/>"
        for k in 0...4 {
            let yv = yMin + (yMax - yMin) * Double(k) / 4, xv = xMax * Double(k) / 4
            svg += "<text x=\"\(f(left - 4))\" y=\"\(f(py(yv) + 4))\" font-size=\"10\" text-anchor=\"end\">\(f(yv))</text>"
            svg += "<text x=\"\(f(px(xv)))\" y=\"\(f(height - bottom + 14))\" font-size=\"10\" text-anchor=\"middle\">\(f(xv))</text>"
        }
        svg += "<text x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 6))\" font-size=\"11\" text-anchor=\"middle\">MB wasted</text>"
        var families: [String] = []
        for p in points where !families.contains(p.family) { families.append(p.family) }
        for (index, family) in families.enumerated() {
            let color = colors[family] ?? "#868e96"
            let curve = points.filter { $0.family == family }
            let path = curve.map { "\(f(px(megabytes($0)))),\(f(py(value($0))))" }.joined(separator: " ")
            if curve.count > 1 { svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>" }
            for p in curve {
                svg += "<circle cx=\"\(f(px(megabytes(p))))\" cy=\"\(f(py(value(p))))\" r=\"3.5\" fill=\"\(color)\"><title>\(family) \(String(format: "%g", p.window)) → \(f(value(p))), \(p.loadsWasted) wasted (\(f(megabytes(p))) MB)</title></circle>"
            }
            svg += "<text x=\"\(f(width - right + 8))\" y=\"\(f(top + 14 + Double(index) * 16))\" font-size=\"11\" fill=\"\(color)\">\(family)</text>"
        }
        return svg + "</svg>"
    }
}
