import Foundation
import Testing
@testable import PrefetchSimulation

@Suite struct FrontierTests {
    @MainActor
    @Test func aWiderFixedWindowNeverWastesLess() async throws {
        let scenarios = [try TraceGenerator.trace(profile: .gallery, seed: 1_000, duration: 10), StandardSuite.scenario(.backAndForth, layout: .list)]
        let windows: [Double] = [0.25, 1, 2, 4, 6]
        let knob: [Double] = [0.25, 1, 2]
        let points = try await Frontier.points(scenarios, configuration: SimulationConfiguration(), windows: windows, aggressiveness: knob)
        #expect(points.count == 2 * windows.count + knob.count)
        for family in ["uikitLike", "textureLike"] {
            let curve = points.filter { $0.family == family }
            #expect(curve.map(\.window) == windows)
            for (narrow, wide) in zip(curve, curve.dropFirst()) {
                #expect(wide.loadsWasted >= narrow.loadsWasted, "\(family) \(wide.window) wastes \(wide.loadsWasted) < \(narrow.loadsWasted) at \(narrow.window)")
            }
            // The sweep spans something: the widest window wastes more than the narrowest.
            #expect(curve.last!.loadsWasted > curve.first!.loadsWasted)
        }
        // Adaptive's budget knob is monotone in waste too: more aggressive never wastes less.
        let adaptive = points.filter { $0.family == "adaptive" }
        #expect(adaptive.map(\.window) == knob)
        for (low, high) in zip(adaptive, adaptive.dropFirst()) {
            #expect(high.loadsWasted >= low.loadsWasted, "adaptive \(high.window) wastes \(high.loadsWasted) < \(low.loadsWasted) at \(low.window)")
        }
        #expect(adaptive.last!.loadsWasted > adaptive.first!.loadsWasted)
        let page = Frontier.html([("lte", points)])
        #expect(page.contains("<polyline") && page.contains("textureLike") && page.contains("adaptive"))
    }

    @Test func aFlatSweepStillGetsAReadableAxis() {
        // Every point at 0 blank seconds: the axis spans 0 to 1 instead of labelling 0.0 five times.
        let points = [0.25, 1, 2].enumerated().map { index, window in
            Frontier.Point(family: "uikitLike", window: window, blankCellSeconds: 0, displayReadyRate: 1, loadsWasted: 4 + index,
                           bytesWasted: (4 + index) * 500_000)
        }
        let page = Frontier.html([("lte", points)])
        let blankPlot = String(page[page.range(of: "blank cell-seconds vs MB wasted")!.lowerBound...])
            .components(separatedBy: "</svg>")[0]
        #expect(blankPlot.contains(">1.0</text>"), "the blank-time axis should reach 1.0")
        #expect(blankPlot.contains(">0.5</text>"))
        #expect(page.contains("<title>uikitLike 0.25 → 0.0, 4 wasted (2.0 MB)</title>"))
    }

    @Test func theDisplayReadyAxisStartsAtTheTensBelowTheLowestPoint() {
        // Curves between 61.2 % and 76.6 %: from 0 they would be squeezed into the top fifth.
        let points = [(0.612, 206), (0.700, 273), (0.766, 409)].map { ready, wasted in
            Frontier.Point(family: "textureLike", window: 1, blankCellSeconds: 50, displayReadyRate: ready, loadsWasted: wasted)
        }
        let page = Frontier.html([("lte", points)])
        let readyPlot = String(page[page.range(of: "display-ready % vs MB wasted")!.lowerBound...]).components(separatedBy: "</svg>")[0]
        #expect(readyPlot.contains(">60.0</text>"), "the axis should start at 60")
        #expect(!readyPlot.contains("\"end\">0.0</text>"), "no value-axis label at 0")
        #expect(readyPlot.contains(">76.6</text>"), "and reach the highest point")
        // The blank-time axis still starts at 0.
        let blankPlot = String(page[page.range(of: "blank cell-seconds vs MB wasted")!.lowerBound...]).components(separatedBy: "</svg>")[0]
        #expect(blankPlot.contains("\"end\">0.0</text>"))
        // A sweep all at 100 % gets an axis from 90 to 100, not one past 100 %.
        let full = Frontier.html([("wifi", [Frontier.Point(family: "adaptive", window: 1, blankCellSeconds: 0, displayReadyRate: 1, loadsWasted: 3)])])
        let fullPlot = String(full[full.range(of: "display-ready % vs MB wasted")!.lowerBound...]).components(separatedBy: "</svg>")[0]
        #expect(fullPlot.contains(">90.0</text>") && fullPlot.contains(">100.0</text>") && !fullPlot.contains(">101.0</text>"))
    }

    @Test func aFrontierOnlyReportLeavesOutTheTimelineKey() {
        let points = [Frontier.Point(family: "adaptive", window: 1, blankCellSeconds: 3, displayReadyRate: 0.9, loadsWasted: 10)]
        let frontierOnly = HTMLReport.render([], title: "PrefetchKit frontier", sections: Frontier.html([("lte", points)]))
        #expect(frontierOnly.contains("blank cell-seconds vs MB wasted"))
        #expect(!frontierOnly.contains("prefetch window"), "a page without timelines explains no timeline colours")
        #expect(HTMLReport.timelineLegend.contains("prefetch window"))
    }
}
