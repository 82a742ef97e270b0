// The workers' inputs to a `FetcherStateMachine`: a load that ended, a task handle registered, a
// cancelled load's running time, a retry.
extension FetcherStateMachine {
    /// A worker's load ended.
    ///
    /// - Parameters:
    ///   - quality: the value's quality (``FetchQuality/full`` unless the loader previews and the
    ///     load ended at a preview).
    ///   - cost: the value's cache cost, computed by the caller outside the lock (`nil` for a failure).
    ///   - canContinue: whether the worker can take the next load at once (`false` while it still
    ///     has a store write to do: the next load then gets a new worker).
    @inlinable
    mutating func finished(
        _ worker: WorkerID, _ load: RunningLoad, result: Result<Value, any Error>, quality: FetchQuality = .full, cost: Int?,
        latency elapsed: Duration, fromStore: Bool, canContinue: Bool, at now: Duration? = nil, transferred: Int = 0
    ) -> FinishAction {
        let outcome = scheduler.finished(load.id, load: load.load)
        let storeOnly = destinations.hasStore && endsInStoreOnly(load, outcome)
        var cacheError: PrefetchError?
        if case .success(let value) = result, let cost {
            // A cancelled load's value is kept too: it cost a load already (in the store only,
            // when that is where the load was going).
            if !storeOnly {
                do { try cacheFinished(value, id: load.id, quality: quality, cost: cost) } catch { cacheError = error as? PrefetchError }
            }
            if cost >= 0 { noteValueCost(cost) }
            if destinations.hasStore { destinations.noteStored(load.id) }
        }
        defer {
            balanceMemory()
            prunePreviewMarks()
        }
        switch outcome {
        case .stale:
            // The load was cancelled: its worker is retired and ends now. Its running time was
            // recorded when it was cancelled (``cancelledLoadRan(for:)``).
            workers[worker] = nil
            guard case .success = result else { return .late(succeeded: false) }
            stats.lateResults += 1
            return .late(succeeded: true)
        case .deliver(let ids, let next):
            workerOfLoad[load.load] = nil
            switch result {
            case .success:
                stats.loadsCompleted += 1
                if fromStore { stats.storeHits += 1 }
                if storeOnly { destinations.storeOnlyLoads += 1 }
                latency.record(elapsed)
                if transferred > 0, let now {
                    throughput.record(bytes: transferred, start: (now - elapsed).seconds, end: now.seconds)
                }
            case .failure:
                stats.loadsFailed += 1
            }
            var waiters = Waiters.none
            for id in ids {
                if let waiting = consumers.removeValue(forKey: id) { waiters.append(waiting.waiter) }
                previews.forget(id)
            }
            let step: Next
            if let next, canContinue, let index = workers.index(forKey: worker) {
                workers.values[index].load = next.load
                workers.values[index].started = now
                workerOfLoad[next.load] = worker
                noteStarted()
                step = .continue(next)
            } else {
                workers[worker] = nil
                step = next.map { load in
                    let spawn = spawnWorker(for: load)
                    // It starts now, though its task is registered later, off this worker's thread.
                    workers[spawn.worker]?.started = now
                    return .spawn(spawn)
                } ?? .end
            }
            return .delivered(waiters, cacheError: cacheError, next: step)
        }
    }

    /// Stores the task handle of a new worker; returns `true` when the task must be cancelled now
    /// (its load was cancelled before the handle was known).
    /// `now` is the time on the fetcher's clock: the worker's first load started then.
    @inlinable
    mutating func register(_ worker: WorkerID, runner: Runner, at now: Duration? = nil) -> Bool {
        guard let index = workers.index(forKey: worker) else { return false }  // it ended already
        if workers.values[index].cancelPending {
            workers.values[index].cancelPending = false
            return true
        }
        workers.values[index].runner = runner
        // A load handed over by a finishing worker started when that one finished.
        if workers.values[index].started == nil { workers.values[index].started = now }
        return false
    }

    /// A running load was cancelled after running for `elapsed`: its latency would have been at
    /// least that (`LatencyWindow.recordCancelled(after:)`).
    @usableFromInline
    mutating func cancelledLoadRan(for elapsed: Duration) {
        latency.recordCancelled(after: elapsed)
    }

    /// A retry is about to wait: counts it and draws the jitter (a number in `0..<1`).
    @usableFromInline
    mutating func retrying() -> Double {
        stats.retries += 1
        return random.nextUnitInterval()
    }
}
