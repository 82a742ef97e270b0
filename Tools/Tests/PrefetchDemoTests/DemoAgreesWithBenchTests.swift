import Foundation
import PrefetchDemoKit
import PrefetchKit
import PrefetchSimulation
import Testing

/// The demo and the bench run the same app loop: one scenario through both gives the same figures.
@Suite("The demo and the bench agree")
@MainActor
struct DemoAgreesWithBenchTests {
    nonisolated static let cases: [(DemoLayout, String, Script)] = [
        (.grid, "adaptive", .fling), (.grid, "uikitLike", .jump), (.list, "textureLike", .reverse), (.list, "none", .steady),
    ]

    @Test(arguments: 0..<4)
    func oneScenarioThroughBothGivesTheSameFigures(index: Int) async throws {
        // Given the demo's settings: a log-normal network, a layout, a policy
        let (layout, policy, script) = Self.cases[index]
        var settings = DemoSettings()
        settings.layout = layout
        settings.policy = try PrefetchPolicies.named(policy)
        settings.latency = try .logNormal(median: 0.15, p99: 1.2)
        settings.seed = 5
        // When the demo plays the script and the simulator plays the same scenario
        let demo = try await ScriptedRun(settings: settings, script: script, duration: nil).run()
        let bench = try await Simulator.run(
            settings.scenario(script), policy: .policy(settings.policy), configuration: settings.simulationConfiguration)
        // Then every figure is the same
        #expect(demo.displayed == bench.displayed)
        #expect(demo.displayReadyRate == bench.displayReadyRate)
        #expect(demo.visibleWaitMeanMs == bench.visibleWaitMeanMs)
        #expect(demo.visibleWaitP95Ms == bench.visibleWaitP95Ms)
        #expect(demo.blankCellSeconds == bench.blankCellSeconds)
        #expect(demo.loadsStarted == bench.loadsStarted)
        #expect(demo.loadsCancelled == bench.loadsCancelled)
        #expect(demo.loadsWasted == bench.loadsWasted)
        #expect(demo.peakInFlight == bench.peakInFlight)
        // And the run measured something: cells appeared and loads ran
        #expect(demo.displayed > 0)
        #expect(demo.loadsStarted > 0)
    }
}
