extension FetcherStateMachine {
    /// Checks that the fetcher's bookkeeping agrees with itself and with the scheduler; traps with
    /// a message otherwise. Called by tests after every step.
    func _checkInvariants() {
        scheduler._checkInvariants()
        cache._checkInvariants()
        // Every registered consumer is a consumer of its id's load, and the other way round.
        var held = 0
        for (consumer, waiting) in consumers {
            precondition(scheduler.consumers(of: waiting.id).contains(consumer), "\(consumer) waits for \(waiting.id), which does not list it")
            precondition(reservations[consumer] == nil, "\(consumer) is both reserved and registered")
            held += 1
        }
        let listed = scheduler.runningLoads.map { scheduler.consumers(of: $0.id).count }.reduce(0, +)
            + waitingIDs.map { scheduler.consumers(of: $0).count }.reduce(0, +)
        precondition(listed == held, "the scheduler lists \(listed) consumers, \(held) are registered")
        // Every running load has exactly one active worker, which runs it.
        let running = scheduler.runningLoads
        precondition(workerOfLoad.count == running.count, "\(workerOfLoad.count) loads have workers, \(running.count) run")
        for load in running {
            guard let worker = workerOfLoad[load.load], let record = workers[worker] else {
                preconditionFailure("\(load) runs without a worker")
            }
            precondition(record.load == load.load, "\(worker) is assigned \(load) but runs \(String(describing: record.load))")
        }
        for (worker, record) in workers {
            if let load = record.load { precondition(workerOfLoad[load] == worker, "\(worker) runs \(load) unmapped") }
            precondition(!(record.cancelPending && record.runner != nil), "\(worker) has a handle and a pending cancel")
        }
        // Counters agree with each other.
        precondition(stats.loadsStarted == stats.loadsCompleted + stats.loadsFailed + stats.loadsCancelled + scheduler.runningCount,
                     "started \(stats.loadsStarted) != completed + failed + cancelled + running")
        precondition(stats.peakInFlight <= scheduler.maxConcurrentLoads, "peak \(stats.peakInFlight) over the cap")
        precondition(!isShutdown || (consumers.isEmpty && scheduler.runningCount == 0 && scheduler.waitingCount == 0),
                     "work left after shutdown")
    }

    private var waitingIDs: [ID] {
        scheduler.entries.compactMap { $0.value.phase == .waiting ? $0.key : nil }
    }
}
