import HeapModule

/// The fetch engine's coordination logic as a pure state machine: events in, actions out.
///
/// `FetchScheduler` decides which loads run, in what order, and who hears about each result.
/// It performs no I/O and holds no tasks: ``AsyncFetcher`` feeds it events under a lock and
/// performs the returned actions after unlocking; the simulator drives it on virtual time.
///
/// The rules:
/// - **Coalescing.** One id has at most one load, however many interests ask for it.
/// - **Interests.** A load exists while at least one interest holds it. The prefetch interest
///   is one (set by a prefetch, withdrawn by a prefetch cancel); each consumer (a completion
///   handler, an awaiting task) is another, withdrawn only by that consumer. When the last
///   interest leaves a running load, the scheduler returns ``Action/cancel(_:_:)`` and frees
///   the slot at once; a queued load that loses all interest never starts.
/// - **Priority.** A load's priority is the highest of its interests' priorities and is
///   re-evaluated whenever an interest comes or goes, so a queued prefetch that becomes
///   visible moves ahead at once. Equal priorities start in request order.
/// - **Cap.** At most ``maxConcurrentLoads`` loads run at once, whatever the storm of events.
///
/// ```swift
/// var scheduler = FetchScheduler<Int>(maxConcurrentLoads: 1)
/// scheduler.request(1, interest: .prefetch, priority: .prefetch)   // [.start(1, L1)]
/// scheduler.request(2, interest: .prefetch, priority: .prefetch)   // [] (queued)
/// scheduler.release(1, interest: .prefetch)                        // [.cancel(1, L1), .start(2, L2)]
/// ```
public struct FetchScheduler<ID: Hashable & Sendable>: Sendable {
    /// Identifies one load (one attempt to obtain an id's value); a later load of the same id has a new one.
    public struct LoadID: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The load's number, increasing in start order.
        public let rawValue: UInt64
        /// Creates a load identifier.
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        /// Orders loads by start.
        public static func < (lhs: LoadID, rhs: LoadID) -> Bool { lhs.rawValue < rhs.rawValue }
        /// `L` and the number.
        public var description: String { "L\(rawValue)" }
    }

    /// Identifies one consumer: a completion handler or an awaiting task.
    public struct ConsumerID: Hashable, Sendable, CustomStringConvertible {
        /// The consumer's number, chosen by the caller; unique among live consumers.
        public let rawValue: UInt64
        /// Creates a consumer identifier.
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        /// `C` and the number.
        public var description: String { "C\(rawValue)" }
    }

    /// Something that wants an id's value.
    public enum Interest: Hashable, Sendable {
        /// The prefetch interest: at most one per id, set and withdrawn by prefetch calls.
        case prefetch
        /// One consumer; withdrawn only by that consumer.
        case consumer(ConsumerID)
    }

    /// What the owner of the scheduler must do after an event.
    public enum Action: Hashable, Sendable {
        /// Start loading `id`; report the end with ``FetchScheduler/finished(_:load:)``.
        case start(ID, LoadID)
        /// Cancel the running load: nobody wants it any more. Its slot is already free, and a
        /// later ``FetchScheduler/finished(_:load:)`` for it is ignored.
        case cancel(ID, LoadID)
        /// The load finished: give its result to these consumers (each exactly once).
        /// `prefetched` tells whether the prefetch interest still held the load.
        case deliver(ID, LoadID, consumers: [ConsumerID], prefetched: Bool)
        /// The consumers of `id` will get no result (the scheduler shut down).
        case abandon(ID, consumers: [ConsumerID])
    }

    /// Where an id stands.
    public enum Phase: Hashable, Sendable {
        /// Queued, waiting for a slot.
        case waiting
        /// Loading, as the given load.
        case running(LoadID)
    }

    private struct Entry: Sendable {
        var prefetch: FetchPriority?
        var consumers: [ConsumerID: FetchPriority] = [:]
        var priority: FetchPriority
        var sequence: UInt64
        var phase: Phase
        var version: UInt64

        var hasInterest: Bool { prefetch != nil || !consumers.isEmpty }

        func effectivePriority() -> FetchPriority? {
            var best = prefetch
            for p in consumers.values where best.map({ p > $0 }) ?? true { best = p }
            return best
        }
    }

    private struct QueueItem: Comparable, Sendable {
        var priority: FetchPriority
        var sequence: UInt64
        var version: UInt64
        var id: ID

        static func < (lhs: QueueItem, rhs: QueueItem) -> Bool {
            if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
            return lhs.sequence > rhs.sequence
        }
        static func == (lhs: QueueItem, rhs: QueueItem) -> Bool {
            lhs.priority == rhs.priority && lhs.sequence == rhs.sequence && lhs.version == rhs.version
        }
    }

    /// The most loads that run at once.
    public let maxConcurrentLoads: Int

    private var entries: [ID: Entry] = [:]
    private var queue = Heap<QueueItem>()
    private var running: [LoadID: ID] = [:]
    private var waiting = 0
    private var nextSequence: UInt64 = 0
    private var nextVersion: UInt64 = 0
    private var nextLoad: UInt64 = 0

    /// Creates a scheduler that runs at most `maxConcurrentLoads` loads at once.
    ///
    /// - Precondition: `maxConcurrentLoads >= 1` (``FetcherConfiguration`` validates it with a thrown error).
    public init(maxConcurrentLoads: Int) {
        precondition(maxConcurrentLoads >= 1, "FetchScheduler: maxConcurrentLoads must be at least 1, got \(maxConcurrentLoads)")
        self.maxConcurrentLoads = maxConcurrentLoads
    }

    // MARK: Queries

    /// The number of loads running now.
    public var runningCount: Int { running.count }
    /// The number of ids waiting for a slot.
    public var waitingCount: Int { waiting }
    /// Whether `id` is waiting or running.
    public func contains(_ id: ID) -> Bool { entries[id] != nil }
    /// Where `id` stands, or `nil` when nothing wants it.
    public func phase(of id: ID) -> Phase? { entries[id]?.phase }
    /// The effective priority of `id`'s load, or `nil` when nothing wants it.
    public func priority(of id: ID) -> FetchPriority? { entries[id]?.priority }
    /// Whether `load` is running now (not finished, not cancelled).
    public func isRunning(_ load: LoadID) -> Bool { running[load] != nil }
    /// Whether `id` has the prefetch interest.
    public func isPrefetched(_ id: ID) -> Bool { entries[id]?.prefetch != nil }
    /// The consumers waiting for `id`.
    public func consumers(of id: ID) -> [ConsumerID] { entries[id].map { Array($0.consumers.keys) } ?? [] }
    /// The ids running now, with their loads.
    public var runningLoads: [(id: ID, load: LoadID)] { running.map { ($0.value, $0.key) }.sorted { $0.load < $1.load } }

    // MARK: Events

    /// Adds (or re-prioritises) an interest in `id`.
    ///
    /// Requesting the prefetch interest again replaces its priority; a consumer id must be new
    /// or be the same consumer re-prioritising.
    /// - Complexity: O(log n) amortized, plus O(k) in the number of consumers of `id`.
    @discardableResult
    public mutating func request(_ id: ID, interest: Interest, priority: FetchPriority) -> [Action] {
        guard place(id, interest: interest, priority: priority) else { return [] }
        var actions: [Action] = []
        startEligible(into: &actions)
        return actions
    }

    /// Sets the prefetch interest of each id in `prefetching` at its priority (new, or
    /// re-prioritised), withdraws it from each id in `releasing`, then fills free slots once.
    ///
    /// No load starts until the whole batch is applied, so a load is never started for an id
    /// that the same batch withdraws. An id in both lists ends up without the prefetch interest
    /// (withdrawals apply last).
    /// - Complexity: O((m + r) log n) for m requests and r withdrawals.
    @discardableResult
    public mutating func updatePrefetch(_ prefetching: [(ID, FetchPriority)], releasing: [ID]) -> [Action] {
        var actions: [Action] = []
        for (id, priority) in prefetching { place(id, interest: .prefetch, priority: priority) }
        for id in releasing { withdraw(id, interest: .prefetch, into: &actions) }
        startEligible(into: &actions)
        return actions
    }

    /// Adds or re-prioritises an interest without starting anything; returns whether `id` is new (queued).
    @discardableResult
    private mutating func place(_ id: ID, interest: Interest, priority: FetchPriority) -> Bool {
        if var entry = entries[id] {
            let replaced: FetchPriority?
            switch interest {
            case .prefetch: replaced = entry.prefetch; entry.prefetch = priority
            case .consumer(let c): replaced = entry.consumers.updateValue(priority, forKey: c)
            }
            let old = entry.priority
            // A new interest can only raise the priority; only a replaced one that set it needs a rescan.
            if let replaced, replaced == old, priority < old {
                entry.priority = entry.effectivePriority()!
            } else if priority > old {
                entry.priority = priority
            }
            entries[id] = entry
            if case .waiting = entry.phase, entry.priority != old { requeue(id) }
            return false
        }
        var entry = Entry(priority: priority, sequence: nextSequence, phase: .waiting, version: 0)
        nextSequence &+= 1
        switch interest {
        case .prefetch: entry.prefetch = priority
        case .consumer(let c): entry.consumers[c] = priority
        }
        entries[id] = entry
        waiting += 1
        requeue(id)
        return true
    }

    /// Withdraws an interest in `id`; a no-op when that interest is not held.
    ///
    /// When the last interest leaves, a queued load is dropped and a running one cancelled.
    /// - Complexity: O(log n) amortized, plus O(k) in the number of consumers of `id`.
    @discardableResult
    public mutating func release(_ id: ID, interest: Interest) -> [Action] {
        var actions: [Action] = []
        if withdraw(id, interest: interest, into: &actions) { startEligible(into: &actions) }
        return actions
    }

    /// Withdraws one interest from each of `ids`, then fills the freed slots once.
    ///
    /// Cancelling a batch this way never starts a load for an id that a later element of the
    /// same batch releases: `release` one by one would start, then cancel, such loads.
    /// - Complexity: O(m log n) for m ids.
    @discardableResult
    public mutating func release(_ ids: some Sequence<ID>, interest: Interest) -> [Action] {
        var actions: [Action] = []
        var freed = false
        for id in ids where withdraw(id, interest: interest, into: &actions) { freed = true }
        if freed { startEligible(into: &actions) }
        return actions
    }

    /// Withdraws one interest; returns whether a running load lost its last one (a slot is free).
    @discardableResult
    private mutating func withdraw(_ id: ID, interest: Interest, into actions: inout [Action]) -> Bool {
        guard var entry = entries[id] else { return false }
        let removed: FetchPriority?
        switch interest {
        case .prefetch:
            removed = entry.prefetch
            entry.prefetch = nil
        case .consumer(let c):
            removed = entry.consumers.removeValue(forKey: c)
        }
        guard let removed else { return false }
        guard entry.hasInterest else {
            entries[id] = nil
            defer { compactIfNeeded() }
            switch entry.phase {
            case .waiting:
                waiting -= 1
                return false
            case .running(let load):
                running[load] = nil
                actions.append(.cancel(id, load))
                return true
            }
        }
        let old = entry.priority
        if removed == old { entry.priority = entry.effectivePriority()! }
        entries[id] = entry
        if case .waiting = entry.phase, entry.priority != old { requeue(id) }
        return false
    }

    /// Changes the priority of an interest that is held; a no-op otherwise.
    @discardableResult
    public mutating func setPriority(_ id: ID, interest: Interest, priority: FetchPriority) -> [Action] {
        guard let entry = entries[id] else { return [] }
        switch interest {
        case .prefetch: guard entry.prefetch != nil else { return [] }
        case .consumer(let c): guard entry.consumers[c] != nil else { return [] }
        }
        return request(id, interest: interest, priority: priority)
    }

    /// Reports that `load` of `id` ended (with a value or an error: the scheduler does not care).
    ///
    /// Returns ``Action/deliver(_:_:consumers:prefetched:)`` for the consumers, then starts
    /// queued loads. A report for a load that was cancelled, or already finished, returns no action.
    @discardableResult
    public mutating func finished(_ id: ID, load: LoadID) -> [Action] {
        guard running[load] != nil, let entry = entries[id], entry.phase == .running(load) else { return [] }
        running[load] = nil
        entries[id] = nil
        var actions: [Action] = [
            .deliver(id, load, consumers: Array(entry.consumers.keys), prefetched: entry.prefetch != nil)
        ]
        startEligible(into: &actions)
        return actions
    }

    /// Drops everything: cancels running loads and abandons every consumer. The scheduler is empty afterwards.
    @discardableResult
    public mutating func cancelAll() -> [Action] {
        var actions: [Action] = []
        for (id, entry) in entries {
            if case .running(let load) = entry.phase { actions.append(.cancel(id, load)) }
            if !entry.consumers.isEmpty { actions.append(.abandon(id, consumers: Array(entry.consumers.keys))) }
        }
        entries.removeAll()
        running.removeAll()
        queue = Heap()
        waiting = 0
        return actions
    }

    // MARK: Internals

    private mutating func requeue(_ id: ID) {
        guard var entry = entries[id] else { return }
        nextVersion &+= 1
        entry.version = nextVersion
        entries[id] = entry
        queue.insert(QueueItem(priority: entry.priority, sequence: entry.sequence, version: entry.version, id: id))
        compactIfNeeded()
    }

    private mutating func startEligible(into actions: inout [Action]) {
        while running.count < maxConcurrentLoads, let item = queue.popMax() {
            guard var entry = entries[item.id], entry.phase == .waiting, entry.version == item.version else { continue }
            nextLoad &+= 1
            let load = LoadID(rawValue: nextLoad)
            entry.phase = .running(load)
            entries[item.id] = entry
            running[load] = item.id
            waiting -= 1
            actions.append(.start(item.id, load))
        }
    }

    /// Rebuilds the queue when stale items (left by priority changes and dropped ids) outnumber live ones.
    private mutating func compactIfNeeded() {
        guard queue.count > 64, queue.count > 4 * waiting else { return }
        var items: [QueueItem] = []
        items.reserveCapacity(waiting)
        for (id, entry) in entries where entry.phase == .waiting {
            items.append(QueueItem(priority: entry.priority, sequence: entry.sequence, version: entry.version, id: id))
        }
        queue = Heap(items)
    }
}

extension FetchScheduler {
    /// Checks the scheduler's internal consistency; traps with a message when it is broken.
    ///
    /// Called by tests after every step: the cap holds, no id lacks an interest, every waiting
    /// id is queued at its current priority, and no slot is idle while an id waits.
    public func _checkInvariants() {
        precondition(running.count <= maxConcurrentLoads, "cap exceeded: \(running.count) > \(maxConcurrentLoads)")
        var waitingSeen = 0
        for (id, entry) in entries {
            precondition(entry.hasInterest, "\(id) is held without an interest")
            precondition(entry.priority == entry.effectivePriority(), "\(id) has a stale priority")
            switch entry.phase {
            case .waiting: waitingSeen += 1
            case .running(let load): precondition(running[load] == id, "\(id) runs as \(load) but the slot table disagrees")
            }
        }
        precondition(waitingSeen == waiting, "waiting count \(waiting) != \(waitingSeen)")
        precondition(running.count == entries.count - waiting, "running table has ids that are not running")
        let queued = Set(queue.unordered.compactMap { item -> ID? in
            guard let e = entries[item.id], e.phase == .waiting, e.version == item.version else { return nil }
            precondition(e.priority == item.priority, "\(item.id) is queued at \(item.priority), wants \(e.priority)")
            return item.id
        })
        precondition(queued.count == waiting, "\(waiting - queued.count) waiting ids are not queued")
        precondition(waiting == 0 || running.count == maxConcurrentLoads, "a slot is idle while \(waiting) ids wait")
    }

    /// The id that would start next, if a slot were free.
    public func _nextToStart() -> ID? {
        entries.filter { $0.value.phase == .waiting }
            .max { ($0.value.priority, -Double($0.value.sequence)) < ($1.value.priority, -Double($1.value.sequence)) }?.key
    }
}
