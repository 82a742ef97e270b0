import Dispatch

/// Runs blocking work (waiting on a child process, reading a pipe) on a Dispatch thread, so it
/// never holds one of the few threads of Swift's cooperative pool that other tests run on.
public func onBlockingThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
