import HeapModule

// The queue of waiting ids: queuing, starting the most urgent in a free slot, compaction, and
// pre-emption (see `FetchPreemption` and the DocC article "The interest model": a running load
// that only the prefetch interest holds yields its slot to a waiting id that outranks it by the
// margin, and its id waits again).
extension FetchScheduler {
    /// Queues `entry` at its current priority, in `queue` when it needs a full value's slot
    /// (`firstBytes`: ``firstBytesAnySlot``) or else in `previews`, making older queue items for
    /// it stale. Call ``compactIfNeeded()`` once the entry is stored.
    @inlinable
    static func enqueue(_ id: ID, _ entry: inout Entry, in queue: inout Heap<QueueItem>, previews: inout Heap<QueueItem>,
                        version: inout UInt64, firstBytes: Bool) {
        version &+= 1
        entry.version = version
        let item = QueueItem(priority: entry.priority, sequence: entry.sequence, version: version, id: id, hasPreview: entry.hasPreview)
        if entry.needsFullSlot(firstBytes) { queue.insert(item) } else { previews.insert(item) }
    }

    /// The most urgent live item of `heap`, dropping stale ones on the way; `nil` when none is live.
    @inlinable
    static func liveMax(of heap: inout Heap<QueueItem>, in entries: [ID: Entry]) -> QueueItem? {
        while let item = heap.max {
            if let entry = entries[item.id], entry.phase == .waiting, entry.version == item.version { return item }
            _ = heap.popMax()
        }
        return nil
    }

    /// Whether a load of the full value may start now (fewer than ``maxConcurrentLoads`` run).
    @inlinable var fullSlotOpen: Bool { runningFull < maxConcurrentLoads }

    /// The most urgent waiting item that a free slot would start: the more urgent of the two
    /// queues' heads, the full values' only while ``fullSlotOpen``, with whether it heads the
    /// previews' queue. `nil` when none waits or none may start.
    @inlinable
    mutating func nextToStart() -> (item: QueueItem, inPreviews: Bool)? {
        let full = fullSlotOpen ? Self.liveMax(of: &queue, in: entries) : nil
        let preview = previewQueue.isEmpty ? nil : Self.liveMax(of: &previewQueue, in: entries)
        guard let preview else { return full.map { ($0, false) } }
        guard let full, preview < full else { return (preview, true) }
        return (full, false)
    }

    /// Starts the most urgent waiting load that may take a free slot, if one is free.
    @inlinable
    mutating func startNext() -> RunningLoad? {
        guard running < totalSlots, let next = nextToStart() else { return nil }
        if next.inPreviews { _ = previewQueue.popMax() } else { _ = queue.popMax() }
        return start(next.item)
    }

    /// Starts the waiting `item` (its queue item, left in the queue, is stale from now on).
    @inlinable
    mutating func start(_ item: QueueItem) -> RunningLoad {
        guard let index = entries.index(forKey: item.id) else { preconditionFailure("a live queue item has no entry") }
        nextLoad &+= 1
        let load = LoadID(rawValue: nextLoad)
        entries.values[index].phase = .running(load)
        running += 1
        let fullSlot = entries.values[index].needsFullSlot(firstBytesAnySlot)
        entries.values[index].fullSlot = fullSlot
        if fullSlot { runningFull += 1 }
        waiting -= 1
        if preemption.isEnabled { runningIDs.append(item.id) }
        return RunningLoad(item.id, load)
    }

    @inlinable
    mutating func fillSlots(into action: inout BatchAction) {
        while let started = startNext() { action.start.append(started) }
    }

    /// Rebuilds the queues when stale items (left by priority changes and dropped ids) outnumber live ones.
    @inlinable
    mutating func compactIfNeeded() {
        guard queue.count + previewQueue.count > 64, queue.count + previewQueue.count > 4 * waiting else { return }
        rebuildQueues()
    }

    /// Queues every waiting id afresh, each in the queue of its class now.
    @inlinable
    mutating func rebuildQueues() {
        var items: [QueueItem] = [], previewItems: [QueueItem] = []
        items.reserveCapacity(waiting)
        for (id, entry) in entries where entry.phase == .waiting {
            let item = QueueItem(priority: entry.priority, sequence: entry.sequence, version: entry.version, id: id, hasPreview: entry.hasPreview)
            if entry.needsFullSlot(firstBytesAnySlot) { items.append(item) } else { previewItems.append(item) }
        }
        queue = Heap(items)
        previewQueue = Heap(previewItems)
    }

    /// The position in ``runningIDs`` of the load to stop first: only the prefetch interest
    /// holds it, it was not pre-empted before, it holds a full value's slot when `fullOnly`, and
    /// it ranks lowest (among equals, started last).
    @inlinable
    func preemptionCandidate(fullOnly: Bool) -> (position: Int, priority: FetchPriority, hasPreview: Bool)? {
        var best: (position: Int, priority: FetchPriority, load: LoadID, hasPreview: Bool)?
        for position in runningIDs.indices {
            guard let entry = entries[runningIDs[position]], entry.consumers.isEmpty, !entry.preempted,
                  !fullOnly || entry.fullSlot, case .running(let load) = entry.phase else { continue }
            if let current = best, entry.priority > current.priority || (entry.priority == current.priority && load < current.load) { continue }
            best = (position, entry.priority, load, entry.hasPreview)
        }
        return best.map { ($0.position, $0.priority, $0.hasPreview) }
    }

    /// Whether the waiting `item` outranks a running load of `priority` by the margin. Previews
    /// first: on screen, a waiting id that shows a preview never displaces a load within its
    /// level whose cell shows nothing (it would start after that load, not before).
    @inlinable
    func outranks(_ item: QueueItem, _ priority: FetchPriority, runningHasPreview: Bool) -> Bool {
        if item.hasPreview, !runningHasPreview, item.priority.level == priority.level, priority.level >= .visible { return false }
        return preemption.outranks(item.priority, priority)
    }

    /// Which running loads a waiting id may displace: any (`false`), or only those in one of
    /// ``maxConcurrentLoads``'s slots (`true`). A load that may take any slot (`anySlot`), or
    /// any load without preview slots, displaces any load; with preview slots, a load that needs
    /// a full value's slot displaces only a load holding one, whose slot it then takes. So the
    /// loads a waiting id may displace never depend on how many slots are free, and an event
    /// that frees one needs no pre-emption.
    @inlinable
    func displacing(anySlot: Bool) -> Bool {
        !(anySlot || previewSlots == 0)
    }

    /// The most urgent live head of each queue, the more urgent first, each with whether it may
    /// take any slot.
    @inlinable
    mutating func waitingHeads() -> [(item: QueueItem, anySlot: Bool)] {
        var heads: [(item: QueueItem, anySlot: Bool)] = []
        if let full = Self.liveMax(of: &queue, in: entries) { heads.append((full, false)) }
        if !previewQueue.isEmpty, let preview = Self.liveMax(of: &previewQueue, in: entries) {
            if let full = heads.first, full.item < preview { heads.insert((preview, true), at: 0) } else { heads.append((preview, true)) }
        }
        return heads
    }

    /// Stops the lowest-ranked pre-emptible load when a waiting id that the freed slot would
    /// start outranks it by the margin (the more urgent of the two queues' heads first), queues
    /// the stopped id again, and starts the waiting id in the freed slot.
    @inlinable
    mutating func preemptOne() -> (stop: RunningLoad, start: RunningLoad)? {
        guard waiting > 0, running == totalSlots || !fullSlotOpen else { return nil }
        for head in waitingHeads() {
            let fullOnly = displacing(anySlot: head.anySlot)
            guard let candidate = preemptionCandidate(fullOnly: fullOnly),
                  outranks(head.item, candidate.priority, runningHasPreview: candidate.hasPreview) else { continue }
            return (stop(at: candidate.position), start(head.item))
        }
        return nil
    }

    /// Stops the load at `position` in ``runningIDs``, freeing its slot for a waiting id: its id
    /// waits again, and it is not pre-empted again while its id stays held.
    @inlinable
    mutating func stop(at position: Int) -> RunningLoad {
        let id = runningIDs[position]
        runningIDs.swapAt(position, runningIDs.count - 1)
        runningIDs.removeLast()
        guard let index = entries.index(forKey: id) else { preconditionFailure("\(id) is listed as running but has no entry") }
        guard case .running(let load) = entries.values[index].phase else { preconditionFailure("\(id) is listed as running but waits") }
        entries.values[index].phase = .waiting
        entries.values[index].preempted = true
        running -= 1
        if entries.values[index].fullSlot { runningFull -= 1 }
        waiting += 1
        Self.enqueue(id, &entries.values[index], in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
        compactIfNeeded()
        return RunningLoad(id, load)
    }

    /// Pre-empts until no pre-emptible load ranks below a waiting id by the margin (at most
    /// once per slot: a stopped load is not stopped again).
    @inlinable
    mutating func preemptAll(stopping: inout [RunningLoad], starting: inout [RunningLoad]) {
        guard preemption.isEnabled else { return }
        while let preempted = preemptOne() {
            stopping.append(preempted.stop)
            starting.append(preempted.start)
        }
    }

    /// A preview of `id` exists (cached before its load, or brought by its running load). A
    /// waiting id of a cell on screen moves behind the on-screen ids that have none, and a load
    /// of the full value now completes a preview: it needs one of ``maxConcurrentLoads``'s slots.
    /// A running load yields its slot (it waits again; its loader resumes after the bytes it
    /// has) when more than ``maxConcurrentLoads`` such loads would run, or, the first time, when
    /// an on-screen id of its level or above waits without a preview (that id starts). The
    /// change may let a waiting id pre-empt: with preview slots the load changed class, and a load
    /// that had no preview loses the protection "previews first" gave it against a waiting id that
    /// has one. Returns the loads stopped (``BatchAction/preempt``: the yield first) and started;
    /// `nil` when nothing changed.
    mutating func notePreview(_ id: ID) -> BatchAction? {
        guard var action = yieldOnPreview(id) else { return nil }
        preemptAll(stopping: &action.preempt, starting: &action.start)
        return action.preempt.isEmpty && action.start.isEmpty ? nil : action
    }

    /// ``notePreview(_:)`` before pre-emption: an empty action when nothing stopped.
    private mutating func yieldOnPreview(_ id: ID) -> BatchAction? {
        guard let index = entries.index(forKey: id), !entries.values[index].hasPreview || entries.values[index].phase != .waiting else { return nil }
        entries.values[index].hasPreview = true
        guard case .running(let load) = entries.values[index].phase else {
            Self.enqueue(id, &entries.values[index], in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
            compactIfNeeded()
            return BatchAction()
        }
        // Now it completes its preview: it needs a full value's slot, and waits again when none is free.
        let completes = entries.values[index].needsFullSlot(firstBytesAnySlot)
        if completes, !entries.values[index].fullSlot {
            entries.values[index].fullSlot = true
            runningFull += 1
        }
        if runningFull <= maxConcurrentLoads {
            guard !entries.values[index].yielded else { return BatchAction() }
            // The id that would take the freed slot.
            let holdsFull = entries.values[index].fullSlot
            if holdsFull { runningFull -= 1 }
            let next = nextToStart()?.item
            if holdsFull { runningFull += 1 }
            guard let next, !next.hasPreview, next.priority.level >= .visible,
                  next.priority.level >= entries.values[index].priority.level else { return BatchAction() }
            entries.values[index].yielded = true
        }
        entries.values[index].phase = .waiting
        running -= 1
        if entries.values[index].fullSlot { runningFull -= 1 }
        waiting += 1
        if preemption.isEnabled { forgetRunning(id) }
        Self.enqueue(id, &entries.values[index], in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
        compactIfNeeded()
        var action = BatchAction()
        action.preempt.append(RunningLoad(id, load))
        if let next = startNext() { action.start.append(next) }
        return action
    }

    /// A load of a full value brought its preview on the way: from now on a full value's first
    /// bytes may take a preview slot (``firstBytesAnySlot``). The loads change class: the queues
    /// are rebuilt, the free slots filled and pre-emption applied. A no-op after the first call,
    /// and without preview slots.
    mutating func previewsArriveOnTheWay() -> BatchAction {
        var action = BatchAction()
        guard previewSlots > 0, !firstBytesAnySlot else { return action }
        firstBytesAnySlot = true
        runningFull = 0
        for index in entries.values.indices where entries.values[index].phase != .waiting {
            // A full value's load without its preview yet now holds a preview slot.
            entries.values[index].fullSlot = entries.values[index].fullSlot && entries.values[index].needsFullSlot(true)
            if entries.values[index].fullSlot { runningFull += 1 }
        }
        rebuildQueues()
        fillSlots(into: &action)
        preemptAll(stopping: &action.preempt, starting: &action.start)
        return action
    }

    /// Takes `id` out of ``runningIDs`` (its load ended or was cancelled).
    @inlinable
    mutating func forgetRunning(_ id: ID) {
        guard let position = runningIDs.firstIndex(of: id) else { return }
        runningIDs.swapAt(position, runningIDs.count - 1)
        runningIDs.removeLast()
    }
}
