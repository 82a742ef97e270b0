extension FetchScheduler {
    /// Checks the scheduler's internal consistency; traps with a message when it is broken.
    ///
    /// Called by tests after every step: the cap holds, no id lacks an interest, every waiting
    /// id is queued at its current priority in its quality's queue, no slot is idle while an id
    /// that may take it waits, and (with pre-emption) no running load held by the prefetch
    /// interest alone and never pre-empted ranks below, by the margin, a waiting id that its slot would start.
    func _checkInvariants() {
        precondition(running <= totalSlots, "cap exceeded: \(running) > \(maxConcurrentLoads) + \(previewSlots)")
        var waitingSeen = 0, runningSeen = 0, runningFullSeen = 0
        var loads = Set<LoadID>()
        for (id, entry) in entries {
            precondition(entry.hasInterest, "\(id) is held without an interest")
            precondition(entry.priority == entry.effectivePriority(), "\(id) has a stale priority")
            precondition(Set(entry.consumers).count == entry.consumers.count, "\(id) lists a consumer twice")
            precondition(entry.consumers.allSatisfy { $0.rawValue <= entry.consumers.newest }, "\(id): newest consumer is wrong")
            switch entry.phase {
            case .waiting: waitingSeen += 1
            case .running(let load):
                runningSeen += 1
                if entry.fullSlot { runningFullSeen += 1 }
                precondition(loads.insert(load).inserted, "\(load) runs for two ids")
            }
        }
        precondition(waitingSeen == waiting, "waiting count \(waiting) != \(waitingSeen)")
        precondition(runningSeen == running, "running count \(running) != \(runningSeen)")
        precondition(runningFullSeen == runningFull, "running full-value count \(runningFull) != \(runningFullSeen)")
        precondition(runningFull <= maxConcurrentLoads, "\(runningFull) loads hold full values' slots, over \(maxConcurrentLoads)")
        var queued = Set<ID>()
        for (heap, anySlot) in [(queue, false), (previewQueue, true)] {
            for item in heap.unordered {
                guard let e = entries[item.id], e.phase == .waiting, e.version == item.version else { continue }
                precondition(e.priority == item.priority, "\(item.id) is queued at \(item.priority), wants \(e.priority)")
                precondition(e.needsFullSlot(firstBytesAnySlot) != anySlot, "\(item.id) waits in the wrong queue")
                queued.insert(item.id)
            }
        }
        precondition(queued.count == waiting, "\(waiting - queued.count) waiting ids are not queued")
        let waitingAny = entries.values.contains { $0.phase == .waiting && !$0.needsFullSlot(firstBytesAnySlot) }
        let waitingCompletions = entries.values.contains { $0.phase == .waiting && $0.needsFullSlot(firstBytesAnySlot) }
        precondition(!waitingAny || running == totalSlots, "a slot is idle while a load that may take it waits")
        precondition(!waitingCompletions || running == totalSlots || runningFull >= maxConcurrentLoads,
                     "a slot is idle while a load that completes a preview waits")
        guard preemption.isEnabled else {
            precondition(runningIDs.isEmpty, "running ids are listed without pre-emption")
            precondition(entries.values.allSatisfy { !$0.preempted }, "an id is marked pre-empted without pre-emption")
            return
        }
        precondition(runningIDs.count == running && Set(runningIDs).count == running
                     && runningIDs.allSatisfy({ if case .running = entries[$0]?.phase { true } else { false } }),
                     "the running ids \(runningIDs) are not the \(running) running")
        // Each queue's head (the id a freed slot of its kind starts: previews first within a
        // level on screen, so not always the highest priority) against the loads it may displace.
        for (heap, anySlot) in [(queue, false), (previewQueue, true)] {
            let live = heap.unordered.filter { item in
                guard let e = entries[item.id] else { return false }
                return e.phase == .waiting && e.version == item.version
            }
            guard let urgent = live.max() else { continue }
            let fullOnly = displacing(anySlot: anySlot)
            for (id, entry) in entries where entry.phase != .waiting && entry.consumers.isEmpty && !entry.preempted
                && (!fullOnly || entry.fullSlot) {
                precondition(!outranks(urgent, entry.priority, runningHasPreview: entry.hasPreview),
                             "\(id) runs at \(entry.priority), prefetch-only, while an id waits at \(urgent.priority) (\(preemption))")
            }
        }
    }
}
