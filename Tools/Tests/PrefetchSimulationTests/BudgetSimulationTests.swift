import Foundation
import PrefetchKit
import Testing
@testable import PrefetchSimulation

/// Budgets (issue #27) through the whole app loop on virtual time: the memory budget bounds the
/// peak memory held, Low Data Mode wastes fewer loads, and both are off by default.
@MainActor
@Suite struct BudgetSimulationTests {
    @Test func aMemoryBudgetBoundsThePeakMemoryHeldOnFlings() async throws {
        let scenario = StandardSuite.scenario(.repeatedFlings, layout: .grid)
        var configuration = SimulationConfiguration()
        configuration.valueBytes = 1 << 20
        let unbounded = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration)
        configuration.memoryBudgetBytes = 24 << 20
        let bounded = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration)
        // Unbounded, the cache keeps every value it loaded; bounded, never more than 24 MiB at once
        #expect(unbounded.peakMemoryBytes > 24 << 20)
        #expect(bounded.peakMemoryBytes <= 24 << 20 && bounded.peakMemoryBytes > 12 << 20)
        #expect(bounded.displayed == unbounded.displayed)
        #expect(bounded.displayReadyRate > 0.5)
        configuration.memoryBudgetBytes = -1
        await #expect(throws: SimulationError.self) {
            try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.none), configuration: configuration)
        }
    }

    @Test func aDataStoreTakesWhatTheBudgetCannotHoldAndTheSameSeedGivesTheSameRun() async throws {
        let scenario = StandardSuite.scenario(.repeatedFlings, layout: .grid)
        var configuration = SimulationConfiguration()
        configuration.memoryBudgetBytes = 16 << 20
        let withoutStore = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration)
        configuration.storeReadSeconds = 0.02
        func run() async throws -> (SimulationResult, storeOnly: Int, storeHits: Int) {
            let simulation = try Simulator.simulation(scenario, configuration: configuration, policy: PrefetchPolicies.adaptive)
            let result = try await simulation.run()
            return (result, simulation.app.fetcher.storeOnlyLoads, simulation.app.fetcher.statistics.storeHits)
        }
        let (first, storeOnly, storeHits) = try await run()
        var (second, _, _) = try await run()
        second.frameTime = first.frameTime   // wall-clock time per frame: the one figure that varies
        // Beyond the budget's 16 values the view prefetches to the store, and promotions read it back
        #expect(storeOnly > 0 && storeHits > 0, "store-only loads \(storeOnly), store hits \(storeHits)")
        #expect(first.peakMemoryBytes <= 16 << 20)
        #expect(first.displayReadyRate > withoutStore.displayReadyRate)
        #expect(first == second, "the same seed gives the same run with a store")
        configuration.storeReadSeconds = 0
        await #expect(throws: SimulationError.self) {
            try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.none), configuration: configuration)
        }
    }

    @Test func lowDataModeWastesFewerLoadsThanNormal() async throws {
        let scenario = StandardSuite.scenario(.repeatedFlings, layout: .grid)
        var configuration = SimulationConfiguration()
        let normal = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration)
        configuration.conditions = NetworkConditions(isConstrained: true)
        let constrained = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration)
        #expect(constrained.loadsWasted < normal.loadsWasted)
        #expect(constrained.loadsStarted < normal.loadsStarted)
        #expect(constrained.displayed == normal.displayed)
    }
}
