// Previews: which cached values and which loads are at preview quality, which consumers a preview
// answers and which want to see one while they wait for the full value.
//
// A load has a target quality, which its `FetchScheduler` entry keeps (a preview load may take
// one of the scheduler's preview slots): `preview` when every interest that created or joined it
// asked for a preview, `full` as soon as one interest asks for the full value (an upgrade; a load
// never goes back down). A preview load that was upgraded while it ran delivers its preview, then runs
// the loader again at full quality as the same load (`previewLoadEnded`); a full load whose loader
// reports a preview on the way delivers it too (`previewArrived`). Either delivery caches the
// preview (unless the full value is cached), tells the watching consumers, answers the consumers a
// preview satisfies, and withdraws their interests, which cancels the load when nobody wants more.

/// The preview bookkeeping of a ``FetcherStateMachine``: empty sets for a fetcher that never sees a preview.
@usableFromInline
struct PreviewBook<ID: Hashable & Sendable>: Sendable {
    /// Ids whose cached value is a preview.
    @usableFromInline var cached: Set<ID> = []
    /// Consumers a preview answers.
    @usableFromInline var satisfied: Set<FetchConsumerID> = []
    /// Consumers that want the full value and hear of a preview while they wait.
    @usableFromInline var watchers: Set<FetchConsumerID> = []
    /// Previews delivered (cached, or handed to consumers).
    @usableFromInline var delivered = 0
    /// Preview loads upgraded to full loads while they ran.
    @usableFromInline var upgraded = 0

    @inlinable init() {}

    /// Forgets a consumer that was answered or withdrawn.
    @inlinable
    mutating func forget(_ consumer: FetchConsumerID) {
        if !satisfied.isEmpty { satisfied.remove(consumer) }
        if !watchers.isEmpty { watchers.remove(consumer) }
    }
}

extension FetcherStateMachine {
    /// What a preview's delivery asks for.
    @usableFromInline
    struct PreviewAction {
        /// Consumers to show the preview to (they wait on for the full value).
        @usableFromInline var watchers: Waiters = .none
        /// Consumers the preview answers: resume them with it.
        @usableFromInline var answered: Waiters = .none
        /// The load, when the consumers answered were its last interests, or when it yields its
        /// slot to an id without a preview; and the load that takes the slot.
        @usableFromInline var cancel: Cancellation?
        @usableFromInline var spawn: Spawn?
        /// Loads started and stopped because full values' first bytes may now take preview slots.
        @usableFromInline var respawn: [Spawn] = []
        @usableFromInline var stopped: [Cancellation] = []
        @inlinable init() {}
    }

    /// The priority a running load of `id` reports to its loader now (`FetchLoadContext.livePriority`):
    /// its scheduler priority, lowered to ``FetchPriority/Level/speculative`` once a preview of the
    /// item is cached. The rest of a cell that shows something is less urgent than a cell that
    /// shows nothing: a server that honours priorities (RFC 9218) sends the blank cells' bytes first.
    @usableFromInline
    func livePriority(of id: ID) -> FetchPriority? {
        guard let priority = scheduler.priority(of: id) else { return nil }
        guard !previews.cached.isEmpty, priority.level > .speculative, previews.cached.contains(id) else { return priority }
        return FetchPriority(level: .speculative, order: priority.order)
    }

    /// The quality the interests in `id` want now (`FetchLoadContext.liveQuality`), or `nil`
    /// when none is held.
    @usableFromInline
    func liveQuality(of id: ID) -> FetchQuality? {
        scheduler.targetQuality(of: id)
    }

    /// The quality a load of `id` starting now targets.
    @inlinable
    func targetQuality(of id: ID) -> FetchQuality {
        scheduler.targetQuality(of: id) ?? .full
    }

    /// A preview load's loader returned `value`: `nil` when the load ends at preview quality
    /// (go on to ``finished(_:_:result:quality:cost:latency:fromStore:canContinue:at:transferred:)``),
    /// else the load was upgraded while it ran: the preview is delivered and the worker runs the
    /// loader again, at full quality, as the same load.
    @usableFromInline
    mutating func previewLoadEnded(_ load: RunningLoad, value: Value, cost: Int) -> PreviewAction? {
        // Not upgraded, or no longer running (cancelled; the id may have a new load): it ends here.
        guard scheduler.phase(of: load.id) == .running(load.load), scheduler.targetQuality(of: load.id) == .full else { return nil }
        previews.upgraded += 1
        return previewArrived(load, value: value, cost: cost)
    }

    /// A preview of `load`'s item exists while the load goes on to the full value; `onTheWay`:
    /// the loader reported it while loading the full value (a progressive prefix).
    @usableFromInline
    mutating func previewArrived(_ load: RunningLoad, value: Value, cost: Int, onTheWay: Bool = false) -> PreviewAction {
        var action = PreviewAction()
        guard scheduler.phase(of: load.id) == .running(load.load) else { return action }
        if onTheWay, !scheduler.firstBytesAnySlot, scheduler.previewSlots > 0 {
            let batch = scheduler.previewsArriveOnTheWay()
            action.stopped = batch.preempt.map { retire($0, preempted: true) }
            action.respawn = batch.start.map { spawnWorker(for: $0) }
        }
        let id = load.id
        previews.delivered += 1
        // The full value may be cached already (from a store, or an earlier load): keep it.
        if !cache.contains(id) || previews.cached.contains(id) {
            if (try? cache.insert(value, forKey: id, cost: cost)) != nil {
                previews.cached.insert(id)
                if cost >= 0 { noteValueCost(cost) }
            }
        }
        if !previews.watchers.isEmpty || !previews.satisfied.isEmpty { answer(id, &action) }
        // Previews first: with its preview in, the load yields its slot (once) to an id of its
        // level or above that has none, or when too many loads complete previews; it waits
        // again and resumes after the bytes it has.
        if action.cancel == nil, let yielded = scheduler.notePreview(id) {
            action.stopped += yielded.preempt.map { retire($0, preempted: true) }
            action.respawn += yielded.start.map { spawnWorker(for: $0) }
        }
        return action
    }

    /// Shows a preview of `id` to its watchers and answers the consumers it satisfies, withdrawing
    /// their interests (which cancels the load when they were the last).
    private mutating func answer(_ id: ID, _ action: inout PreviewAction) {
        for consumer in scheduler.consumers(of: id) {
            if previews.watchers.remove(consumer) != nil, let waiting = consumers[consumer] {
                action.watchers.append(waiting.waiter)
            } else if previews.satisfied.remove(consumer) != nil, let waiting = consumers.removeValue(forKey: consumer) {
                action.answered.append(waiting.waiter)
                switch scheduler.release(id, interest: .consumer(consumer)) {
                case .none:
                    break
                case .cancel(let cancelled, let next):
                    action.cancel = retire(cancelled)
                    action.spawn = next.map { spawnWorker(for: $0) }
                case .preempt(let stopped, let next):
                    action.cancel = retire(stopped, preempted: true)
                    action.spawn = spawnWorker(for: next)
                }
            }
        }
    }

    /// Caches a finished load's value at `quality`: a preview never replaces a cached full value.
    @usableFromInline
    mutating func cacheFinished(_ value: Value, id: ID, quality: FetchQuality, cost: Int) throws {
        if quality == .preview {
            if cache.contains(id), !previews.cached.contains(id) { return }
            try cache.insert(value, forKey: id, cost: cost)
            previews.cached.insert(id)
        } else {
            try cache.insert(value, forKey: id, cost: cost)
            if !previews.cached.isEmpty { previews.cached.remove(id) }
        }
    }

    /// Drops preview marks of ids the cache no longer holds, when they have piled up.
    @usableFromInline
    mutating func prunePreviewMarks() {
        if previews.cached.count > 2 * cache.count + 64 {
            previews.cached = previews.cached.filter { cache.contains($0) }
        }
    }
}
