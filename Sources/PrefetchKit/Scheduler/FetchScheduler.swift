import HeapModule

/// The fetch engine's coordination logic as a pure state machine: events in, actions out.
///
/// `FetchScheduler` decides which loads run, in what order, and who hears about each result.
/// It performs no I/O and holds no tasks: ``AsyncFetcher`` feeds it events under a lock and
/// performs the returned actions after unlocking; a simulator can drive it on virtual time.
///
/// Each event returns its own action type, holding only what that event can ask for: a
/// ``request(_:interest:priority:)`` may start its own load and nothing else, a
/// ``finished(_:load:)`` delivers to consumers and may start one load in the freed slot, and
/// so on. An owner cannot misread an action, and no action is impossible.
///
/// The rules:
/// - **Coalescing.** One id has at most one load, however many interests ask for it.
/// - **Interests.** A load exists while at least one interest holds it. The prefetch interest
///   is one (set by a prefetch, withdrawn by a prefetch cancel); each consumer (a completion
///   handler, an awaiting task) is another, withdrawn only by that consumer. When the last
///   interest leaves a running load, the scheduler says to cancel it and frees the slot at
///   once; a queued load that loses all interest never starts.
/// - **Priority.** A load's priority is the highest of its interests' priorities and is
///   re-evaluated whenever an interest comes, goes or changes, so a queued prefetch that becomes
///   visible moves ahead at once. Equal priorities start in request order (the order in which
///   ids were first requested since they last had no load).
/// - **Cap.** At most ``maxConcurrentLoads`` loads run at once, plus at most ``previewSlots``
///   more that bring only a preview, whatever the storm of events; and no slot stays idle while
///   a load that may take it waits.
/// - **Previews' own slots.** A load's target is a preview while every interest that created or
///   joined it asked for one, and the full value as soon as one asks for it (it never goes back).
///   A load that completes a full value (its preview in, or, until previews are seen to arrive on
///   the way, any load of a full value) starts only in one of the ``maxConcurrentLoads`` slots;
///   any other load may take any slot. A preview costs a fraction of the full value's bytes, so
///   on a slow link a few more of them share the link with the full loads without holding those
///   back for long, and a cell that would stay blank shows something.
/// - **Pre-emption** (only with ``preemption`` enabled). After every event, no running load
///   that only the prefetch interest holds, and that was not pre-empted before while its id
///   stayed held, ranks below the head of a queue by the margin (`FetchPreemption.outranks`;
///   with preview slots, the full values' head counts only against loads in the cap's slots,
///   and on screen a head that shows a preview never counts against a load of its level whose
///   cell shows nothing, which the queue starts first). An event
///   that breaks this stops such loads (the lowest-ranked first; among equals the latest
///   started, which has done the least work), queues their ids again at their current priority
///   with their request order, and starts the most urgent waiting ids in their slots. A consumer's
///   load is never stopped; a pre-empted id is not pre-empted again until it has no load; and as
///   "outranks by the margin" is asymmetric, the started id never ranks below the stopped one by
///   the margin, so two loads never displace each other back and forth.
///
/// ```swift
/// var scheduler = FetchScheduler<Int>(maxConcurrentLoads: 1)
/// scheduler.request(1, interest: .prefetch, priority: .prefetch)   // start: 1 as L1
/// scheduler.request(2, interest: .prefetch, priority: .prefetch)   // queued
/// scheduler.release(1, interest: .prefetch)                        // .cancel(1 as L1, next: 2 as L2)
/// ```
@usableFromInline struct FetchScheduler<ID: Hashable & Sendable>: Sendable {
    /// Identifies one load; see `FetchLoadID`.
    @usableFromInline typealias LoadID = FetchLoadID
    /// Identifies one consumer; see `FetchConsumerID`.
    typealias ConsumerID = FetchConsumerID
    /// Something that wants an id's value; see `FetchInterest`.
    @usableFromInline typealias Interest = FetchInterest

    /// Where an id stands.
    @usableFromInline enum Phase: Hashable, Sendable {
        /// Queued, waiting for a slot.
        case waiting
        /// Loading, as the given load.
        case running(LoadID)
    }

    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var prefetch: FetchPriority?
        @usableFromInline var consumers = FetchConsumerList()
        @usableFromInline var priority: FetchPriority
        @usableFromInline var sequence: UInt64
        @usableFromInline var phase: Phase = .waiting
        @usableFromInline var version: UInt64 = 0
        /// Pre-empted once since the id was last without a load: never pre-empted again.
        @usableFromInline var preempted = false
        /// A preview of the id exists (cached, or its running load brought one): among waiting
        /// ids of one level, those without a preview go first.
        @usableFromInline var hasPreview = false
        /// The load yielded its slot once after its preview arrived: it does not yield again.
        @usableFromInline var yielded = false
        /// Every interest that created or joined the load asked for a preview only. Cleared for
        /// good when an interest asks for the full value.
        @usableFromInline var previewOnly = false

        /// The load needs one of ``maxConcurrentLoads``'s slots: it targets the full value and,
        /// when previews arrive on the way (`firstBytes`, see ``firstBytesAnySlot``), it has its
        /// preview already. Every other load (a preview's, or a full value's first bytes) may take any slot.
        @inlinable func needsFullSlot(_ firstBytes: Bool) -> Bool { !previewOnly && (hasPreview || !firstBytes) }
        /// While running: the load holds one of ``maxConcurrentLoads``'s slots. Set when it
        /// starts, and when its preview arrives (``notePreview(_:)``); an upgrade while it runs
        /// keeps the slot it has.
        @usableFromInline var fullSlot = false

        @inlinable
        init(priority: FetchPriority, sequence: UInt64) {
            self.priority = priority
            self.sequence = sequence
        }

        @inlinable var hasInterest: Bool { prefetch != nil || !consumers.isEmpty }

        @inlinable
        func effectivePriority() -> FetchPriority? {
            guard let fromConsumers = consumers.highestPriority else { return prefetch }
            guard let prefetch else { return fromConsumers }
            return Swift.max(prefetch, fromConsumers)
        }
    }

    @usableFromInline
    struct QueueItem: Comparable, Sendable {
        @usableFromInline var priority: FetchPriority
        @usableFromInline var sequence: UInt64
        @usableFromInline var version: UInt64
        @usableFromInline var id: ID
        /// The id has a preview: it waits behind the ids of its level that have none.
        @usableFromInline var hasPreview: Bool

        @inlinable
        init(priority: FetchPriority, sequence: UInt64, version: UInt64, id: ID, hasPreview: Bool = false) {
            self.priority = priority
            self.sequence = sequence
            self.version = version
            self.id = id
            self.hasPreview = hasPreview
        }

        /// The heap's order: higher level first; within a level of cells on screen
        /// (``FetchPriority/Level/visible`` and above), ids without a preview before those with one
        /// (previews first); then higher priority, then earlier request.
        @inlinable
        static func < (lhs: QueueItem, rhs: QueueItem) -> Bool {
            if lhs.priority.level != rhs.priority.level { return lhs.priority.level < rhs.priority.level }
            if lhs.hasPreview != rhs.hasPreview, lhs.priority.level >= .visible { return lhs.hasPreview }
            if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
            return lhs.sequence > rhs.sequence
        }
        @inlinable
        static func == (lhs: QueueItem, rhs: QueueItem) -> Bool {
            lhs.priority == rhs.priority && lhs.sequence == rhs.sequence && lhs.version == rhs.version
        }
    }

    /// The most loads of full values that run at once (and the most loads of any kind, less
    /// ``previewSlots``).
    @usableFromInline let maxConcurrentLoads: Int
    /// Slots beyond ``maxConcurrentLoads`` that only loads of previews take.
    @usableFromInline let previewSlots: Int
    /// Loads of full values bring their previews on the way (a progressive prefix): until its
    /// preview arrives, such a load may take a preview slot too, since its first bytes are a
    /// preview's. Set once, by ``previewsArriveOnTheWay()``, when the first such preview arrives.
    @usableFromInline var firstBytesAnySlot = false
    /// When a running prefetch yields its slot to more urgent waiting work.
    @usableFromInline let preemption: FetchPreemption

    @usableFromInline var entries: [ID: Entry] = [:]
    /// Waiting ids whose load targets the full value, by priority; items whose version no longer
    /// matches their entry are stale and skipped.
    @usableFromInline var queue = Heap<QueueItem>()
    /// Waiting ids whose load targets a preview only, by priority (stale items as in ``queue``).
    @usableFromInline var previewQueue = Heap<QueueItem>()
    @usableFromInline var running = 0
    /// The running loads in one of ``maxConcurrentLoads``'s slots (`Entry.fullSlot`): at most that many.
    @usableFromInline var runningFull = 0
    @usableFromInline var waiting = 0
    @usableFromInline var nextSequence: UInt64 = 0
    @usableFromInline var nextVersion: UInt64 = 0
    @usableFromInline var nextLoad: UInt64 = 0
    /// The ids running now, kept only while ``preemption`` is enabled (to find the load to stop
    /// without a look at every id). At most ``maxConcurrentLoads`` long; its capacity is reserved once.
    @usableFromInline var runningIDs: [ID] = []

    /// Creates a scheduler that runs at most `maxConcurrentLoads` loads of full values at once,
    /// and `previewSlots` more loads of previews, and pre-empts by `preemption`.
    ///
    /// - Precondition: `maxConcurrentLoads >= 1`, `previewSlots >= 0` and a valid `preemption`
    ///   (``FetcherConfiguration`` validates them with a thrown error).
    init(maxConcurrentLoads: Int, previewSlots: Int = 0, preemption: FetchPreemption = .never) {
        precondition(maxConcurrentLoads >= 1, "FetchScheduler: maxConcurrentLoads must be at least 1, got \(maxConcurrentLoads)")
        precondition(previewSlots >= 0, "FetchScheduler: previewSlots must not be negative, got \(previewSlots)")
        precondition((try? preemption.validate()) != nil, "FetchScheduler: invalid pre-emption margins \(preemption)")
        self.maxConcurrentLoads = maxConcurrentLoads
        self.previewSlots = previewSlots
        self.preemption = preemption
        if preemption.isEnabled { runningIDs.reserveCapacity(maxConcurrentLoads + previewSlots) }
    }

    /// Every slot: ``maxConcurrentLoads`` plus ``previewSlots``.
    @inlinable var totalSlots: Int { maxConcurrentLoads + previewSlots }

    // MARK: Queries

    /// The number of loads running now.
    @inlinable var runningCount: Int { running }
    /// The number of ids waiting for a slot.
    var waitingCount: Int { waiting }
    /// Whether `id` is waiting or running.
    func contains(_ id: ID) -> Bool { entries[id] != nil }
    /// Where `id` stands, or `nil` when nothing wants it.
    func phase(of id: ID) -> Phase? { entries[id]?.phase }
    /// The effective priority of `id`'s load, or `nil` when nothing wants it.
    @inlinable func priority(of id: ID) -> FetchPriority? { entries[id]?.priority }
    /// Whether `id` has the prefetch interest.
    func isPrefetched(_ id: ID) -> Bool { entries[id]?.prefetch != nil }
    /// The quality `id`'s load targets, or `nil` when nothing wants it.
    @inlinable func targetQuality(of id: ID) -> FetchQuality? { entries[id].map { $0.previewOnly ? .preview : .full } }
    /// Whether `id` has a load (waiting or running), and whether it has the prefetch interest: one look-up.
    func interestState(of id: ID) -> (held: Bool, prefetched: Bool) {
        guard let entry = entries[id] else { return (false, false) }
        return (true, entry.prefetch != nil)
    }
    /// The consumers waiting for `id`.
    func consumers(of id: ID) -> [ConsumerID] { entries[id].map { Array($0.consumers) } ?? [] }
    /// The ids running now, with their loads, in start order.
    /// - Complexity: O(n) in the number of ids held.
    var runningLoads: [RunningLoad] {
        entries.compactMap { id, entry -> RunningLoad? in
            if case .running(let load) = entry.phase { RunningLoad(id, load) } else { nil }
        }.sorted { $0.load < $1.load }
    }

    // MARK: Events

    /// Adds (or re-prioritises) an interest in `id`, which wants `quality` of it.
    ///
    /// Requesting the prefetch interest again replaces its priority; a consumer id must be new
    /// or be the same consumer re-prioritising. Without pre-emption only a request that creates
    /// `id`'s load can start one, and only that load. With it, a request can also pre-empt one
    /// running load (``RequestAction/preempt``): to start `id` (new, or raised while waiting),
    /// or because it lowered `id`'s own running load below a waiting id (which then starts).
    /// - Complexity: O(log n) amortized; O(k) in the consumers of `id` when the interest that
    ///   set its priority is lowered; O(c) in the cap when a pre-emption is considered.
    @inlinable
    @discardableResult
    mutating func request(_ id: ID, interest: Interest, priority: FetchPriority, quality: FetchQuality = .full,
                          hasPreview: Bool = false) -> RequestAction {
        let created = place(id, interest: interest, priority: priority, quality: quality, hasPreview: hasPreview)
        if created, let start = startNext() { return RequestAction(joined: false, start: start) }
        guard preemption.isEnabled, let preempted = preemptOne() else { return RequestAction(joined: !created, start: nil) }
        return RequestAction(joined: !created, start: preempted.start, preempt: preempted.stop)
    }

    /// Changes the priority of an interest that is held; a no-op otherwise. Without pre-emption
    /// it never starts or cancels a load (a waiting id waits because no slot is free); with it,
    /// the change may pre-empt one running load, as a request may.
    /// - Returns: whether the interest was held, and the pre-emption it caused, if any.
    @discardableResult
    mutating func setPriority(_ id: ID, interest: Interest, priority: FetchPriority) -> PriorityAction {
        guard let entry = entries[id] else { return PriorityAction(held: false) }
        switch interest {
        case .prefetch: guard entry.prefetch != nil else { return PriorityAction(held: false) }
        case .consumer(let c): guard entry.consumers.position(of: c) != nil else { return PriorityAction(held: false) }
        }
        place(id, interest: interest, priority: priority, quality: nil)
        guard preemption.isEnabled, let preempted = preemptOne() else { return PriorityAction(held: true) }
        return PriorityAction(held: true, preempt: preempted)
    }

    /// Withdraws an interest in `id`; a no-op when that interest is not held.
    ///
    /// When the last interest leaves, a queued load is dropped and a running one cancelled; the
    /// freed slot goes to the next waiting load.
    /// - Complexity: O(log n) amortized, plus O(k) in the number of consumers of `id`.
    @discardableResult
    mutating func release(_ id: ID, interest: Interest) -> ReleaseAction {
        if let cancelled = withdraw(id, interest: interest) { return .cancel(cancelled, next: startNext()) }
        // An interest that leaves a running load held (by less, or by the prefetch alone) may let it be pre-empted.
        guard preemption.isEnabled, let preempted = preemptOne() else { return .none }
        return .preempt(preempted.stop, next: preempted.start)
    }

    /// Withdraws one interest from each of `ids`, then fills the freed slots once.
    ///
    /// Cancelling a batch this way never starts a load for an id that a later element of the
    /// same batch releases: `release` one by one would start, then cancel, such loads.
    /// - Complexity: O(m log n) for m ids.
    @inlinable
    @discardableResult
    mutating func release(_ ids: some Sequence<ID>, interest: Interest) -> BatchAction {
        var action = BatchAction()
        for id in ids {
            if let cancelled = withdraw(id, interest: interest) { action.cancel.append(cancelled) }
        }
        fillSlots(into: &action)
        preemptAll(stopping: &action.preempt, starting: &action.start)
        return action
    }

    /// Sets the prefetch interest of each id in `prefetching` at its priority (new, or
    /// re-prioritised) and quality, withdraws it from each id in `releasing`, then fills free slots once.
    ///
    /// No load starts until the whole batch is applied, so a load never starts for an id that
    /// the same batch withdraws. An id in both lists ends up without the prefetch interest
    /// (withdrawals apply last).
    /// - Complexity: O((m + r) log n) for m requests and r withdrawals.
    @discardableResult
    mutating func updatePrefetch(_ prefetching: [(ID, FetchPriority)], releasing: [ID],
                                 quality: (ID) -> FetchQuality = { _ in .full },
                                 hasPreview: (ID) -> Bool = { _ in false }) -> UpdateAction {
        var action = UpdateAction()
        for (id, priority) in prefetching {
            let before = interestState(of: id)
            place(id, interest: .prefetch, priority: priority, quality: quality(id), hasPreview: hasPreview(id))
            if !before.prefetched { action.added.append(Added(id, joined: before.held)) }
        }
        var batch = BatchAction()
        for id in releasing {
            if let cancelled = withdraw(id, interest: .prefetch) { batch.cancel.append(cancelled) }
        }
        fillSlots(into: &batch)
        action.cancel = batch.cancel
        action.start = batch.start
        preemptAll(stopping: &action.preempt, starting: &action.start)
        return action
    }

    /// Reports that `load` of `id` ended (with a value or an error: the scheduler does not care).
    ///
    /// Returns the consumers to give the result to, and the load that takes the freed slot; or
    /// ``FinishAction/stale`` for a load that was cancelled or had finished already.
    @inlinable
    @discardableResult
    mutating func finished(_ id: ID, load: LoadID) -> FinishAction {
        guard let index = entries.index(forKey: id), entries.values[index].phase == .running(load) else { return .stale }
        let entry = entries.remove(at: index).value
        running -= 1
        if entry.fullSlot { runningFull -= 1 }
        if preemption.isEnabled { forgetRunning(id) }
        // No pre-emption here: the load that takes the slot was the most urgent waiting id that
        // may take it, and no running load ranked below a waiting one by the margin before (the
        // invariant); the loads a waiting full value may displace do not change with free slots.
        return .deliver(consumers: entry.consumers, next: startNext())
    }

    /// Drops everything: cancels running loads and abandons every consumer. The scheduler is empty afterwards.
    @discardableResult
    mutating func cancelAll() -> CancelAllAction {
        var action = CancelAllAction()
        for (id, entry) in entries {
            if case .running(let load) = entry.phase { action.cancel.append(RunningLoad(id, load)) }
            action.abandon.append(contentsOf: entry.consumers)
        }
        entries.removeAll()
        queue = Heap()
        previewQueue = Heap()
        runningIDs.removeAll(keepingCapacity: true)
        running = 0
        runningFull = 0
        waiting = 0
        return action
    }
}
