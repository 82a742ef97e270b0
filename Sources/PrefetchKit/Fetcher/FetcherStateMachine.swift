/// Everything an ``AsyncFetcher`` changes under its lock, as one pure state machine.
///
/// It holds the `FetchScheduler` (which loads run), the memory cache, the consumers with
/// their waiters (completion handlers or continuations), the workers that run loads and their
/// task handles, the early cancellations of `value(for:)` calls, the statistics and the latency
/// window. Each input returns its own small action type, which ``AsyncFetcher`` performs after
/// releasing the lock: resume waiters, start or cancel tasks, emit events. Nothing here calls
/// code it does not own, so it can run under the lock, and a randomized test drives it with
/// plain tokens for waiters and runners (`FetcherStateMachinePropertyTests`).
///
/// **Admission.** Every request takes one path, in two halves: ``screen(_:countingRequest:countingHit:)``
/// (shut down? → count → cache) and, on a miss, ``enter(_:_:priority:)`` (consumer → scheduler).
/// `value(for:)` reserves its consumer with the first half and attaches its continuation with
/// the second, so a task cancelled in between is told so, and a cancellation that arrives after
/// the consumer was answered leaves nothing behind.
///
/// **Workers.** A worker is a task that runs loads one after another. A load started by a
/// request gets a new worker (``Spawn``); when a worker finishes its load, the scheduler's next
/// load goes to the same worker (``Next/continue(_:)``) instead of a new task. A worker whose
/// load is cancelled is retired: its task is cancelled and it ends when its loader returns.
/// A task handle (`Runner`) is registered right after the task is created; a cancellation that
/// comes before that is remembered and performed at registration.
@usableFromInline
struct FetcherStateMachine<ID: Hashable & Sendable, Value: Sendable, Waiter: Sendable, Runner: Sendable>: Sendable {
    @usableFromInline typealias Scheduler = FetchScheduler<ID>
    @usableFromInline typealias RunningLoad = Scheduler.RunningLoad

    /// Identifies a worker.
    @usableFromInline
    struct WorkerID: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline let rawValue: UInt64
        @inlinable init(rawValue: UInt64) { self.rawValue = rawValue }
        @usableFromInline var description: String { "W\(rawValue)" }
    }

    /// A consumer waiting for a result.
    @usableFromInline
    struct Waiting: Sendable {
        @usableFromInline var id: ID
        @usableFromInline var waiter: Waiter
        @inlinable init(_ id: ID, _ waiter: Waiter) {
            self.id = id
            self.waiter = waiter
        }
    }

    /// A worker: the load it runs (`nil` once retired) and its task handle once registered.
    @usableFromInline
    struct Worker: Sendable {
        @usableFromInline var load: FetchLoadID?
        @usableFromInline var runner: Runner?
        /// The load was cancelled before the task handle was registered: cancel it at registration.
        @usableFromInline var cancelPending = false
        /// When the load it runs started, on the fetcher's clock (once known).
        @usableFromInline var started: Duration?
        @inlinable init(load: FetchLoadID) { self.load = load }
    }

    @usableFromInline var scheduler: Scheduler
    @usableFromInline var cache: MemoryCache<ID, Value>
    /// Consumers with a waiter, by consumer.
    @usableFromInline var consumers: [FetchConsumerID: Waiting] = [:]
    /// `value(for:)` consumers reserved but not attached yet; `true` once cancelled.
    var reservations: [FetchConsumerID: Bool] = [:]
    @usableFromInline var workers: [WorkerID: Worker] = [:]
    @usableFromInline var workerOfLoad: [FetchLoadID: WorkerID] = [:]
    @usableFromInline var stats = FetchStatistics()
    /// The memory held and its budget (`FetcherStateMachine+Memory`).
    @usableFromInline var memory: MemoryAccount<ID>
    /// Where prefetched values go, and what the store holds (`FetcherStateMachine+Destinations`).
    @usableFromInline var destinations: DestinationBook<ID>
    @usableFromInline var latency: LatencyWindow
    /// Which values and loads are previews, and the consumers waiting on them (`FetcherStateMachine+Previews`).
    @usableFromInline var previews = PreviewBook<ID>()
    /// The bytes and times of recent loads whose loader reported its bytes.
    @usableFromInline var throughput: ThroughputWindow
    var random: SplitMix64
    /// Whether batch actions list per-id details for events.
    @usableFromInline let observing: Bool
    @usableFromInline var isShutdown = false
    @usableFromInline var nextConsumer: UInt64 = 0
    @usableFromInline var nextWorker: UInt64 = 0

    /// Creates the state of a fetcher; `configuration` must be valid. `hasStore`: the fetcher has a
    /// `DataStore`, so a prefetch may go to it only (``FetchDestination/store``). `previews`: its
    /// loader brings previews; without them the scheduler gets no preview slots, which no load
    /// of such a loader could use.
    init(configuration: FetcherConfiguration, observing: Bool, hasStore: Bool = false, previews: Bool = false) throws {
        scheduler = Scheduler(maxConcurrentLoads: configuration.maxConcurrentLoads,
                              previewSlots: previews ? configuration.previewSlots : 0, preemption: configuration.preemption)
        // Costs come with each insert (computed outside the lock), so the cache needs no cost function.
        cache = try MemoryCache(countLimit: configuration.cacheCountLimit, costLimit: configuration.cacheCostLimit)
        latency = try LatencyWindow(capacity: configuration.latencySamples)
        throughput = ThroughputWindow(capacity: configuration.latencySamples)
        random = SplitMix64(seed: configuration.randomSeed)
        memory = MemoryAccount(budget: configuration.memoryBudget)
        destinations = DestinationBook(hasStore: hasStore)
        self.observing = observing
    }

    // MARK: Admission

    /// The front half of the one admission path: refuse after shutdown, count, answer from the
    /// cache (a cached preview answers a request for a preview; for the full value it is a miss
    /// that carries the preview).
    @inlinable
    mutating func screen(_ id: ID, countingRequest: Bool, countingHit: Bool, quality: FetchQuality = .full) -> Screening {
        if isShutdown { return .refused(Self.shutdownError(id)) }
        if countingRequest { stats.requests += 1 }
        guard let value = cache.value(forKey: id) else { return .miss(preview: nil) }
        if quality == .full, !previews.cached.isEmpty, previews.cached.contains(id) { return .miss(preview: value) }
        if countingHit { stats.cacheHits += 1 }
        return .hit(value)
    }

    /// The back half: the interest (a consumer already registered, or the prefetch) joins or
    /// creates `id`'s load; with pre-emption it may stop one running load (`preempt`).
    @inlinable
    mutating func enter(_ id: ID, _ interest: FetchInterest, priority: FetchPriority,
                        quality: FetchQuality = .full) -> (joined: Bool, spawn: Spawn?, preempt: Cancellation?) {
        let action = scheduler.request(id, interest: interest, priority: priority, quality: quality,
                                       hasPreview: !previews.cached.isEmpty && previews.cached.contains(id))
        if action.joined { stats.coalescedRequests += 1 }
        let preempt = action.preempt.map { retire($0, preempted: true) }
        return (action.joined, action.start.map { spawnWorker(for: $0) }, preempt)
    }

    /// A request with a completion handler (`fetchAsync(_:priority:completion:)`).
    ///
    /// At ``FetchQuality/preview`` a preview answers the consumer; at ``FetchQuality/full`` a
    /// consumer that `watchesPreview` is shown a cached preview at once (the action carries it),
    /// or the load's preview when it arrives.
    @inlinable
    mutating func request(_ id: ID, waiter: Waiter, priority: FetchPriority, quality: FetchQuality = .full,
                          watchesPreview: Bool = false) -> RequestAction {
        switch screen(id, countingRequest: true, countingHit: true, quality: quality) {
        case .refused(let error): return .refused(error)
        case .hit(let value): return .hit(value)
        case .miss(let preview):
            let consumer = newConsumer()
            consumers[consumer] = Waiting(id, waiter)
            if quality == .preview {
                previews.satisfied.insert(consumer)
            } else if watchesPreview, preview == nil {
                previews.watchers.insert(consumer)
            }
            let (joined, spawn, preempt) = enter(id, .consumer(consumer), priority: priority, quality: quality)
            return .requested(consumer, joined: joined, spawn: spawn, preempt: preempt, preview: watchesPreview ? preview : nil)
        }
    }

    /// The first step of `value(for:)`: answer at once, or reserve a consumer for the continuation.
    mutating func reserve(_ id: ID, quality: FetchQuality = .full) -> ReserveAction {
        switch screen(id, countingRequest: true, countingHit: true, quality: quality) {
        case .refused(let error): return .refused(error)
        case .hit(let value): return .hit(value)
        case .miss:
            let consumer = newConsumer()
            reservations[consumer] = false
            return .reserved(consumer)
        }
    }

    /// The second step of `value(for:)`: the continuation exists; join or create the load.
    ///
    /// The request was counted by ``reserve(_:)``; the cache is asked again (the value may have
    /// arrived in between).
    mutating func attach(_ consumer: FetchConsumerID, for id: ID, waiter: Waiter, priority: FetchPriority,
                         quality: FetchQuality = .full) -> AttachAction {
        if reservations.removeValue(forKey: consumer) == true { return .cancelled }
        switch screen(id, countingRequest: false, countingHit: true, quality: quality) {
        case .refused(let error): return .refused(error)
        case .hit(let value): return .hit(value)
        case .miss:
            consumers[consumer] = Waiting(id, waiter)
            if quality == .preview { previews.satisfied.insert(consumer) }
            let (joined, spawn, preempt) = enter(id, .consumer(consumer), priority: priority, quality: quality)
            return .requested(joined: joined, spawn: spawn, preempt: preempt)
        }
    }

    /// Prefetches `ids` in order: the first gets `priority`'s order, each next uncached id one more.
    /// To ``FetchDestination/store``, an id the store is known to hold has nothing to do (its
    /// prefetch interest, if any, is withdrawn).
    @inlinable
    mutating func prefetch(_ ids: some Collection<ID>, priority: FetchPriority, destination: FetchDestination = .memory,
                           quality: FetchQuality = .full) -> BatchAction {
        var action = BatchAction()
        var order = priority.order
        let storeOnly = destinations.isStoreOnly(destination)
        var stored: [ID] = []
        for id in ids {
            switch screen(id, countingRequest: true, countingHit: true, quality: quality) {
            case .refused:
                action.rejected.append(id)
            case .hit:
                if observing { action.hits.append(id) }
            case .miss:
                if storeOnly, destinations.known.contains(id) {
                    stored.append(id)
                    continue
                }
                let (joined, spawn, preempt) = enter(id, .prefetch, priority: FetchPriority(level: priority.level, order: order), quality: quality)
                if destinations.hasStore { destinations.set(id, storeOnly: storeOnly) }
                order += 1
                if observing { action.requested.append(Requested(id, joined: joined)) }
                if let preempt { action.cancel.append(preempt) }
                if let spawn { action.spawn.append(spawn) }
            }
        }
        if !stored.isEmpty { absorbRelease(of: stored, into: &action) }
        return action
    }

    /// Sets, re-prioritises and withdraws prefetch interests as one batch (see `AsyncFetcher.updatePrefetching`).
    ///
    /// Only a new prefetch interest counts as a request; cached ids are skipped uncounted.
    /// `destinations` is empty (every request to memory) or gives each request's destination;
    /// `qualities` is empty (every request for the full value) or gives each request's quality.
    mutating func updatePrefetching(_ requests: [(ID, FetchPriority)], destinations targets: [FetchDestination] = [],
                                    qualities: [FetchQuality] = [], cancelling: [ID]) -> BatchAction {
        var action = BatchAction()
        if isShutdown {
            action.rejected = requests.map(\.0)
            return action
        }
        var wanted: [(ID, FetchPriority)] = []
        wanted.reserveCapacity(requests.count)
        var releasing = cancelling
        var storeOnly: [Bool] = []
        var previewing: Set<ID> = []
        for (index, request) in requests.enumerated() {
            let quality = qualities.isEmpty ? FetchQuality.full : qualities[index]
            guard case .miss = screen(request.0, countingRequest: false, countingHit: false, quality: quality) else { continue }
            if quality == .preview { previewing.insert(request.0) }
            if destinations.hasStore {
                let toStore = !targets.isEmpty && destinations.isStoreOnly(targets[index])
                // The store holds it already: nothing to load.
                if toStore, destinations.known.contains(request.0) {
                    releasing.append(request.0)
                    continue
                }
                storeOnly.append(toStore)
            }
            wanted.append(request)
        }
        let cachedPreviews = previews.cached
        let update = scheduler.updatePrefetch(wanted, releasing: releasing,
                                              quality: { previewing.isEmpty || !previewing.contains($0) ? .full : .preview },
                                              hasPreview: { cachedPreviews.isEmpty ? false : cachedPreviews.contains($0) })
        for added in update.added {
            stats.requests += 1
            if added.joined { stats.coalescedRequests += 1 }
            if observing { action.requested.append(Requested(added.id, joined: added.joined)) }
        }
        for load in update.cancel { action.cancel.append(retire(load)) }
        for load in update.preempt { action.cancel.append(retire(load, preempted: true)) }
        for load in update.start { action.spawn.append(spawnWorker(for: load)) }
        if destinations.hasStore { setDestinations(wanted, storeOnly: storeOnly, releasing: releasing) }
        return action
    }

    /// Withdraws the prefetch interest in each of `ids`, then fills freed slots once.
    @inlinable
    mutating func cancelPrefetching(_ ids: some Collection<ID>) -> BatchAction {
        var action = BatchAction()
        absorbRelease(of: ids, into: &action)
        return action
    }

    /// A consumer withdraws (its handle's `cancel()`, or its task was cancelled).
    ///
    /// A consumer that was answered already is forgotten: nothing is recorded for it.
    mutating func withdraw(_ consumer: FetchConsumerID) -> WithdrawAction {
        if let index = reservations.index(forKey: consumer) {
            reservations.values[index] = true
            return .none
        }
        guard let waiting = consumers.removeValue(forKey: consumer) else { return .none }
        previews.forget(consumer)
        switch scheduler.release(waiting.id, interest: .consumer(consumer)) {
        case .none:
            return .withdrawn(waiting.waiter, cancel: nil, spawn: nil)
        case .cancel(let load, let next):
            return .withdrawn(waiting.waiter, cancel: retire(load), spawn: next.map { spawnWorker(for: $0) })
        case .preempt(let load, let next):
            // The load is left to the prefetch alone, which a waiting id outranks: it yields its slot.
            return .withdrawn(waiting.waiter, cancel: retire(load, preempted: true), spawn: spawnWorker(for: next))
        }
    }

    // MARK: Shutdown

    /// Cancels every load and answers every waiting consumer; later requests are refused.
    mutating func shutdown() -> ShutdownAction {
        var action = ShutdownAction()
        guard !isShutdown else { return action }
        isShutdown = true
        let all = scheduler.cancelAll()
        action.cancel = all.cancel.map { retire($0) }
        destinations.storeOnly.removeAll()
        for consumer in all.abandon {
            if let waiting = consumers.removeValue(forKey: consumer) { action.abandon.append(waiting.waiter) }
        }
        previews.satisfied.removeAll()
        previews.watchers.removeAll()
        return action
    }

    // MARK: Internals

    @inlinable
    mutating func newConsumer() -> FetchConsumerID {
        nextConsumer &+= 1
        return FetchConsumerID(rawValue: nextConsumer)
    }

    /// Gives a load the scheduler started to a new worker.
    @inlinable
    mutating func spawnWorker(for load: RunningLoad) -> Spawn {
        nextWorker &+= 1
        let worker = WorkerID(rawValue: nextWorker)
        workers[worker] = Worker(load: load.load)
        workerOfLoad[load.load] = worker
        noteStarted()
        return Spawn(worker: worker, load: load)
    }

    @inlinable
    mutating func noteStarted() {
        stats.loadsStarted += 1
        stats.peakInFlight = Swift.max(stats.peakInFlight, scheduler.runningCount)
        balanceMemory()
    }

    /// The scheduler cancelled (or, `preempted`, stopped) `load`: retire its worker; returns its
    /// task handle to cancel, if registered.
    @inlinable
    mutating func retire(_ load: RunningLoad, preempted: Bool = false) -> Cancellation {
        stats.loadsCancelled += 1
        // Only the prefetch interest can hold a load that is cancelled or pre-empted.
        if destinations.hasStore, destinations.storeOnly.contains(load.id) { destinations.retired.insert(load.load) }
        if preempted { stats.loadsPreempted += 1 }
        guard let worker = workerOfLoad.removeValue(forKey: load.load),
              let index = workers.index(forKey: worker) else { return Cancellation(id: load.id, runner: nil) }
        workers.values[index].load = nil
        guard let runner = workers.values[index].runner else {
            workers.values[index].cancelPending = true
            return Cancellation(id: load.id, runner: nil, started: workers.values[index].started)
        }
        return Cancellation(id: load.id, runner: runner, started: workers.values[index].started)
    }


    /// The error for a request after shutdown, naming the id.
    @usableFromInline
    static func shutdownError(_ id: ID) -> PrefetchError {
        PrefetchError(.shutdown, "AsyncFetcher was shut down; the request for \(id) was refused")
    }
}
