/// Loads values by id ahead of need: coalesced, prioritised, capped, cached and cancellable.
///
/// `AsyncFetcher` keeps the shape of the `AsyncFetcher` in Apple's prefetching sample, so a
/// data source ports as written, and adds an `async` API:
///
/// ```swift
/// let fetcher = try AsyncFetcher<Int, DisplayData> { id in try await api.displayData(for: id) }
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
/// interest (set by ``prefetch(_:priority:destination:quality:)`` or ``fetchAsync(_:priority:completion:)`` without a
/// completion; withdrawn by ``cancelFetch(_:)`` or ``cancelPrefetching(_:)``). Every consumer, a
/// completion handler or an awaiting task, is another, withdrawn only by that consumer. So
/// cancelling a prefetch never strands a cell that attached a handler to it. Each consumer
/// hears exactly once: the value, the error, or `CancellationError`.
///
/// Inside, one state machine (a `FetchScheduler` with the consumers, workers, cache and
/// statistics around it) sits behind one lock. Each call takes the lock once, gets back what to
/// do, and does it after releasing the lock: no callback, task start or cancellation, and no code
/// of the caller (a lazy sequence, the cost function), runs under the lock. Loads run on
/// *workers*: a task that finishes a load takes the next queued one at once, so a busy fetcher
/// creates a task per slot rather than per load.
public final class AsyncFetcher<ID: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The result given to a completion handler.
    public typealias Completion = @Sendable (Result<Value, any Error>) -> Void

    /// Someone waiting for a result.
    @usableFromInline
    enum Consumer: Sendable {
        case handler(Completion)
        case continuation(CheckedContinuation<Value, any Error>)
        /// A completion handler that is also shown a preview while it waits for the full value.
        case previewing(Completion, preview: @Sendable (Value) -> Void)

        @inlinable
        func resume(_ result: Result<Value, any Error>) {
            switch self {
            case .handler(let body), .previewing(let body, _): body(result)
            case .continuation(let c): c.resume(with: result)
            }
        }

        /// Shows a preview to a consumer that watches for one.
        @usableFromInline
        func showPreview(_ value: Value) {
            if case .previewing(_, let preview) = self { preview(value) }
        }
    }

    @usableFromInline typealias Machine = FetcherStateMachine<ID, Value, Consumer, Task<Void, Never>>

    @usableFromInline let state: Locked<Machine>
    /// Runs the loader for an id at a quality, handing it the sink for a preview on the way.
    @usableFromInline let load: @Sendable (ID, FetchQuality, @escaping @Sendable (Value) -> Void) async throws -> Value
    /// Whether the loader is a ``PreviewLoader``: only then does a value come at preview quality.
    @usableFromInline let loaderPreviews: Bool
    @usableFromInline let store: (any DataStore<ID, Value>)?
    @usableFromInline let clock: ErasedClock
    @usableFromInline let retry: RetryPolicy
    @usableFromInline let cost: @Sendable (Value) -> Int
    @usableFromInline let onEvent: (@Sendable (FetchEvent<ID>) -> Void)?

    /// The configuration the fetcher was created with.
    public let configuration: FetcherConfiguration

    /// Creates a fetcher that loads with `loader`.
    ///
    /// - Parameters:
    ///   - configuration: limits and retries; checked here.
    ///   - clock: the clock for retry waits and latency measurements (a `ManualClock` in tests).
    ///   - store: a second-level store consulted before the loader and filled after it.
    ///   - cost: the memory-cache cost of a value (for example its byte count); must not be
    ///     negative. Called outside the fetcher's lock, so it may call the fetcher.
    ///   - onEvent: called for every ``FetchEvent``, outside the fetcher's lock.
    ///   - loader: loads one value. A ``PreviewLoader`` also loads previews: requests at
    ///     ``FetchQuality/preview`` get them, and a cell waiting for the full value is shown one
    ///     on the way; with any other loader every value is full.
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
        if let previewing = loader as? any PreviewLoader<ID, Value> {
            self.load = { id, quality, preview in try await previewing.load(id, quality: quality, preview: preview) }
            self.loaderPreviews = true
        } else {
            self.load = { id, _, _ in try await loader.load(id) }
            self.loaderPreviews = false
        }
        self.store = store
        self.clock = ErasedClock(clock)
        self.retry = configuration.retry
        self.cost = cost
        self.onEvent = onEvent
        self.state = Locked(try Machine(configuration: configuration, observing: onEvent != nil, hasStore: store != nil,
                                        previews: loaderPreviews))
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

    // MARK: The API of Apple's sample

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
    /// The completion runs on the worker that finished the load, before the worker starts its
    /// next load: keep it short, and hop to the main actor for UI work.
    ///
    /// - Returns: a handle that withdraws this consumer; `nil` for a prefetch, a cache hit or a
    ///   refusal. Creating it allocates nothing.
    @inlinable
    @discardableResult
    public func fetchAsync(_ id: ID, priority: FetchPriority? = nil, completion: Completion? = nil) -> FetchHandle? {
        guard let completion else {
            perform(state.withLock { $0.prefetch(CollectionOfOne(id), priority: priority ?? .prefetch) })
            return nil
        }
        return request(id, priority: priority ?? .visible, quality: .full, waiter: .handler(completion), preview: nil)
    }

    /// Registers a consumer with a completion handler: the one path of both `fetchAsync` calls.
    @inlinable
    func request(_ id: ID, priority: FetchPriority, quality: FetchQuality, waiter: Consumer,
                 preview: (@Sendable (Value) -> Void)?) -> FetchHandle? {
        switch state.withLock({ $0.request(id, waiter: waiter, priority: priority, quality: quality, watchesPreview: preview != nil) }) {
        case .refused(let error):
            waiter.resume(.failure(error))
            return nil
        case .hit(let value):
            waiter.resume(.success(value))
            onEvent?(.cacheHit(id))
            return nil
        case .requested(let consumer, let joined, let spawn, let preempt, let cachedPreview):
            if let cachedPreview, let preview { preview(cachedPreview) }
            onEvent?(.requested(id, coalesced: joined))
            if let preempt { cancel(preempt) }
            if let spawn { start(spawn) }
            return FetchHandle(owner: self, consumer: consumer)
        }
    }

    /// Withdraws the prefetch interest in `id`. Consumers keep their load; with none, the load is cancelled.
    ///
    /// A no-op for an id that is not prefetched.
    public func cancelFetch(_ id: ID) {
        perform(state.withLock { $0.cancelPrefetching(CollectionOfOne(id)) })
    }

    // MARK: The async API

    /// Returns the value for `id`: from the cache, by joining a load in progress, or by starting one.
    ///
    /// Honours task cancellation: cancelling the calling task withdraws this consumer (and the
    /// load, if nothing else wants it) and throws `CancellationError`.
    /// - Throws: the loader's error after any retries, `CancellationError`, or ``PrefetchError``
    ///   with code ``PrefetchError/Code/shutdown`` after ``shutdown()``.
    ///
    /// At ``FetchQuality/preview`` it returns the first value there is: a preview, or the full value.
    public func value(for id: ID, priority: FetchPriority = .visible, quality: FetchQuality = .full) async throws -> Value {
        let consumer: FetchConsumerID
        switch state.withLock({ $0.reserve(id, quality: quality) }) {
        case .refused(let error): throw error
        case .hit(let value):
            onEvent?(.cacheHit(id))
            return value
        case .reserved(let reserved): consumer = reserved
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let action = state.withLock {
                    $0.attach(consumer, for: id, waiter: .continuation(continuation), priority: priority, quality: quality)
                }
                switch action {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .refused(let error): continuation.resume(throwing: error)
                case .hit(let value):
                    continuation.resume(returning: value)
                    onEvent?(.cacheHit(id))
                case .requested(let joined, let spawn, let preempt):
                    onEvent?(.requested(id, coalesced: joined))
                    if let preempt { cancel(preempt) }
                    if let spawn { start(spawn) }
                }
            }
        } onCancel: {
            withdraw(consumer)
        }
    }

    /// Prefetches `ids`, in the order given: the first gets the lowest order within `priority`'s level, so it starts first.
    ///
    /// Ids already cached are skipped (and marked recently used); ids already prefetched take
    /// the new priority and `destination`. To ``FetchDestination/store`` the values are written
    /// to the data store and kept out of the memory cache (see ``FetchDestination``). After ``shutdown()`` nothing is started and a
    /// ``FetchEvent/rejected(_:error:)`` event is emitted per id. At ``FetchQuality/preview`` a
    /// ``PreviewLoader`` loads only each item's preview (an id whose preview or full value is
    /// cached is skipped); a later request for the full value completes it. `ids` is copied to an array
    /// before the lock is taken, so it may be lazy and may call back into the fetcher.
    @inlinable
    public func prefetch(_ ids: some Sequence<ID>, priority: FetchPriority = .prefetch, destination: FetchDestination = .memory,
                         quality: FetchQuality = .full) {
        let ids = Array(ids)
        perform(state.withLock { $0.prefetch(ids, priority: priority, destination: destination, quality: quality) })
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
    /// Ids already in the memory cache are skipped (and marked recently used). Only a new prefetch interest counts in
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
        perform(state.withLock { $0.updatePrefetching(requests, cancelling: cancelling) })
    }

    /// ``updatePrefetching(_:cancelling:)`` with a destination and a quality per request
    /// (`destinations` and `qualities` run beside `requests`; empty: every request to memory, at
    /// full quality), for `FetcherPrefetchTarget`.
    package func updatePrefetching(_ requests: [(ID, FetchPriority)], destinations: [FetchDestination], qualities: [FetchQuality] = [],
                                   cancelling: [ID]) {
        perform(state.withLock { $0.updatePrefetching(requests, destinations: destinations, qualities: qualities, cancelling: cancelling) })
    }

    /// Withdraws the prefetch interest in each of `ids`; loads that consumers still want go on.
    ///
    /// `ids` is copied to an array before the lock is taken, so it may be lazy and may call back
    /// into the fetcher.
    @inlinable
    public func cancelPrefetching(_ ids: some Sequence<ID>) {
        let ids = Array(ids)
        perform(state.withLock { $0.cancelPrefetching(ids) })
    }

    // MARK: Cache and lifecycle

    /// A snapshot of the counters and recent latencies.
    public var statistics: FetchStatistics {
        state.withLock { $0.statistics }
    }

    /// A latency to plan prefetching with: the 90th percentile of recent loads (cancelled loads
    /// counted as lasting at least as long as they ran), or `nil` until enough loads have
    /// finished (see `LatencyWindow.expected`).
    public var expectedLatency: Duration? {
        state.withLock { $0.latency.expected }
    }

    /// A typical load latency: the median of recent loads (cancelled loads counted as lasting at
    /// least as long as they ran), or `nil` until enough loads have finished (see
    /// `LatencyWindow.typical`).
    public var typicalLatency: Duration? {
        state.withLock { $0.latency.typical }
    }

    /// How long a load of `bytes` typically takes: the measured round trip plus the bytes at the
    /// measured transfer rate (``FetchStatistics/transferBytesPerSecond``); `nil` until both are
    /// measured (and until ``typicalLatency`` is).
    ///
    /// Any `bytes` and any fitted rate give a finite estimate or `nil`, never a trap: a negative
    /// size is unknown (`nil`), 0 bytes take the round trip, and an estimate beyond
    /// `ThroughputWindow.longestEstimate` (10¹⁸ s: `Int.max` bytes on a slow link) is that
    /// (a larger size never gets a shorter estimate). It runs under the fetcher's lock, on every
    /// frame of a `PrefetchController`, with sizes from the app's `expectedBytes`.
    package func typicalLatency(forBytes bytes: Int) -> Duration? {
        state.withLock { machine -> Duration? in
            guard machine.latency.typical != nil, let seconds = machine.throughput.seconds(forBytes: bytes),
                  seconds >= 0, seconds <= ThroughputWindow.longestEstimate
            else { return nil }
            // In range: `Duration.seconds(_:)` traps on a value past about 1.7 × 10²⁰ s.
            return .seconds(seconds)
        }
    }

    /// A copy of the window of recent load latencies behind ``expectedLatency`` and ``statistics``.
    var latencyWindow: LatencyWindow {
        state.withLock { $0.latency }
    }

    /// Whether the fetcher has a ``DataStore``: a prefetch to ``FetchDestination/store`` goes there only.
    package var hasStore: Bool { store != nil }

    /// Loads whose value went to the data store only (``FetchDestination/store``), not to memory.
    public var storeOnlyLoads: Int { state.withLock { $0.destinations.storeOnlyLoads } }

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

    /// Removes from the memory cache every value but those of `ids` (for memory pressure: keep
    /// what is on screen). A ``PrefetchController`` does it for you in
    /// ``PrefetchController/handleMemoryPressure()``.
    ///
    /// `ids` is made a set before the lock is taken, so it may be lazy and may call back into the fetcher.
    /// - Complexity: O(n + k) for n cached values and k ids.
    public func trimCache(keeping ids: some Sequence<ID>) {
        let keep = Set(ids)
        state.withLock { $0.cache.removeAll(except: keep) }
    }

    /// How many values fit ``FetcherConfiguration/memoryBudget`` at once: the budget over a
    /// typical value's cost (the mean of those seen); `nil` without a budget or before the first value.
    package var valueCapacity: Int? { state.withLock { $0.valueCapacity } }

    /// The ids a prefetch target requests now: under ``FetcherConfiguration/memoryBudget`` their
    /// values are evicted only after every other value.
    package func setWanted(_ ids: Set<ID>) { state.withLock { $0.setWanted(ids) } }

    /// Stops the fetcher: cancels every load and answers every waiting consumer with `CancellationError`.
    ///
    /// Later calls fail with ``PrefetchError`` code ``PrefetchError/Code/shutdown``. Calling it twice is harmless.
    public func shutdown() {
        let action = state.withLock { $0.shutdown() }
        for cancellation in action.cancel { cancel(cancellation) }
        for waiter in action.abandon { waiter.resume(.failure(CancellationError())) }
    }

    /// Whether ``shutdown()`` was called: a shut-down fetcher refuses every request, so an adapter
    /// that feeds it stops (see <doc:AdaptingAScrollView>).
    public var isShutDown: Bool { state.withLock { $0.isShutdown } }
}
