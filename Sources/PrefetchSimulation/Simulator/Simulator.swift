import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchTesting

/// Replays a ``Scenario`` on virtual time through the real `CollectionView` (or `TableView`),
/// Apple's sample's data source and the real `AsyncFetcher`, and measures what a user would see.
///
/// The run is the app loop of ``VirtualTimeLoop``: each frame the loop finishes the simulated
/// loads due by then, one at a time in time order with the fetcher settling after each
/// (retries wait out the fetcher's `RetryPolicy` back-off on the same virtual clock), then the
/// ``GestureDriver`` gives the view its input and the view steps, calling the data source, the
/// prefetch data source and the delegate exactly as an app's would be called. A
/// ``ReadinessMeter`` measures. The same seed gives the same numbers.
///
/// ```swift
/// let scenario = StandardSuite.scenario(.steady, layout: .grid)
/// let result = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.Adaptive.standard))
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

    /// Runs one scenario under one policy and keeps the timeline for a report.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func runWithTimeline(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration = SimulationConfiguration()
    ) async throws -> (result: SimulationResult, timeline: SimulationTimeline) {
        try await run(scenario, policy: policy, configuration: configuration, recordsTimeline: true)
    }

    private static func run(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration, recordsTimeline: Bool
    ) async throws -> (result: SimulationResult, timeline: SimulationTimeline) {
        try scenario.validate()
        try configuration.validate()
        var planned: [Appearance]?
        if policy.lookahead != nil {
            // The reference's recording pass: the same view and motion, nothing loads; it learns
            // when each item first appears.
            let recording = try await play(scenario, configuration: configuration, policy: PrefetchPolicies.none, recording: true)
            planned = ClairvoyantPlanner.firstAppearances(recording.app.appearances)
        }
        let viewPolicy: any PrefetchPolicy
        switch policy {
        case .policy(let p): viewPolicy = p
        case .clairvoyant, .shortSightedClairvoyant: viewPolicy = PrefetchPolicies.none
        }
        let lookahead = policy.lookahead.flatMap { $0.isFinite ? $0 : nil }
        let run = try await play(
            scenario, configuration: configuration, policy: viewPolicy, recordsTimeline: recordsTimeline, schedule: planned,
            lookahead: lookahead)
        var timeline = run.app.meter.timeline
        timeline.itemCount = scenario.layout.itemCount
        let result = SimulationResult(
            scenario: scenario.name, policy: policy.name, readiness: run.app.meter.readiness, duration: run.end,
            payloadBytes: scenario.payloadBytes, frameTimes: run.frameTimes)
        return (result, timeline)
    }

    /// One pass of the app loop over `scenario`.
    ///
    /// `inspect` sees the app, the view and the loop whenever they are at rest: after every
    /// finished attempt and every frame (the property tests check their invariants there).
    static func play(
        _ scenario: Scenario, configuration: SimulationConfiguration, policy: any PrefetchPolicy, recording: Bool = false,
        recordsTimeline: Bool = false, schedule: [Appearance]? = nil, lookahead: Double? = nil,
        inspect: ((SimulatedApp, ItemScrollView) -> Void)? = nil, onPrefetchUpdate: ((PrefetchUpdate<IndexPath>) -> Void)? = nil
    ) async throws -> (app: SimulatedApp, end: Double, frameTimes: [Double]) {
        var fetcherConfiguration = FetcherConfiguration()
        fetcherConfiguration.maxConcurrentLoads = configuration.maxConcurrentLoads
        fetcherConfiguration.cacheCountLimit = configuration.cacheCountLimit
        fetcherConfiguration.retry = configuration.retry
        let clock = ManualClock()
        let now: @Sendable () -> Double = { clock.now.offset.seconds }
        let meter = ReadinessMeter(recordsTimeline: recordsTimeline, now: now)
        let loop: SimulatedApp.Loop
        do {
            loop = try VirtualTimeLoop(
                configuration: fetcherConfiguration, clock: clock, latency: configuration.latency, seed: configuration.seed,
                payloadBytes: scenario.payloadBytes, item: { $0 }, value: { SimulatedData(item: $0) },
                onEvent: { event in meter.record(event, item: { $0 }) })
        } catch let error as PrefetchError {
            throw SimulationError(error.message)
        }
        let app = SimulatedApp(loop: recording ? nil : loop, meter: meter, itemCount: scenario.layout.itemCount, now: now)
        app.prefetcher?.onUpdate = onPrefetchUpdate
        let (view, sources) = try makeView(scenario, app: app)
        view.prefetchPolicy = policy
        let planner = schedule.map {
            ClairvoyantPlanner(
                schedule: $0, loop: loop, cap: configuration.maxConcurrentLoads, horizon: configuration.cacheCountLimit / 2, lookahead: lookahead)
        }
        var gestures = GestureDriver(scenario.motion)
        var frameTimes: [Double] = []
        var lastOffset = 0.0
        let wallClock = ContinuousClock()
        let end = try await loop.play(
            &gestures, on: view, frameRate: configuration.frameRate, tail: configuration.tail, duration: configuration.maxDuration,
            step: { t in
                let started = wallClock.now
                app.releasePooledConsumers()
                view.step(to: t)
                app.releasePooledConsumers()
                if t > 0 { frameTimes.append(started.duration(to: wallClock.now).seconds * 1e6) }
            },
            afterLoad: { _ in
                planner?.topUp()
                inspect?(app, view)
            },
            afterFrame: { frame in
                if frame.index == 0 { meter.startCounting() }
                let offset = view.contentOffset.y
                meter.scrolling(view.isDragging || view.isDecelerating || view.isScrollAnimating || offset != lastOffset)
                lastOffset = offset
                planner?.topUp()
                inspect?(app, view)
                if recordsTimeline, frame.index % 3 == 0, frame.index > 0 {
                    let pending = view.indexPathsPendingPrefetch.map(\.item)
                    meter.sampleFrame(visible: meter.visibleItems, prefetch: pending.min().flatMap { lo in pending.max().map { lo...$0 } })
                }
                return true
            })
        meter.finish(stillPlanned: view.indexPathsPendingPrefetch.map(\.item))
        loop.fetcher.shutdown()
        withExtendedLifetime(sources) {}
        return (app, end, frameTimes)
    }

    /// The scenario's view, wired to `app`; the sources are returned to be kept alive (the
    /// view holds them weakly, as UIKit does).
    private static func makeView(_ scenario: Scenario, app: SimulatedApp) throws -> (ItemScrollView, AnyObject) {
        switch try scenario.layout.makeView(viewport: scenario.viewport) {
        case .collection(let collectionView):
            let source = SimulatedGridSource(app: app)
            collectionView.register(SimulatedGridCell.self, forCellWithReuseIdentifier: SimulatedGridCell.reuseIdentifier)
            collectionView.dataSource = source
            collectionView.prefetchDataSource = app.prefetcher
            collectionView.delegate = source
            return (collectionView, source)
        case .table(let tableView):
            let source = SimulatedListSource(app: app)
            tableView.register(SimulatedListCell.self, forCellReuseIdentifier: SimulatedListCell.reuseIdentifier)
            tableView.dataSource = source
            tableView.prefetchDataSource = app.prefetcher
            tableView.delegate = source
            return (tableView, source)
        }
    }
}
