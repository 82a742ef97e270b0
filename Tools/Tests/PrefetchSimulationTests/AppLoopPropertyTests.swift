import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// The whole app loop (view, Apple's sample's data source, the real fetcher, the meter) over
/// random gestures, item counts, layouts, caps, policies and latencies.
///
/// The oracle reads only what is outside the fetcher: the network's calls (the loads that really
/// run), the view's public state (visible and prepared cells, its prefetch window) and the cells'
/// contents.
@Suite("The app loop's invariants")
@MainActor
struct AppLoopPropertyTests {
    struct Case: CustomStringConvertible {
        var scenario: Scenario
        var configuration: SimulationConfiguration
        var policy: any PrefetchPolicy
        var description: String { "\(scenario.name) \(policy.name) cap \(configuration.maxConcurrentLoads) \(configuration.latency)" }
    }

    /// A random case from `seed`.
    static func randomCase(_ seed: UInt64) throws -> Case {
        var random = SplitMix64(seed: seed)
        let itemCount = Int.random(in: 1...400, using: &random)
        let layout: ScenarioLayout = Bool.random(using: &random)
            ? ScenarioLayout(kind: .grid, itemCount: itemCount, itemWidth: Double.random(in: 40...200, using: &random),
                             itemHeight: Double.random(in: 20...150, using: &random), spacing: Double.random(in: 0...12, using: &random),
                             sectionInset: Double.random(in: 0...12, using: &random))
            : ScenarioLayout(kind: .list, itemCount: itemCount, itemWidth: 0, itemHeight: Double.random(in: 20...120, using: &random), spacing: 0)
        let viewport = Viewport(width: Double.random(in: 200...420, using: &random), height: Double.random(in: 150...700, using: &random))
        var gestures: [ScrollGesture] = []
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: gestures.append(.drag(speed: Double.random(in: -1_500...1_500, using: &random), duration: Double.random(in: 0.1...1.5, using: &random)))
            case 1: gestures.append(.fling(velocity: Double.random(in: -9_000...9_000, using: &random)))
            case 2: gestures.append(.jump(item: Int.random(in: 0..<itemCount, using: &random)))
            default: gestures.append(.pause(duration: Double.random(in: 0...0.6, using: &random)))
            }
        }
        var configuration = SimulationConfiguration()
        configuration.seed = seed
        configuration.maxConcurrentLoads = Int.random(in: 1...6, using: &random)
        configuration.latency = Bool.random(using: &random)
            ? try LatencyModel(.fixed(.seconds(Double.random(in: 0.005...0.6, using: &random))))
            : try LatencyModel(.logNormal(median: .seconds(Double.random(in: 0.02...0.2, using: &random)), p99: .seconds(Double.random(in: 0.3...0.8, using: &random))))
        // Long enough for every load of a visible cell to finish after the motion stops.
        configuration.tail = 12
        let policies: [any PrefetchPolicy] = [PrefetchPolicies.none, PrefetchPolicies.uikitLike, PrefetchPolicies.textureLike, PrefetchPolicies.adaptive]
        let policy = policies[Int.random(in: 0..<policies.count, using: &random)]
        let scenario = Scenario(name: "random-\(seed)", layout: layout, viewport: viewport, motion: .gestures(gestures), payloadBytes: 0)
        return Case(scenario: scenario, configuration: configuration, policy: policy)
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func invariantsHoldOnARandomRun(seed: UInt64) async throws {
        let c = try Self.randomCase(seed)
        var problems: [String] = []
        var checks = 0
        var runningSeen = 0
        var lastView: ItemScrollView?
        // The controller's plan, kept from the updates the view delivers: what is requested and not withdrawn.
        var plan = Set<Int>()
        let run = try Simulator.simulation(c.scenario, configuration: c.configuration, policy: c.policy)
        let spy = UpdateSpy(run.app.prefetchTarget) { update in
            for item in update.removed { plan.remove(item.item) }
            let moved = update.moved.filter { plan.remove($0.from.item) != nil }
            for move in moved { plan.insert(move.to.item) }
            for item in update.withdrawals { plan.remove(item.item) }
            for request in update.requests { plan.insert(request.item.item) }
        }
        try #require(run.app.prefetcher).controller.target = spy
        run.onRest = {
            lastView = run.app.view
            checks += 1
            problems += Self.violations(run, plan: plan, cap: c.configuration.maxConcurrentLoads)
            runningSeen = max(runningSeen, run.loop.network.occupancy.waiting)
        }
        _ = try await run.run()
        withExtendedLifetime(spy) {}
        // Every visible cell eventually shows its own item's data.
        _ = try #require(lastView)
        for (item, cell) in Self.cells(run.app) where cell.isDisplayed && cell.content.data?.item != item {
            problems.append("at the end, visible item \(item) shows \(String(describing: cell.content.data))")
        }
        if !problems.isEmpty {
            Issue.record("\(c): \(problems.count) violations, first: \(problems.prefix(3).joined(separator: "; "))")
        }
        #expect(checks > 0)
        #expect(runningSeen > 0, "\(c): no load ever ran")
        #expect(run.app.meter.readiness.peakInFlight <= c.configuration.maxConcurrentLoads)
    }

    /// The cells the view holds now (visible and prepared), by the item the view placed them at.
    static func cells(_ app: SampleApp<Int, SimulatedData>) -> [Int: any SampleCell<Int, SimulatedData>] {
        var cells: [Int: any SampleCell<Int, SimulatedData>] = [:]
        for cell in app.cells.values { if let indexPath = cell.indexPath { cells[indexPath.item] = cell } }
        return cells
    }

    /// What is wrong with the loop at rest, given the controller's plan.
    static func violations(_ simulation: Simulation<Int, SimulatedData>, plan: Set<Int>, cap: Int) -> [String] {
        var problems: [String] = []
        let network = simulation.loop.network
        let held = network.occupancy
        // Loads never exceed the cap: the network never holds more loads than the cap.
        if held.waiting + held.backingOff > cap { problems.append("\(held.waiting + held.backingOff) loads run, cap \(cap)") }
        let cells = cells(simulation.app)
        for (item, cell) in cells {
            // A cell never shows another item's data.
            if let data = cell.content.data, data.item != item { problems.append("the cell of item \(item) shows item \(data.item)") }
            // A cell the view holds for an item holds a consumer only for that item.
            if cell.content.isLoading, cell.content.identifier != item {
                problems.append("the cell of item \(item) holds a consumer for \(String(describing: cell.content.identifier))")
            }
        }
        // No load runs without an interest, and a load whose item left the plan and whose cell
        // was reused has been withdrawn: every running load is for an item in the controller's
        // plan, or for an item a cell of the view shows or waits for.
        for item in network.deadlines.keys.sorted() {
            let wanted = plan.contains(item) || cells[item].map { $0.content.isLoading || $0.content.identifier == item } == true
            if !wanted { problems.append("item \(item) loads, but it is neither in the plan \(plan.sorted().prefix(8)) nor on a cell") }
        }
        return problems
    }
}

/// The app's prefetch target, seen from outside: each update goes to `onUpdate` first.
final class UpdateSpy: PrefetchTarget {
    let base: any PrefetchTarget<IndexPath>
    let onUpdate: (PrefetchUpdate<IndexPath>) -> Void

    init(_ base: any PrefetchTarget<IndexPath>, onUpdate: @escaping (PrefetchUpdate<IndexPath>) -> Void) {
        self.base = base
        self.onUpdate = onUpdate
    }

    func updatePrefetching(_ update: PrefetchUpdate<IndexPath>) {
        onUpdate(update)
        base.updatePrefetching(update)
    }

    var expectedLatency: Duration? { base.expectedLatency }
    var typicalLatency: Duration? { base.typicalLatency }
    func typicalLatency(of item: IndexPath) -> Duration? { base.typicalLatency(of: item) }
    var prefetchCapacity: Int? { base.prefetchCapacity }
    var acceptsStoreDestination: Bool { base.acceptsStoreDestination }
    func trimMemory(keeping items: [IndexPath]) { base.trimMemory(keeping: items) }
}
