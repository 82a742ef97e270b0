import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing
@testable import PrefetchSimulation

/// Memory pressure (issue #27) through the whole app loop on virtual time: after the signal the
/// memory held falls within the frame to at most the visible and landing-zone items, and
/// readiness recovers within 3 s of scrolling (2 s with the items' sizes unknown; see below).
@MainActor
@Suite struct MemoryPressureSimulationTests {
    /// What one run shows around a memory-pressure signal.
    struct Figures {
        /// The fetcher's memory held after the frame of the signal, and the most the screen and
        /// the landing zone may hold then (their items at the value's size).
        var heldAfterSignal = 0, bound = 0
        /// The memory held on the frame before the signal.
        var heldBefore = 0
        /// The memory held 3 s after the signal.
        var heldLater = 0
        /// Appearances, and those ready, from 3 s to 5 s after the signal.
        var appearances = 0, ready = 0
        var readyRate: Double { appearances == 0 ? 1 : Double(ready) / Double(appearances) }
    }

    /// Plays `scenario` with pressure at `at` (none when nil), the planner's pressure lasting
    /// `duration` seconds (the default when nil), and measures around `at` (or `window`'s start
    /// without pressure).
    func figures(_ scenario: Scenario, policy: any PrefetchPolicy = PrefetchPolicies.adaptive, pressureAt at: Double?,
                 window: Double, duration: Double? = nil) async throws -> Figures {
        var configuration = SimulationConfiguration()
        configuration.valueBytes = 1 << 20
        configuration.memoryPressureAt = at.map { [$0] } ?? []
        let simulation = try Simulator.simulation(scenario, configuration: configuration, policy: policy)
        if let duration { simulation.app.view.prefetchConfiguration = try .init(memoryPressureDuration: .seconds(duration)) }
        let view = simulation.app.view, fetcher = simulation.app.fetcher, meter = simulation.app.meter
        var figures = Figures()
        var signalled = false
        var start: SimulationResult?
        func ready(_ result: SimulationResult) -> Int { Int((result.displayReadyRate * Double(result.displayed)).rounded()) }
        _ = try await simulation.run { frame in
            if let at, !signalled {
                if frame.time >= at {
                    signalled = true
                    figures.heldAfterSignal = fetcher.statistics.memoryHeld
                    figures.bound = view.visibleCells.count * configuration.valueBytes
                } else {
                    figures.heldBefore = fetcher.statistics.memoryHeld
                }
            }
            if start == nil, frame.time >= window + 3 {
                start = meter.readiness
                figures.heldLater = fetcher.statistics.memoryHeld
            }
            if let first = start, frame.time >= window + 5 {
                let end = meter.readiness
                figures.appearances = end.displayed - first.displayed
                figures.ready = ready(end) - ready(first)
                return false
            }
            return true
        }
        return figures
    }

    @Test func memoryFallsToTheScreenWithinAFrameAndReadinessRecoversWithinThreeSeconds() async throws {
        // A steady drag at 800 pt/s through the grid for 15 s with 1 MiB values, under lte, the
        // default policy and the default pressure duration; one run per signal at 3, 4, ..., 11 s
        // against the same windows of a run without pressure (one window is 30 appearances, too
        // few to compare alone).
        let scenario = StandardSuite.scenario(.steady, layout: .grid)
        var calmReady = 0, calmAppearances = 0, ready = 0, appearances = 0
        for at in stride(from: 3.0, through: 11, by: 1) {
            let calm = try await figures(scenario, pressureAt: nil, window: at)
            let pressed = try await figures(scenario, pressureAt: at, window: at)
            // Before the signal the cache holds what the drag loaded; right after the frame of
            // the signal at most the visible items' values (a drag has no landing zone)
            #expect(pressed.heldBefore > 2 * pressed.bound)
            #expect(pressed.bound > 0 && pressed.heldAfterSignal <= pressed.bound,
                    "at \(at) s: \((pressed.heldAfterSignal) >> 20) MiB held, bound \((pressed.bound) >> 20) MiB")
            #expect(pressed.appearances == calm.appearances)
            (calmReady, calmAppearances) = (calmReady + calm.ready, calmAppearances + calm.appearances)
            (ready, appearances) = (ready + pressed.ready, appearances + pressed.appearances)
        }
        // From 3 s to 5 s after the signal, display-ready within 2 points of the runs without it.
        // With the items' sizes known (the simulator's default) the runs without pressure got
        // readier (2 s to 4 s: 242 of 264, from 216) and the runs with it less so (229, from
        // 217): reloading the evicted values takes a second longer to catch up; at 2 s it is 4.9
        // points behind, from 3 s to 5 s 1.95 (230 of 256 against 235; Benchmarks/NOTES.md, "Budgets")
        #expect(calmAppearances > 200)
        let rate = Double(ready) / Double(appearances), calmRate = Double(calmReady) / Double(calmAppearances)
        print("measured: 3-5 s after a memory-pressure signal, ready \(ready) of \(appearances); without it \(calmReady) of \(calmAppearances)")
        #expect(rate >= calmRate - 0.02, "ready \(ready) of \(appearances) against \(calmReady) of \(calmAppearances)")
    }

    @Test func memoryPressureTimesAreChecked() async throws {
        var configuration = SimulationConfiguration()
        for bad in [-1, Double.nan, .infinity] {
            configuration.memoryPressureAt = [2, bad]
            #expect(throws: SimulationError.self) {
                _ = try Simulator.simulation(StandardSuite.scenario(.steady, layout: .grid), configuration: configuration,
                                             policy: PrefetchPolicies.none)
            }
        }
        configuration.memoryPressureAt = [-1]
        do {
            _ = try await Simulator.run(StandardSuite.scenario(.steady, layout: .grid), policy: .policy(PrefetchPolicies.none),
                                        configuration: configuration)
            Issue.record("a negative time was accepted")
        } catch let error as SimulationError {
            #expect("\(error)".contains("memory-pressure time is -1.0 s, but it must be a finite number of seconds, at least 0"))
        }
    }
}
