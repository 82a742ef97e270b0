// The workers' small inputs to a `FetcherStateMachine`: a task handle registered, a cancelled
// load's running time, a retry.
extension FetcherStateMachine {
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
    @inlinable
    mutating func cancelledLoadRan(for elapsed: Duration) {
        latency.recordCancelled(after: elapsed)
    }

    /// A retry is about to wait: counts it and draws the jitter (a number in `0..<1`).
    @inlinable
    mutating func retrying() -> Double {
        stats.retries += 1
        return random.nextUnitInterval()
    }
}
