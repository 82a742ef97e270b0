import Foundation

/// Runs blocking work (waiting on a child process, reading a pipe, polling sockets) on a thread of
/// its own, so it holds neither one of the few threads of Swift's cooperative pool nor one of
/// Dispatch's global queue.
///
/// Not `DispatchQueue.global()`: on Linux that queue runs about one thread per core, and Swift's
/// concurrency runs its jobs and timers on Dispatch too. Two tests blocking there for a while (a
/// socket poll that waits out a 12 s idle timeout under ThreadSanitizer, a blocking read) left an
/// in-process server's `Task.sleep` and URLSession's callbacks waiting a minute on a 2-core machine.
public func onBlockingThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "onBlockingThread"
        thread.start()
    }
}
