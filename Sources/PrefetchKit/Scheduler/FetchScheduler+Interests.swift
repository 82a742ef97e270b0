// How an interest joins, changes or leaves an id's entry, without starting anything: the
// bookkeeping under every event of `FetchScheduler` (see its summary for the rules).
extension FetchScheduler {
    /// Adds or re-prioritises an interest without starting anything; returns whether `id`'s load
    /// is new (queued). `quality`: what the interest wants (`nil`: a new priority for an interest
    /// held, which keeps the load's target). `hasPreview`: a preview of `id` exists (it waits
    /// behind its level's ids without one).
    @inlinable
    @discardableResult
    mutating func place(_ id: ID, interest: Interest, priority: FetchPriority, quality: FetchQuality? = .full,
                        hasPreview: Bool = false) -> Bool {
        if let index = entries.index(forKey: id) {
            var requeue = false
            let completed = entries.values[index].needsFullSlot(firstBytesAnySlot)
            if hasPreview, !entries.values[index].hasPreview {
                entries.values[index].hasPreview = true
                requeue = entries.values[index].phase == .waiting
            }
            // An upgrade: the load targets the full value from now on.
            if quality == .full { entries.values[index].previewOnly = false }
            // Its class changed: a waiting load moves queue (a running one keeps its slot).
            if entries.values[index].needsFullSlot(firstBytesAnySlot) != completed, entries.values[index].phase == .waiting {
                requeue = true
            }
            if Self.update(&entries.values[index], interest: interest, priority: priority) || requeue {
                Self.enqueue(id, &entries.values[index], in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
                compactIfNeeded()
            }
            return false
        }
        var entry = Entry(priority: priority, sequence: nextSequence)
        entry.hasPreview = hasPreview
        entry.previewOnly = quality == .preview
        nextSequence &+= 1
        switch interest {
        case .prefetch: entry.prefetch = priority
        case .consumer(let c): _ = entry.consumers.set(c, priority)
        }
        waiting += 1
        Self.enqueue(id, &entry, in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
        entries[id] = entry
        compactIfNeeded()
        return true
    }

    /// Sets an interest's priority in place; returns whether a waiting entry's priority changed (it must be requeued).
    @inlinable
    static func update(_ entry: inout Entry, interest: Interest, priority: FetchPriority) -> Bool {
        let replaced: FetchPriority?
        switch interest {
        case .prefetch:
            replaced = entry.prefetch
            entry.prefetch = priority
        case .consumer(let c):
            replaced = entry.consumers.set(c, priority)
        }
        let old = entry.priority
        if let replaced, replaced == old, priority < old {
            // The interest that set the priority went down: another may now be the highest.
            entry.priority = entry.effectivePriority()!
        } else if priority > old {
            entry.priority = priority
        }
        return entry.phase == .waiting && entry.priority != old
    }

    /// Withdraws one interest; returns the running load to cancel when it was the last interest (its slot is free).
    @inlinable
    mutating func withdraw(_ id: ID, interest: Interest) -> RunningLoad? {
        guard let index = entries.index(forKey: id) else { return nil }
        let removed: FetchPriority?
        switch interest {
        case .prefetch:
            removed = entries.values[index].prefetch
            entries.values[index].prefetch = nil
        case .consumer(let c):
            removed = entries.values[index].consumers.remove(c)
        }
        guard let removed else { return nil }
        guard entries.values[index].hasInterest else {
            let entry = entries.remove(at: index).value
            switch entry.phase {
            case .waiting:
                waiting -= 1
                compactIfNeeded()
                return nil
            case .running(let load):
                running -= 1
                if entry.fullSlot { runningFull -= 1 }
                if preemption.isEnabled { forgetRunning(id) }
                return RunningLoad(id, load)
            }
        }
        let old = entries.values[index].priority
        guard removed == old else { return nil }
        let new = entries.values[index].effectivePriority()!
        entries.values[index].priority = new
        if entries.values[index].phase == .waiting, new != old {
            Self.enqueue(id, &entries.values[index], in: &queue, previews: &previewQueue, version: &nextVersion, firstBytes: firstBytesAnySlot)
            compactIfNeeded()
        }
        return nil
    }
}
