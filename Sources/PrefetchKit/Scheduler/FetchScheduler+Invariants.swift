extension FetchScheduler {
    /// Checks the scheduler's internal consistency; traps with a message when it is broken.
    ///
    /// Called by tests after every step: the cap holds, no id lacks an interest, every waiting
    /// id is queued at its current priority, no slot is idle while an id waits, and (with
    /// pre-emption) no running load held by the prefetch interest alone and never pre-empted
    /// ranks below a waiting id by the margin.
    func _checkInvariants() {
        precondition(running <= maxConcurrentLoads, "cap exceeded: \(running) > \(maxConcurrentLoads)")
        var waitingSeen = 0, runningSeen = 0
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
                precondition(loads.insert(load).inserted, "\(load) runs for two ids")
            }
        }
        precondition(waitingSeen == waiting, "waiting count \(waiting) != \(waitingSeen)")
        precondition(runningSeen == running, "running count \(running) != \(runningSeen)")
        let queued = Set(queue.unordered.compactMap { item -> ID? in
            guard let e = entries[item.id], e.phase == .waiting, e.version == item.version else { return nil }
            precondition(e.priority == item.priority, "\(item.id) is queued at \(item.priority), wants \(e.priority)")
            return item.id
        })
        precondition(queued.count == waiting, "\(waiting - queued.count) waiting ids are not queued")
        precondition(waiting == 0 || running == maxConcurrentLoads, "a slot is idle while \(waiting) ids wait")
        guard preemption.isEnabled else {
            precondition(runningIDs.isEmpty, "running ids are listed without pre-emption")
            precondition(entries.values.allSatisfy { !$0.preempted }, "an id is marked pre-empted without pre-emption")
            return
        }
        precondition(runningIDs.count == running && Set(runningIDs).count == running
                     && runningIDs.allSatisfy({ if case .running = entries[$0]?.phase { true } else { false } }),
                     "the running ids \(runningIDs) are not the \(running) running")
        let urgent = entries.values.filter { $0.phase == .waiting }.map(\.priority).max()
        guard let urgent else { return }
        for (id, entry) in entries where entry.phase != .waiting && entry.consumers.isEmpty && !entry.preempted {
            precondition(!preemption.outranks(urgent, entry.priority),
                         "\(id) runs at \(entry.priority), prefetch-only, while an id waits at \(urgent) (\(preemption))")
        }
    }
}
