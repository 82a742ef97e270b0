import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// The app loop on virtual time: a real ``PrefetchKit/AsyncFetcher`` on a `ManualClock`,
/// loading from a `SimulatedNetwork`, and a driver that moves time only when everything is at rest.
///
/// ``Simulation`` runs on it (the bench, and the demo over the simulated network); a
/// ``FrameDriver`` plays the frames, calling ``advance(to:afterEach:)`` before each. Time moves in
/// ``advance(to:afterEach:)``: the due events (attempts reaching their deadline, retry back-offs
/// ending on the clock) are taken one at a time in time order, and after each the loop waits
/// until the fetcher has settled (``settle(delivering:)``): every running load waits in the
/// network or sleeps in a back-off, finished loads are processed, and every completion handler
/// made with ``deliveries`` has run its main-actor work. The
/// loop waits on signals, never polls or sleeps, so thread timing cannot change what happens
/// and the same seed gives the same run.
@MainActor
final class VirtualTimeLoop<ID: Hashable & Sendable, Value: Sendable> {
    /// The virtual clock: the fetcher measures latencies and waits out back-offs on it.
    let clock: ManualClock
    /// Wakes the loop when something it waits for changed.
    package let signal: ChangeSignal
    /// The completion handlers a data source gives the fetcher: the loop waits for them.
    let deliveries: MainActorDeliveries<ID>
    /// The loader.
    let network: SimulatedNetwork<ID, Value>
    /// The fetcher the app uses.
    let fetcher: AsyncFetcher<ID, Value>
    /// The fetcher's data store (its reads take time on the clock), if it has one.
    let store: SimulatedStore<ID, Value>?

    /// Creates the loop and its fetcher.
    ///
    /// - Parameters:
    ///   - configuration: the fetcher's settings; its retry policy's shortest back-off must be
    ///     at least 1 µs, so every back-off sleeps on the clock.
    ///   - clock: the virtual clock, at time zero; nothing else may sleep on it.
    ///   - model: independent latencies, or one shared link.
    ///   - sizes: each item's payload size.
    ///   - previews: where items' previews come from (none by default).
    ///   - item: the item index of an id (draws are keyed by it).
    ///   - value: the value a successful load of an id returns.
    ///   - storeReadLatency: with a value, the fetcher has a `SimulatedStore` whose reads take that long.
    ///   - onEvent: called for every fetcher event, after the network has recorded it.
    /// - Throws: ``SimulationError`` naming a retry setting out of range, or the fetcher's
    ///   `PrefetchError` for an invalid configuration.
    init(
        configuration: FetcherConfiguration, clock: ManualClock = ManualClock(), latency: LatencyModel, network model: NetworkModel = .independent,
        seed: UInt64, sizes: PayloadSizes = .fixed(0), previews: PreviewSource = .none,
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        item: @escaping @Sendable (ID) -> Int, value: @escaping @Sendable (ID) -> Value,
        storeReadLatency: Duration? = nil, onEvent: (@Sendable (FetchEvent<ID>) -> Void)? = nil
    ) throws {
        try Self.validate(configuration.retry)
        try sizes.validate()
        let signal = ChangeSignal()
        self.clock = clock
        self.signal = signal
        deliveries = MainActorDeliveries(signal: signal)
        let network = SimulatedNetwork(
            latency: latency, model: model, seed: seed, sizes: sizes, previews: previews, retry: configuration.retry, clock: clock,
            signal: signal, item: item, value: value)
        self.network = network
        let store = storeReadLatency.map { SimulatedStore(readLatency: $0, clock: clock, signal: signal, item: item, value: value) }
        self.store = store
        fetcher = try AsyncFetcher(configuration: configuration, clock: clock, store: store, cost: cost, onEvent: { event in
            network.record(store?.record(event) ?? event)
            onEvent?(event)
            signal.bump()
        }, loader: network)
    }

    /// Refuses a retry policy whose back-off could be zero: a zero back-off would not sleep on
    /// the clock, and the loop could not tell it from one still on its way.
    nonisolated static func validate(_ retry: RetryPolicy) throws {
        guard retry.maxAttempts > 1 else { return }
        let shortest = retry.delay(afterAttempt: 1, random: 1)
        guard shortest >= .microseconds(1) else {
            throw SimulationError(
                "retry back-off can be \(shortest) (initialDelay \(retry.initialDelay), jitter \(retry.jitter)), but on virtual time every back-off must be at least 1 µs")
        }
    }

    /// The virtual time, in seconds.
    var now: Double { clock.now.offset.seconds }

    /// Waits until the fetcher is at rest: every running load (by the fetcher's events) waits in
    /// the network, reads from the store or sleeps in a back-off, and every consumer made with ``deliveries`` that has been called has run its
    /// main-actor work; with `id`, also until every consumer of `id` has heard.
    func settle(delivering id: ID? = nil) async {
        while true {
            let version = signal.version
            let held = network.occupancy
            // The events' count of running loads lags the fetcher's own (a finished load's event
            // comes before the start of the load that takes its slot), so both must agree.
            let atRest = held.waiting + held.backingOff + (store?.pendingReads ?? 0) == held.running
                && held.inTransit == 0 && held.undrawn == 0 && held.finishing == 0
                && signal.pendingDeliveries == 0
                && !(id.map { deliveries.hasLiveConsumers($0) } ?? false)
                && fetcher.statistics.inFlight == held.running
            if atRest {
                // Back-offs are on their way to the clock; nothing else moves.
                if held.backingOff > 0 { await clock.waitForSleepers(held.backingOff) }
                return
            }
            await signal.wait(after: version)
        }
    }

    /// Moves virtual time to `seconds` (finite, at least 0; a time already past leaves the clock
    /// where it is), taking every due event in time order (a back-off that ends before or with an
    /// attempt's deadline first), settling after each, then calling `afterEach` with the id of the
    /// attempt that ended (nil after a back-off) and settling again (so `afterEach` may start loads).
    func advance(to seconds: Double, afterEach: (ID?) -> Void = { _ in }) async {
        precondition(seconds.isFinite && seconds >= 0, "advance(to:) is \(seconds) s, but it must be a finite number of seconds, at least 0")
        let limit = Duration.seconds(exactly: seconds)
        await settle()
        // The frame's requests are in: on a link that shares by priority, urgencies follow them.
        network.refreshUrgencies()
        while true {
            let backOff = clock.nextDeadline.map(\.offset)
            let attempt = network.nextDeadline
            let read = store?.nextDeadline
            if let backOff, backOff <= limit, attempt.map({ backOff <= $0 }) ?? true, read.map({ backOff <= $0 }) ?? true {
                let sleeping = clock.sleeperCount
                clock.advance(to: ManualClock.Instant(offset: backOff))
                network.wokeBackOffs(sleeping - clock.sleeperCount)
                await settle()
                afterEach(nil)
            } else if let read, read <= limit, attempt.map({ read < $0 }) ?? true, let id = store?.completeNext(upTo: limit) {
                // A store read ended (an attempt due at the same time goes first).
                await settle(delivering: id)
                afterEach(id)
            } else if let ended = network.completeNext(upTo: limit) {
                // A round trip ended and its transfer began: nothing for the fetcher.
                guard let id = ended.id else { continue }
                await settle(delivering: ended.loadEnded ? id : nil)
                afterEach(id)
            } else {
                break
            }
            await settle()
        }
        clock.advance(to: ManualClock.Instant(offset: limit))
    }
}
