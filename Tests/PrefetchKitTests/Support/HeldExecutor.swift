@testable import PrefetchKit

/// A task executor whose jobs run only when the test says so: a task that prefers it stays
/// suspended, at a known point, until ``runAll()``.
///
/// With it a test can put an event between "a continuation was resumed" and "its task ran",
/// deterministically, without sleeping.
final class HeldExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var watchers: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let watchers = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.jobs.append(job)
            defer { s.watchers.removeAll() }
            return s.watchers
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Runs every job enqueued so far, and those they enqueue, until none is left.
    func runAll() {
        while let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Suspends until at least one job is held.
    func waitForJob() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if !s.jobs.isEmpty { return true }
                s.watchers.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
