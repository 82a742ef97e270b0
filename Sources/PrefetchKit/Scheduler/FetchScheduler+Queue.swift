import HeapModule

// The queue of waiting ids: queuing, starting the most urgent in a free slot, compaction, and
// pre-emption (see `FetchPreemption` and the DocC article "The interest model": a running load
// that only the prefetch interest holds yields its slot to a waiting id that outranks it by the
// margin, and its id waits again).
extension FetchScheduler {
    /// Queues `entry` at its current priority, making older queue items for it stale.
    /// Call ``compactIfNeeded()`` once the entry is stored.
    @inlinable
    static func enqueue(_ id: ID, _ entry: inout Entry, in queue: inout Heap<QueueItem>, version: inout UInt64) {
        version &+= 1
        entry.version = version
        queue.insert(QueueItem(priority: entry.priority, sequence: entry.sequence, version: version, id: id, hasPreview: entry.hasPreview))
    }

    /// Starts the most urgent waiting load if a slot is free.
    @inlinable
    mutating func startNext() -> RunningLoad? {
        guard running < maxConcurrentLoads else { return nil }
        while let item = queue.popMax() {
            guard let index = entries.index(forKey: item.id),
                  entries.values[index].phase == .waiting, entries.values[index].version == item.version else { continue }
            nextLoad &+= 1
            let load = LoadID(rawValue: nextLoad)
            entries.values[index].phase = .running(load)
            running += 1
            waiting -= 1
            if preemption.isEnabled { runningIDs.append(item.id) }
            return RunningLoad(item.id, load)
        }
        return nil
    }

    @inlinable
    mutating func fillSlots(into action: inout BatchAction) {
        while let started = startNext() { action.start.append(started) }
    }

    /// Rebuilds the queue when stale items (left by priority changes and dropped ids) outnumber live ones.
    @inlinable
    mutating func compactIfNeeded() {
        guard queue.count > 64, queue.count > 4 * waiting else { return }
        var items: [QueueItem] = []
        items.reserveCapacity(waiting)
        for (id, entry) in entries where entry.phase == .waiting {
            items.append(QueueItem(priority: entry.priority, sequence: entry.sequence, version: entry.version, id: id, hasPreview: entry.hasPreview))
        }
        queue = Heap(items)
    }

    /// The priority of the most urgent waiting id, dropping stale queue items on the way; `nil` when none waits.
    @inlinable
    mutating func mostUrgentWaiting() -> FetchPriority? {
        guard waiting > 0 else { return nil }
        while let item = queue.max {
            if let entry = entries[item.id], entry.phase == .waiting, entry.version == item.version { return item.priority }
            _ = queue.popMax()
        }
        return nil
    }

    /// The position in ``runningIDs`` of the load to stop first: only the prefetch interest
    /// holds it, it was not pre-empted before, and it ranks lowest (among equals, started last).
    @inlinable
    func preemptionCandidate() -> (position: Int, priority: FetchPriority)? {
        var best: (position: Int, priority: FetchPriority, load: LoadID)?
        for position in runningIDs.indices {
            guard let entry = entries[runningIDs[position]], entry.consumers.isEmpty, !entry.preempted,
                  case .running(let load) = entry.phase else { continue }
            if let current = best, entry.priority > current.priority || (entry.priority == current.priority && load < current.load) { continue }
            best = (position, entry.priority, load)
        }
        return best.map { ($0.position, $0.priority) }
    }

    /// Stops the lowest-ranked pre-emptible load when the most urgent waiting id outranks it by
    /// the margin, queues its id again, and starts that waiting id in the freed slot.
    @inlinable
    mutating func preemptOne() -> (stop: RunningLoad, start: RunningLoad)? {
        guard running == maxConcurrentLoads, let urgent = mostUrgentWaiting(),
              let candidate = preemptionCandidate(), preemption.outranks(urgent, candidate.priority) else { return nil }
        let id = runningIDs[candidate.position]
        runningIDs.swapAt(candidate.position, runningIDs.count - 1)
        runningIDs.removeLast()
        guard let index = entries.index(forKey: id) else { preconditionFailure("\(id) is listed as running but has no entry") }
        guard case .running(let load) = entries.values[index].phase else { preconditionFailure("\(id) is listed as running but waits") }
        entries.values[index].phase = .waiting
        entries.values[index].preempted = true
        running -= 1
        waiting += 1
        Self.enqueue(id, &entries.values[index], in: &queue, version: &nextVersion)
        compactIfNeeded()
        guard let started = startNext() else { preconditionFailure("a slot was freed for a waiting id, but none started") }
        return (RunningLoad(id, load), started)
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
    /// waiting id of a cell on screen moves behind the on-screen ids that have none. A running
    /// load, the first time, yields its slot when an on-screen id of its level or above waits
    /// without a preview: it waits again (its loader resumes after the bytes it has) and that id
    /// starts. Returns the load stopped and the load started, if it yielded.
    mutating func notePreview(_ id: ID) -> (stop: RunningLoad, start: RunningLoad)? {
        guard let index = entries.index(forKey: id), !entries.values[index].hasPreview || entries.values[index].phase != .waiting else { return nil }
        entries.values[index].hasPreview = true
        guard case .running(let load) = entries.values[index].phase else {
            Self.enqueue(id, &entries.values[index], in: &queue, version: &nextVersion)
            compactIfNeeded()
            return nil
        }
        guard !entries.values[index].yielded, let next = mostUrgentWaitingItem(), !next.hasPreview,
              next.priority.level >= .visible, next.priority.level >= entries.values[index].priority.level else { return nil }
        entries.values[index].yielded = true
        entries.values[index].phase = .waiting
        running -= 1
        waiting += 1
        if preemption.isEnabled { forgetRunning(id) }
        Self.enqueue(id, &entries.values[index], in: &queue, version: &nextVersion)
        compactIfNeeded()
        guard let started = startNext() else { preconditionFailure("a slot was freed for a waiting id, but none started") }
        return (RunningLoad(id, load), started)
    }

    /// The most urgent waiting queue item, dropping stale ones on the way; `nil` when none waits.
    @usableFromInline
    mutating func mostUrgentWaitingItem() -> QueueItem? {
        guard waiting > 0 else { return nil }
        while let item = queue.max {
            if let entry = entries[item.id], entry.phase == .waiting, entry.version == item.version { return item }
            _ = queue.popMax()
        }
        return nil
    }

    /// Takes `id` out of ``runningIDs`` (its load ended or was cancelled).
    @inlinable
    mutating func forgetRunning(_ id: ID) {
        guard let position = runningIDs.firstIndex(of: id) else { return }
        runningIDs.swapAt(position, runningIDs.count - 1)
        runningIDs.removeLast()
    }
}
