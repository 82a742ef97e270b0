import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// One scenario played on virtual time through the real `CollectionView` (or `TableView`),
/// Apple's sample's data source (``SampleApp``) and the real `AsyncFetcher`: the app loop of the
/// bench and of the demo over its simulated network, which differ only in their identifiers.
///
/// Each frame (a ``FrameDriver`` on virtual time) the `VirtualTimeLoop` finishes the simulated
/// loads due by then, one at a time in time order with the fetcher settling after each (retries
/// wait out the fetcher's `RetryPolicy` back-off on the same virtual clock), then the
/// ``GestureDriver`` gives the view its input and the view steps, calling the data source, the
/// prefetch data source and the delegate as an app's would be called. A ``ReadinessMeter``
/// measures. Latencies are drawn by item, so the same seed gives the same figures whatever the
/// identifiers are.
///
/// ```swift
/// import PrefetchKit
/// import PrefetchSimulation
///
/// let simulation = try Simulation(StandardSuite.scenario(.steady, layout: .grid), policy: PrefetchPolicies.uikitLike,
///                                 identifier: { "item \($0)" }, item: { Int($0.dropFirst(5)) ?? 0 }, value: { $0 })
/// let result = try await simulation.run()
/// print(result.displayReadyRate)
/// ```
@MainActor
public final class Simulation<ID: Hashable & Sendable, Value: Sendable> {
    /// The scenario played.
    let scenario: Scenario
    /// The settings.
    let configuration: SimulationConfiguration
    /// The fetcher, its simulated network and the virtual clock.
    let loop: VirtualTimeLoop<ID, Value>
    /// The view and its data source.
    public let app: SampleApp<ID, Value>
    /// Called whenever the loop is at rest: after every finished attempt and every frame.
    var onRest: (() -> Void)?

    /// A simulation of `scenario` with the view's `policy`; item `i` is loaded by `identifier(i)`,
    /// whose item is `item(id)` (latencies are drawn by item) and whose load returns `value(id)`,
    /// costing `cost(value)` in memory (by default `configuration.valueBytes`).
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public init(
        _ scenario: Scenario, policy: any PrefetchPolicy, configuration: SimulationConfiguration = SimulationConfiguration(),
        identifier: @escaping (Int) -> ID?, item: @escaping @Sendable (ID) -> Int,
        value: @escaping @Sendable (ID) -> Value, cost: (@Sendable (Value) -> Int)? = nil,
        onEvent: (@Sendable (FetchEvent<ID>) -> Void)? = nil
    ) throws {
        try scenario.validate()
        try configuration.validate()
        self.scenario = scenario
        self.configuration = configuration
        var fetcherConfiguration = FetcherConfiguration()
        fetcherConfiguration.maxConcurrentLoads = configuration.maxConcurrentLoads
        fetcherConfiguration.previewSlots = configuration.previewSlots
        fetcherConfiguration.cacheCountLimit = configuration.cacheCountLimit
        fetcherConfiguration.retry = configuration.retry
        fetcherConfiguration.memoryBudget = configuration.memoryBudgetBytes ?? .max
        let clock = ManualClock()
        let meter = ReadinessMeter(now: { clock.now.offset.seconds })
        do {
            loop = try VirtualTimeLoop(
                configuration: fetcherConfiguration, clock: clock, latency: configuration.latency, network: configuration.network,
                seed: configuration.seed, sizes: scenario.sizes(on: configuration.network), previews: configuration.previews,
                cost: cost ?? { [valueBytes = configuration.valueBytes] _ in valueBytes }, item: item, value: value,
                storeReadLatency: configuration.storeReadSeconds.map { .seconds(exactly: $0) },
                onEvent: { event in
                    meter.record(event, item: item)
                    onEvent?(event)
                })
        } catch let error as PrefetchError {
            throw SimulationError(error.message)
        }
        let sizes = scenario.sizes(on: configuration.network), seed = configuration.seed
        let view = try scenario.layout.makeView(viewport: scenario.viewport)
        view.bounces = scenario.bounces
        app = SampleApp(
            view: view, itemCount: scenario.layout.itemCount, fetcher: loop.fetcher,
            deliveries: loop.deliveries, meter: meter, identifier: identifier,
            expectedBytes: configuration.knowsPayloadSizes ? { sizes.bytes(item: $0, seed: seed) } : nil, rows: scenario.layout)
        app.use(configuration.toolkit)
        if scenario.selfSizing { app.selfSizeRows() }
        app.policy = policy
        app.networkConditions = configuration.conditions
        if configuration.previews.isEnabled { app.previewPlan = configuration.previewPlan }
    }

    /// The simulated network's latency; a change applies to the attempts that start afterwards.
    public var latency: LatencyModel {
        get { loop.network.latency }
        set { loop.network.latency = newValue }
    }

    /// Moves virtual time to `seconds` (not back), finishing the loads due by then.
    public func advance(to seconds: Double) async {
        await loop.advance(to: max(seconds, loop.now))
    }

    /// Waits until every load waits on the virtual clock and every completion has run.
    public func settle() async {
        await loop.settle()
    }

    /// Plays the scenario to its end (or `configuration.maxDuration`), calling `onFrame` after
    /// every frame but the first screen (it stops the run by returning false), then ends the run.
    public func run(onFrame: (FrameDriver.Frame) async throws -> Bool = { _ in true }) async throws -> SimulationResult {
        let (app, loop, meter) = (app, loop, app.meter)
        var gestures = GestureDriver(scenario.motion)
        gestures.app = app
        var frameTimes: [Double] = []
        var lastOffset = 0.0
        let wallClock = ContinuousClock()
        let driver = FrameDriver(frameRate: configuration.frameRate, tail: configuration.tail, duration: configuration.maxDuration)
        var pressures = configuration.memoryPressureAt.sorted()[...]
        let end = try await driver.play(
            &gestures, on: app.view,
            advance: { await loop.advance(to: $0, afterEach: { _ in self.onRest?() }) },
            step: { t in
                let started = wallClock.now
                app.step(to: t)
                if t > 0 { frameTimes.append(started.duration(to: wallClock.now).seconds * 1e6) }
                if let first = pressures.first, first <= t {
                    pressures = pressures.drop(while: { $0 <= t })
                    app.view.handleMemoryPressure()
                }
                await loop.settle()
            },
            afterFrame: { frame in
                if frame.index == 0 { meter.startCounting() }
                let view = app.view
                let offset = view.contentOffset.y
                meter.scrolling(view.isDragging || view.isDecelerating || view.isScrollAnimating || offset != lastOffset)
                lastOffset = offset
                self.onRest?()
                if frame.index % 3 == 0, frame.index > 0, meter.isRecordingTimeline {
                    let pending = app.plannedItemNumbers
                    meter.sampleFrame(visible: meter.visibleItems, prefetch: pending.min().flatMap { lo in pending.max().map { lo...$0 } })
                }
                return frame.index == 0 ? true : try await onFrame(frame)
            })
        app.finish()
        var result = meter.result(
            scenario: scenario.name, policy: app.policy.name, duration: end, bytes: loop.network.usage(over: end),
            frameTimes: frameTimes)
        result.peakMemoryBytes = app.fetcher.statistics.peakMemoryHeld
        return result
    }
}

/// What a simulated load returns: the item's data.
struct SimulatedData: Sendable, Hashable {
    var item: Int
}

/// Runs the bench's scenarios: ``Simulation``s on item numbers, and the clairvoyant references.
///
/// ```swift
/// import PrefetchKit
/// import PrefetchSimulation
///
/// let scenario = StandardSuite.scenario(.steady, layout: .grid)
/// let result = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive))
/// print(result.displayReadyRate)
/// ```
@MainActor
public enum Simulator {
    /// Runs one scenario under one policy.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func run(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration = SimulationConfiguration()
    ) async throws -> SimulationResult {
        try await run(scenario, policy: policy, configuration: configuration, recordsTimeline: false).result
    }

    /// Runs one scenario under one policy; with `recordsTimeline`, keeps the timeline for a report.
    static func run(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration, recordsTimeline: Bool
    ) async throws -> (result: SimulationResult, timeline: SimulationTimeline) {
        var planned: [Appearance]?
        if policy.lookahead != nil {
            // The reference's recording pass: the same view and motion, nothing loads; it learns
            // when each item first appears.
            let recording = try simulation(scenario, configuration: configuration, policy: PrefetchPolicies.none, recording: true)
            var appearances: [(time: Double, item: Int)] = []
            recording.app.onAppear = { [loop = recording.loop] in appearances.append((loop.now, $0)) }
            _ = try await recording.run()
            planned = ClairvoyantPlanner.firstAppearances(appearances)
        }
        var viewPolicy: any PrefetchPolicy = PrefetchPolicies.none
        if case .policy(let p) = policy { viewPolicy = p }
        let simulation = try simulation(scenario, configuration: configuration, policy: viewPolicy, recordsTimeline: recordsTimeline)
        // A peer loads through its own prefetcher, which the view holds weakly: kept to the end.
        let peer = try (viewPolicy as? PeerPolicy)?.model.install(on: simulation)
        if let planned {
            let planner = ClairvoyantPlanner(
                schedule: planned, loop: simulation.loop, cap: configuration.maxConcurrentLoads, horizon: configuration.cacheCountLimit / 2,
                lookahead: policy.lookahead.flatMap { $0.isFinite ? $0 : nil })
            simulation.onRest = { planner.topUp() }
        }
        var result = try await simulation.run()
        peer?.stop()
        result.policy = policy.name
        result.blankLowerBound = try await blankLowerBound(scenario, configuration: configuration)
        var timeline = simulation.app.meter.timeline
        timeline.itemCount = scenario.layout.itemCount
        return (result, timeline)
    }

    /// The on-screen intervals of each scenario's counted appearances, by what they depend on:
    /// the scroll is the trace's, whatever the policy, so one recording serves every policy.
    private static var recordedIntervals: [IntervalsKey: [BlankTimeBound.Interval]] = [:]

    /// What a recording's intervals depend on.
    private struct IntervalsKey: Hashable {
        var scenario: Scenario
        var frameRate, tail, maxDuration: Double
    }

    /// Each bound worked out, by what it depends on: the policy is not part of it, so the runs of
    /// one scenario under every policy share one bound (it takes longer to work out than a run).
    private static var bounds: [BoundKey: Double] = [:]

    /// What a bound depends on: the intervals, the link and payload sizes, the seed that draws
    /// the sizes, the previews' share and the latency model's floor.
    private struct BoundKey: Hashable {
        var intervals: IntervalsKey
        var network: NetworkModel
        var seed: UInt64
        var previews: PreviewSource
        var distribution: LatencyModel.Distribution
    }

    /// The lower bound on blank cell-seconds of `scenario` on the configuration's shared link
    /// (`BlankTimeBound`), or nil under independent latencies. The intervals come from a
    /// recording pass, where nothing loads: every counted cell is blank from its appearance until
    /// it leaves, so the meter's blank periods are the on-screen intervals.
    static func blankLowerBound(_ scenario: Scenario, configuration: SimulationConfiguration) async throws -> Double? {
        guard case .shared(let link) = configuration.network else { return nil }
        let key = IntervalsKey(
            scenario: scenario, frameRate: configuration.frameRate, tail: configuration.tail, maxDuration: configuration.maxDuration)
        let boundKey = BoundKey(
            intervals: key, network: configuration.network, seed: configuration.seed, previews: configuration.previews,
            distribution: configuration.latency.distribution)
        if let known = bounds[boundKey] { return known }
        let intervals: [BlankTimeBound.Interval]
        if let known = recordedIntervals[key] {
            intervals = known
        } else {
            let recording = try simulation(scenario, configuration: configuration, policy: PrefetchPolicies.none, recording: true)
            recording.app.meter.recordTimeline()
            _ = try await recording.run()
            intervals = recording.app.meter.timeline.blanks.map { .init(item: $0.item, start: $0.start, end: $0.end) }
            recordedIntervals[key] = intervals
        }
        let sizes = scenario.sizes(on: configuration.network), seed = configuration.seed, previews = configuration.previews
        // The shortest round trip the latency model can draw: a log-normal has no floor above 0.
        let minRoundTrip: Double
        switch configuration.latency.distribution {
        case .fixed(let d), .bandwidth(let d, _): minRoundTrip = LatencyModel.seconds(d)
        case .logNormal: minRoundTrip = 0
        }
        let bound = BlankTimeBound.lowerBound(
            intervals: intervals, bytes: { previews.previewBytes(of: sizes.bytes(item: $0, seed: seed)) },
            capacity: link.capacityBytesPerSecond, minRoundTrip: minRoundTrip)
        bounds[boundKey] = bound
        return bound
    }

    /// The bench's simulation of `scenario`: items are their own identifiers. A recording pass
    /// loads nothing (every cell waits for a model that never comes) and the view does not prefetch.
    static func simulation(
        _ scenario: Scenario, configuration: SimulationConfiguration, policy: any PrefetchPolicy, recordsTimeline: Bool = false,
        recording: Bool = false
    ) throws -> Simulation<Int, SimulatedData> {
        let simulation = try Simulation(
            scenario, policy: policy, configuration: configuration, identifier: { recording ? nil : $0 }, item: { $0 },
            value: { SimulatedData(item: $0) })
        if recordsTimeline { simulation.app.meter.recordTimeline() }
        if recording { simulation.app.isPrefetchingEnabled = false }
        return simulation
    }
}
