import Foundation
import Testing
@testable import PrefetchSimulation

@Suite struct FrontierTests {
    @MainActor
    @Test func aWiderFixedWindowNeverWastesLess() async throws {
        let scenarios = [try TraceGenerator.trace(profile: .gallery, seed: 1_000, duration: 10), StandardSuite.scenario(.backAndForth, layout: .list)]
        let windows: [Double] = [0.25, 1, 2, 4, 6]
        let knob: [Double] = [0.25, 1, 2]
        let points = try await Frontier.sweep(scenarios, configuration: SimulationConfiguration(), windows: windows, aggressiveness: knob)
        #expect(points.count == 2 * windows.count + knob.count)
        for family in ["uikitLike", "textureLike"] {
            let curve = points.filter { $0.family == family }
            #expect(curve.map(\.window) == windows.map { Optional($0) })
            for (narrow, wide) in zip(curve, curve.dropFirst()) {
                #expect(wide.loadsWasted >= narrow.loadsWasted, "\(family) \(wide.window!) wastes \(wide.loadsWasted) < \(narrow.loadsWasted) at \(narrow.window!)")
            }
            // The sweep spans something: the widest window wastes more than the narrowest.
            #expect(curve.last!.loadsWasted > curve.first!.loadsWasted)
        }
        // Adaptive's budget knob is monotone in waste too: more aggressive never wastes less.
        let adaptive = points.filter { $0.family == "adaptive" }
        #expect(adaptive.map(\.window) == knob.map { Optional($0) })
        for (low, high) in zip(adaptive, adaptive.dropFirst()) {
            #expect(high.loadsWasted >= low.loadsWasted, "adaptive \(high.window!) wastes \(high.loadsWasted) < \(low.loadsWasted) at \(low.window!)")
        }
        #expect(adaptive.last!.loadsWasted > adaptive.first!.loadsWasted)
        let page = Frontier.html([("lte", points)])
        #expect(page.contains("<polyline") && page.contains("textureLike") && page.contains("adaptive"))
    }
}
