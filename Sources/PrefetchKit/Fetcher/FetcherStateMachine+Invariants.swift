extension FetcherStateMachine {
    /// Checks that the fetcher's bookkeeping agrees with itself and with the scheduler; traps with
    /// a message otherwise. Called by tests after every step.
    func _checkInvariants() {
        scheduler._checkInvariants()
        cache._checkInvariants()
        _checkDestinations()
        // Every registered consumer is a consumer of its id's load, and the other way round.
        var listed = 0
        var runningLoads = 0
        for (id, entry) in scheduler.entries {
            for consumer in entry.consumers {
                precondition(consumers[consumer]?.id == id, "\(id) lists \(consumer), which does not wait for it")
                listed += 1
            }
            guard case .running(let load) = entry.phase else { continue }
            // Every running load has exactly one active worker, which runs it.
            runningLoads += 1
            guard let worker = workerOfLoad[load], let record = workers[worker] else {
                preconditionFailure("\(load) of \(id) runs without a worker")
            }
            precondition(record.load == load, "\(worker) is assigned \(load) but runs \(String(describing: record.load))")
        }
        precondition(listed == consumers.count, "the scheduler lists \(listed) consumers, \(consumers.count) are registered")
        // Preview marks name waiting consumers only.
        precondition(previews.satisfied.allSatisfy { consumers[$0] != nil }, "a consumer a preview answers is not waiting")
        precondition(previews.watchers.allSatisfy { consumers[$0] != nil }, "a preview watcher is not waiting")
        precondition(previews.satisfied.isDisjoint(with: previews.watchers), "a consumer both watches and is answered by a preview")
        precondition(reservations.keys.allSatisfy { consumers[$0] == nil }, "a consumer is both reserved and registered")
        precondition(workerOfLoad.count == runningLoads, "\(workerOfLoad.count) loads have workers, \(runningLoads) run")
        for (worker, record) in workers {
            if let load = record.load { precondition(workerOfLoad[load] == worker, "\(worker) runs \(load) unmapped") }
            precondition(!(record.cancelPending && record.runner != nil), "\(worker) has a handle and a pending cancel")
        }
        // Counters agree with each other.
        precondition(stats.loadsStarted == stats.loadsCompleted + stats.loadsFailed + stats.loadsCancelled + scheduler.runningCount,
                     "started \(stats.loadsStarted) != completed + failed + cancelled + running")
        precondition(stats.peakInFlight <= scheduler.totalSlots, "peak \(stats.peakInFlight) over the cap")
        precondition(!isShutdown || (consumers.isEmpty && scheduler.runningCount == 0 && scheduler.waitingCount == 0),
                     "work left after shutdown")
    }
}
