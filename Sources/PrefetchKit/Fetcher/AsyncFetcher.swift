/// Loads values by id ahead of need: coalesced, prioritised, capped, cached and cancellable.
///
/// `AsyncFetcher` keeps the shape of the `AsyncFetcher` in Apple's prefetching sample, so a
/// data source ports as written, and adds an `async` API:
///
/// ```swift
/// let fetcher = try AsyncFetcher<UUID, DisplayData> { id in try await api.displayData(for: id) }
///
/// // UIKit-style, from a prefetch data source and cellForItemAt:
/// fetcher.fetchAsync(id)                                  // prefetch
/// if let data = fetcher.fetchedData(for: id) { cell.configure(with: data) }
/// else { fetcher.fetchAsync(id) { result in /* hop to the main actor, check the cell */ } }
/// fetcher.cancelFetch(id)                                 // withdraw the prefetch
///
/// // Swift concurrency:
/// fetcher.prefetch(ids)
/// let data = try await fetcher.value(for: id)
/// ```
///
/// The interest model: a load runs while at least one interest holds it. A prefetch is one
/// interest (set by ``prefetch(_:priority:)`` or ``fetchAsync(_:priority:completion:)`` without a
/// completion; withdrawn by ``cancelFetch(_:)`` or ``cancelPrefetching(_:)``). Every consumer, a
/// completion handler or an awaiting task, is another, withdrawn only by that consumer. So
/// cancelling a prefetch never strands a cell that attached a handler to it. Each consumer
/// hears exactly once: the value, the error, or `CancellationError`.
///
/// Coordination is a ``FetchScheduler`` behind one lock; callbacks, task starts and
/// cancellations run after the lock is released.
public final class AsyncFetcher<ID: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The result given to a completion handler.
    public typealias Completion = @Sendable (Result<Value, any Error>) -> Void

    enum Consumer: Sendable {
        case handler(Completion)
        case continuation(CheckedContinuation<Value, any Error>)

        func resume(_ result: Result<Value, any Error>) {
            switch self {
            case .handler(let body): body(result)
            case .continuation(let c): c.resume(with: result)
            }
        }
    }

    @usableFromInline
    struct State: Sendable {
        var scheduler: FetchScheduler<ID>
        @usableFromInline var cache: MemoryCache<ID, Value>
        /// Whether anyone listens to events; when not, none are built.
        let observing: Bool
        var consumers: [FetchScheduler<ID>.ConsumerID: Consumer] = [:]
        var cancelledEarly: Set<FetchScheduler<ID>.ConsumerID> = []
        var tasks: [FetchScheduler<ID>.LoadID: Task<Void, Never>] = [:]
        var nextConsumer: UInt64 = 0
        var stats = FetchStatistics()
        var latency: LatencyWindow
        var random: SplitMix64
        var isShutdown = false
    }

    private enum Fast { case value(Value), failure(any Error), wait(FetchScheduler<ID>.ConsumerID) }

    /// A side effect decided under the lock and performed after it.
    private enum Effect: Sendable {
        case start(ID, FetchScheduler<ID>.LoadID)
        case cancelTask(Task<Void, Never>?)
        case resume(Consumer, Result<Value, any Error>)
        case event(FetchEvent<ID>)
    }

    @usableFromInline let state: Locked<State>
    private let loader: any DataLoader<ID, Value>
    private let store: (any DataStore<ID, Value>)?
    private let clock: ErasedClock
    private let retry: RetryPolicy
    private let onEvent: (@Sendable (FetchEvent<ID>) -> Void)?
    private let cost: @Sendable (Value) -> Int

    /// The configuration the fetcher was created with.
    public let configuration: FetcherConfiguration

    /// Creates a fetcher that loads with `loader`.
    ///
    /// - Parameters:
    ///   - configuration: limits and retries; checked here.
    ///   - clock: the clock for retry waits and latency measurements (a `ManualClock` in tests).
    ///   - store: a second-level store consulted before the loader and filled after it.
    ///   - cost: the memory-cache cost of a value (for example its byte count); must not be negative.
    ///   - onEvent: called for every ``FetchEvent``, outside the fetcher's lock.
    ///   - loader: loads one value.
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` naming a value out of range.
    public init<C: Clock>(
        configuration: FetcherConfiguration = FetcherConfiguration(),
        clock: C = ContinuousClock(),
        store: (any DataStore<ID, Value>)? = nil,
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        onEvent: (@Sendable (FetchEvent<ID>) -> Void)? = nil,
        loader: some DataLoader<ID, Value>
    ) throws where C.Duration == Duration {
        try configuration.validate()
        self.configuration = configuration
        self.loader = loader
        self.store = store
        self.clock = ErasedClock(clock)
        self.retry = configuration.retry
        self.onEvent = onEvent
        self.cost = cost
        // Costs are computed before the lock is taken (`finish`), so the cache never calls `cost` itself.
        let cache = try MemoryCache<ID, Value>(
            countLimit: configuration.cacheCountLimit, costLimit: configuration.cacheCostLimit)
        self.state = Locked(State(
            scheduler: FetchScheduler(maxConcurrentLoads: configuration.maxConcurrentLoads),
            cache: cache,
            observing: onEvent != nil,
            latency: try LatencyWindow(capacity: configuration.latencySamples),
            random: SplitMix64(seed: configuration.randomSeed)))
    }

    /// Creates a fetcher that loads with a closure.
    ///
    /// ```swift
    /// let fetcher = try AsyncFetcher<Int, String> { id in "value \(id)" }
    /// ```
    public convenience init<C: Clock>(
        configuration: FetcherConfiguration = FetcherConfiguration(),
        clock: C = ContinuousClock(),
        store: (any DataStore<ID, Value>)? = nil,
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        onEvent: (@Sendable (FetchEvent<ID>) -> Void)? = nil,
        load: @escaping @Sendable (ID) async throws -> Value
    ) throws where C.Duration == Duration {
        try self.init(configuration: configuration, clock: clock, store: store, cost: cost,
                      onEvent: onEvent, loader: ClosureLoader(load))
    }

    // MARK: The seeds' API

    /// Returns the cached value for `id`, if any, and marks it recently used.
    ///
    /// Synchronous and cheap (one lock and one hash look-up), for `cellForItemAt` on every frame.
    /// - Complexity: O(1)
    @inlinable
    public func fetchedData(for id: ID) -> Value? {
        state.withLock { $0.cache.value(forKey: id) }
    }

    /// Starts loading `id` if it is not cached or loading already.
    ///
    /// Without a completion this is a prefetch: it sets the prefetch interest (at `priority`,
    /// default ``FetchPriority/prefetch``), which ``cancelFetch(_:)`` withdraws. With a completion
    /// it adds a consumer (default priority ``FetchPriority/visible``) that hears exactly once:
    /// at once from the cache, or when the load ends, with the value, the error, or
    /// `CancellationError` (after ``shutdown()``, or if the handle's ``FetchHandle/cancel()`` is called).
    /// The completion runs on the task that finished the load: hop to the main actor for UI work.
    ///
    /// - Returns: a handle that withdraws this consumer; `nil` for a prefetch or a cache hit.
    @discardableResult
    public func fetchAsync(_ id: ID, priority: FetchPriority? = nil, completion: Completion? = nil) -> FetchHandle? {
        guard let completion else {
            prefetch(CollectionOfOne(id), priority: priority ?? .prefetch)
            return nil
        }
        var consumerID: FetchScheduler<ID>.ConsumerID?
        let effects = state.withLock { s -> [Effect] in
            if s.isShutdown {
                return [.resume(.handler(completion), .failure(Self.shutdownError(id)))]
            }
            s.stats.requests += 1
            if let value = s.cache.value(forKey: id) {
                s.stats.cacheHits += 1
                return [.resume(.handler(completion), .success(value)), .event(.cacheHit(id))]
            }
            let c = Self.newConsumer(&s)
            consumerID = c
            s.consumers[c] = .handler(completion)
            return Self.request(&s, id, .consumer(c), priority ?? .visible)
        }
        perform(effects)
        guard let consumerID else { return nil }
        return FetchHandle { [weak self] in self?.releaseConsumer(id, consumerID) }
    }

    /// Withdraws the prefetch interest in `id`. Consumers keep their load; with none, the load is cancelled.
    ///
    /// A no-op for an id that is not prefetched.
    public func cancelFetch(_ id: ID) {
        cancelPrefetching(CollectionOfOne(id))
    }

    // MARK: The async API

    /// Returns the value for `id`: from the cache, by joining a load in progress, or by starting one.
    ///
    /// Honours task cancellation: cancelling the calling task withdraws this consumer (and the
    /// load, if nothing else wants it) and throws `CancellationError`.
    /// - Throws: the loader's error after any retries, `CancellationError`, or ``PrefetchError``
    ///   with code ``PrefetchError/Code/shutdown`` after ``shutdown()``.
    public func value(for id: ID, priority: FetchPriority = .visible) async throws -> Value {
        let fast = state.withLock { s -> Fast in
            if s.isShutdown { return .failure(Self.shutdownError(id)) }
            if let value = s.cache.value(forKey: id) {
                s.stats.requests += 1
                s.stats.cacheHits += 1
                return .value(value)
            }
            return .wait(Self.newConsumer(&s))
        }
        let consumer: FetchScheduler<ID>.ConsumerID
        switch fast {
        case .value(let v): emit(.cacheHit(id)); return v
        case .failure(let e): throw e
        case .wait(let c): consumer = c
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let effects = state.withLock { s -> [Effect] in
                    if s.cancelledEarly.remove(consumer) != nil {
                        return [.resume(.continuation(continuation), .failure(CancellationError()))]
                    }
                    if s.isShutdown {
                        return [.resume(.continuation(continuation), .failure(Self.shutdownError(id)))]
                    }
                    s.stats.requests += 1
                    if let value = s.cache.value(forKey: id) {
                        s.stats.cacheHits += 1
                        return [.resume(.continuation(continuation), .success(value))]
                    }
                    s.consumers[consumer] = .continuation(continuation)
                    return Self.request(&s, id, .consumer(consumer), priority)
                }
                perform(effects)
            }
        } onCancel: {
            releaseConsumer(id, consumer, markEarly: true)
        }
    }

    /// Prefetches `ids`, in the order given: the first gets the lowest order within `priority`'s level, so it starts first.
    ///
    /// Ids already cached are skipped; ids already prefetched take the new priority.
    /// After ``shutdown()`` nothing is started and a ``FetchEvent/rejected(_:error:)`` event is emitted per id.
    public func prefetch(_ ids: some Sequence<ID>, priority: FetchPriority = .prefetch) {
        let ids = Array(ids)  // the caller's sequence may call back into the fetcher: never under the lock
        let effects = state.withLock { s -> [Effect] in
            var effects: [Effect] = []
            var order = priority.order
            for id in ids {
                if s.isShutdown {
                    effects.append(.event(.rejected(id, error: Self.shutdownError(id))))
                    continue
                }
                s.stats.requests += 1
                if s.cache.contains(id) {
                    s.stats.cacheHits += 1
                    if s.observing { effects.append(.event(.cacheHit(id))) }
                    continue
                }
                effects += Self.request(&s, id, .prefetch, FetchPriority(level: priority.level, order: order))
                order += 1
            }
            return effects
        }
        perform(effects)
    }

    /// Sets, re-prioritises and withdraws prefetch interests in one step: what a controller that
    /// re-plans its prefetch window every frame calls once per frame.
    ///
    /// Each `(id, priority)` in `requests` gets the prefetch interest at exactly that priority:
    /// a new interest starts or queues a load; an id already prefetched only moves in the queue.
    /// Each id in `cancelling` loses the prefetch interest (consumers keep their loads). The whole
    /// batch is applied under one lock acquisition, and free slots are filled only after it, so no
    /// load starts for an id the same call withdraws. An id in both lists ends up withdrawn.
    ///
    /// Ids already in the memory cache are skipped. Only a new prefetch interest counts in
    /// ``FetchStatistics/requests`` and emits ``FetchEvent/requested(_:coalesced:)``: a controller
    /// may send its whole window every frame without inflating the counters. After ``shutdown()``
    /// nothing starts and each requested id gets a ``FetchEvent/rejected(_:error:)`` event.
    ///
    /// Both sequences are copied to arrays before the lock is taken, so they may be lazy and may
    /// call back into the fetcher.
    ///
    /// ```swift
    /// // Each frame: the window, nearest first, and what left it since the last frame.
    /// fetcher.updatePrefetching(window.enumerated().map { (order, id) in
    ///     (id, FetchPriority(level: .prefetch, order: Double(order)))
    /// }, cancelling: left)
    /// ```
    /// - Complexity: O((m + r) log n) for m requests and r withdrawals, n ids queued.
    public func updatePrefetching(_ requests: some Sequence<(ID, FetchPriority)>, cancelling: some Sequence<ID>) {
        let requests = Array(requests)
        let cancelling = Array(cancelling)
        let effects = state.withLock { s -> [Effect] in
            if s.isShutdown {
                return requests.map { .event(.rejected($0.0, error: Self.shutdownError($0.0))) }
            }
            var effects: [Effect] = []
            var wanted: [(ID, FetchPriority)] = []
            wanted.reserveCapacity(requests.count)
            for (id, priority) in requests where !s.cache.contains(id) {
                if !s.scheduler.isPrefetched(id) {
                    s.stats.requests += 1
                    let coalesced = s.scheduler.contains(id)
                    if coalesced { s.stats.coalescedRequests += 1 }
                    if s.observing { effects.append(.event(.requested(id, coalesced: coalesced))) }
                }
                wanted.append((id, priority))
            }
            effects += Self.translate(&s, s.scheduler.updatePrefetch(wanted, releasing: cancelling))
            return effects
        }
        perform(effects)
    }

    /// Withdraws the prefetch interest in each of `ids`; loads that consumers still want go on.
    public func cancelPrefetching(_ ids: some Sequence<ID>) {
        let ids = Array(ids)  // the caller's sequence may call back into the fetcher: never under the lock
        let effects = state.withLock { s -> [Effect] in
            Self.translate(&s, s.scheduler.release(ids, interest: .prefetch))
        }
        perform(effects)
    }

    // MARK: Cache and lifecycle

    /// A snapshot of the counters and recent latencies.
    public var statistics: FetchStatistics {
        state.withLock { s in
            var stats = s.stats
            stats.inFlight = s.scheduler.runningCount
            stats.queued = s.scheduler.waitingCount
            stats.latency = s.latency.summary
            return stats
        }
    }

    /// A latency to plan prefetching with: the 90th percentile of recent loads, or `nil` until
    /// enough loads have finished (see ``LatencySummary/expected``).
    public var expectedLatency: Duration? {
        state.withLock { $0.latency.expected }
    }

    /// A copy of the window of recent load latencies behind ``expectedLatency`` and ``statistics``.
    public var latencyWindow: LatencyWindow {
        state.withLock { $0.latency }
    }

    /// The number of values in the memory cache.
    public var cachedCount: Int { state.withLock { $0.cache.count } }

    /// Removes every value from the memory cache (not from the data store).
    public func removeAllCachedValues() {
        state.withLock { $0.cache.removeAll() }
    }

    /// Evicts least recently used values until the cache's total cost is at most `cost` (for memory pressure).
    public func trimCache(toCost cost: Int) {
        state.withLock { $0.cache.trim(toCost: cost) }
    }

    /// Stops the fetcher: cancels every load and answers every waiting consumer with `CancellationError`.
    ///
    /// Later calls fail with ``PrefetchError`` code ``PrefetchError/Code/shutdown``. Calling it twice is harmless.
    public func shutdown() {
        let effects = state.withLock { s -> [Effect] in
            guard !s.isShutdown else { return [] }
            s.isShutdown = true
            return Self.translate(&s, s.scheduler.cancelAll())
        }
        perform(effects)
    }

    // MARK: Internals

    private static func shutdownError(_ id: ID) -> PrefetchError {
        PrefetchError(.shutdown, "AsyncFetcher was shut down; the request for \(id) was refused")
    }

    private static func newConsumer(_ s: inout State) -> FetchScheduler<ID>.ConsumerID {
        s.nextConsumer &+= 1
        return FetchScheduler<ID>.ConsumerID(rawValue: s.nextConsumer)
    }

    private static func request(_ s: inout State, _ id: ID, _ interest: FetchScheduler<ID>.Interest, _ priority: FetchPriority) -> [Effect] {
        let coalesced = s.scheduler.contains(id)
        if coalesced { s.stats.coalescedRequests += 1 }
        let effects = translate(&s, s.scheduler.request(id, interest: interest, priority: priority))
        return s.observing ? [.event(.requested(id, coalesced: coalesced))] + effects : effects
    }

    /// Turns scheduler actions into effects, updating the bookkeeping they imply.
    private static func translate(_ s: inout State, _ actions: [FetchScheduler<ID>.Action]) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .start(let id, let load):
                s.stats.loadsStarted += 1
                s.stats.peakInFlight = max(s.stats.peakInFlight, s.scheduler.runningCount)
                effects.append(.start(id, load))
                if s.observing { effects.append(.event(.loadStarted(id))) }
            case .cancel(let id, let load):
                s.stats.loadsCancelled += 1
                effects.append(.cancelTask(s.tasks.removeValue(forKey: load)))
                if s.observing { effects.append(.event(.loadCancelled(id))) }
            case .abandon(let id, let consumers):
                for c in consumers {
                    if let consumer = s.consumers.removeValue(forKey: c) {
                        effects.append(.resume(consumer, .failure(CancellationError())))
                    }
                }
                _ = id
            case .deliver:
                preconditionFailure("deliver is handled by finish")
            }
        }
        return effects
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .start(let id, let load): startLoad(id, load)
            case .cancelTask(let task): task?.cancel()
            case .resume(let consumer, let result): consumer.resume(result)
            case .event(let event): onEvent?(event)
            }
        }
    }

    private func emit(_ event: FetchEvent<ID>) { onEvent?(event) }

    private func releaseConsumer(_ id: ID, _ consumer: FetchScheduler<ID>.ConsumerID, markEarly: Bool = false) {
        let effects = state.withLock { s -> [Effect] in
            guard let registered = s.consumers.removeValue(forKey: consumer) else {
                if markEarly { s.cancelledEarly.insert(consumer) }
                return []
            }
            var effects = [Effect.resume(registered, .failure(CancellationError()))]
            effects += Self.translate(&s, s.scheduler.release(id, interest: .consumer(consumer)))
            return effects
        }
        perform(effects)
    }

    private func startLoad(_ id: ID, _ load: FetchScheduler<ID>.LoadID) {
        let task = Task { await self.run(id, load) }
        let stale = state.withLock { s -> Bool in
            guard s.scheduler.isRunning(load) else { return true }
            s.tasks[load] = task
            return false
        }
        if stale { task.cancel() }
    }

    private func run(_ id: ID, _ load: FetchScheduler<ID>.LoadID) async {
        let started = clock.now()
        var fromStore = false
        var result: Result<Value, any Error>?
        if let store {
            do {
                if let stored = try await store.value(for: id) {
                    result = .success(stored)
                    fromStore = true
                }
            } catch {
                // A store that cannot answer is not fatal: the loader still can.
                emit(.storeReadFailed(id, error: error))
            }
        }
        var attempt = 0
        while result == nil {
            attempt += 1
            do {
                try Task.checkCancellation()
                result = .success(try await loader.load(id))
            } catch {
                if Task.isCancelled || error is CancellationError {
                    result = .failure(CancellationError())
                    break
                }
                let willRetry = attempt < retry.maxAttempts && retry.shouldRetry(error)
                emit(.loadFailed(id, error: error, willRetry: willRetry))
                guard willRetry else {
                    result = .failure(error)
                    break
                }
                let delay = state.withLock { s -> Duration in
                    s.stats.retries += 1
                    return retry.delay(afterAttempt: attempt, random: s.random.nextUnitInterval())
                }
                do {
                    try await clock.sleep(delay)
                } catch {
                    result = .failure(CancellationError())
                }
            }
        }
        finish(id, load, result!, latency: clock.now() - started, fromStore: fromStore)
        if !fromStore, let store, case .success(let value)? = result {
            do {
                try await store.store(value, for: id)
                emit(.storeWritten(id))
            } catch {
                emit(.storeWriteFailed(id, error: error))
            }
        }
    }

    private func finish(_ id: ID, _ load: FetchScheduler<ID>.LoadID, _ result: Result<Value, any Error>,
                        latency: Duration, fromStore: Bool) {
        // The cost function is the caller's code: computed before the lock, never under it.
        let valueCost: Int? = if case .success(let value) = result { cost(value) } else { nil }
        let effects = state.withLock { s -> [Effect] in
            s.tasks[load] = nil
            let actions = s.scheduler.finished(id, load: load)
            var effects: [Effect] = []
            var cacheError: (any Error)?
            if case .success(let value) = result, let valueCost {
                do { try s.cache.insert(value, forKey: id, cost: valueCost) } catch { cacheError = error }
            }
            guard case .deliver(_, _, let consumers, _)? = actions.first else {
                // The load was cancelled before its result came: keep a value, drop an error.
                guard case .success = result else { return [] }
                s.stats.lateResults += 1
                return [.event(.lateResult(id))]
            }
            switch result {
            case .success:
                s.stats.loadsCompleted += 1
                if fromStore { s.stats.storeHits += 1; effects.append(.event(.storeHit(id))) }
                s.latency.record(latency)
                effects.append(.event(.loadCompleted(id, latency: latency)))
                if let cacheError { effects.append(.event(.loadFailed(id, error: cacheError, willRetry: false))) }
            case .failure:
                s.stats.loadsFailed += 1
            }
            for c in consumers {
                if let consumer = s.consumers.removeValue(forKey: c) { effects.append(.resume(consumer, result)) }
            }
            effects += Self.translate(&s, Array(actions.dropFirst()))
            return effects
        }
        perform(effects)
    }
}

/// Withdraws one consumer of an ``AsyncFetcher``: its completion is then called with `CancellationError`.
public struct FetchHandle: Sendable {
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// Withdraws the consumer; a no-op once it has heard its result.
    public func cancel() { body() }
}
