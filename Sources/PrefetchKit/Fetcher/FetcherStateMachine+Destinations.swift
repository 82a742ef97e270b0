// Where prefetched values go (`FetchDestination`): the memory cache, or the data store only.
//
// A prefetch interest carries a destination; the book keeps the ids whose interest goes to the
// store only. A load ends in the store only when, as its value arrives, that interest is the only
// one it has (no consumer waits for it), or, for a late value, when it was going there as it was
// cancelled. Without a store the book stays empty and nothing here costs anything.
extension FetcherStateMachine {
    /// Whether the value of `load`, which just ended with `outcome`, goes to the store only; forgets
    /// the destination of a finished load's id (its prefetch interest is gone with the load).
    @inlinable
    mutating func endsInStoreOnly(_ load: RunningLoad, _ outcome: Scheduler.FinishAction) -> Bool {
        switch outcome {
        case .stale:
            return destinations.retired.remove(load.load) != nil
        case .deliver(let consumers, _):
            return destinations.storeOnly.remove(load.id) != nil && consumers.isEmpty
        }
    }

    /// Records the destinations of a batch's new and re-prioritised requests (`storeOnly` runs
    /// beside `wanted`), then forgets those of the ids it withdrew: an id in both ends up withdrawn.
    mutating func setDestinations(_ wanted: [(ID, FetchPriority)], storeOnly: [Bool], releasing: [ID]) {
        for (request, toStore) in zip(wanted, storeOnly) { destinations.set(request.0, storeOnly: toStore) }
        for id in releasing { destinations.storeOnly.remove(id) }
    }

    /// Withdraws the prefetch interest in each of `ids` (retiring with their destinations as
    /// they were), then forgets their destinations.
    @inlinable
    mutating func absorbRelease(of ids: some Collection<ID>, into action: inout BatchAction) {
        absorb(scheduler.release(ids, interest: .prefetch), into: &action)
        if destinations.hasStore, !destinations.storeOnly.isEmpty {
            for id in ids { destinations.storeOnly.remove(id) }
        }
    }

    @inlinable
    mutating func absorb(_ batch: Scheduler.BatchAction, into action: inout BatchAction) {
        for load in batch.cancel { action.cancel.append(retire(load)) }
        for load in batch.preempt { action.cancel.append(retire(load, preempted: true)) }
        for load in batch.start { action.spawn.append(spawnWorker(for: load)) }
    }

    /// Checks the destinations against the scheduler (`_checkInvariants()`).
    func _checkDestinations() {
        precondition(destinations.hasStore || (destinations.storeOnly.isEmpty && destinations.known.isEmpty),
                     "a fetcher without a store records store destinations")
        for id in destinations.storeOnly {
            precondition(scheduler.isPrefetched(id), "\(id) goes to the store only but has no prefetch interest")
        }
        precondition(destinations.retired.count <= workers.count, "\(destinations.retired.count) retired store loads, \(workers.count) workers")
        precondition(destinations.known.count == destinations.knownRing.count && destinations.known.count <= destinations.knownLimit,
                     "the stored ids' set and ring disagree")
    }
}
