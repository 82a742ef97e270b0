import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrefetchKit

/// One request's state: the waiting caller, the bytes so far, and the task and timer to stop.
///
/// Whoever finishes first (the delegate, the timer, a cancellation) wins; the rest are no-ops.
/// The continuation is resumed, and the task and timer cancelled, after the lock is released.
final class Exchange: Sendable {
    private enum Phase: Sendable { case waiting, head, done }

    private struct State: Sendable {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<Data, any Error>?
        var earlyResult: Result<Data, any Error>?
        var body = Data()
        var task: URLSessionDataTask?
        var timer: Task<Void, Never>?
        var credentialsDropped = false
    }

    let url: URL
    let maxResponseSize: Int
    private let state = Locked(State())

    init(url: URL, maxResponseSize: Int) {
        self.url = url
        self.maxResponseSize = maxResponseSize
    }

    /// Stores the caller's continuation; `false` (having resumed it) if the exchange already finished.
    func install(_ continuation: CheckedContinuation<Data, any Error>) -> Bool {
        let early = state.withLock { s -> Result<Data, any Error>? in
            if let early = s.earlyResult { return early }
            s.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Attaches the running task and its timer, or cancels them if the exchange finished meanwhile.
    func attach(task: URLSessionDataTask, timer: Task<Void, Never>) {
        let finished = state.withLock { s -> Bool in
            guard s.phase != .done else { return true }
            s.task = task
            s.timer = timer
            return false
        }
        if finished {
            task.cancel()
            timer.cancel()
        }
    }

    var hasResponseHead: Bool { state.withLock { $0.phase != .waiting } }

    /// False once a redirect left the original origin: later hops never get the credentials back.
    var credentialsStillAllowed: Bool { state.withLock { !$0.credentialsDropped } }

    /// Records that a redirect left the original origin.
    func dropCredentials() {
        state.withLock { $0.credentialsDropped = true }
    }

    /// Records the response head.
    func receivedHead() {
        state.withLock { s in if s.phase == .waiting { s.phase = .head } }
    }

    /// Appends a chunk of the body; fails the exchange when it passes the size limit.
    func received(_ data: Data) {
        let total = state.withLock { s -> Int? in
            guard s.phase != .done else { return nil }
            s.body.append(data)
            return s.body.count
        }
        if let total, total > maxResponseSize {
            finish(.failure(HTTPLoaderError(.responseTooLarge,
                "GET \(url.absoluteString) body passed \(total) bytes; the maximum response size is \(maxResponseSize) bytes",
                url: url)))
        }
    }

    /// Completes with the body received so far.
    func succeed() {
        let body = state.withLock { $0.body }
        finish(.success(body))
    }

    /// Ends the exchange once: resumes the caller, stops the timer, cancels the task on failure.
    func finish(_ result: Result<Data, any Error>) {
        let effects = state.withLock { s -> (CheckedContinuation<Data, any Error>?, URLSessionDataTask?, Task<Void, Never>?)? in
            guard s.phase != .done else { return nil }
            s.phase = .done
            let continuation = s.continuation
            if continuation == nil { s.earlyResult = result }
            let effects = (continuation, s.task, s.timer)
            s.continuation = nil
            s.task = nil
            s.timer = nil
            s.body = Data()
            return effects
        }
        guard let (continuation, task, timer) = effects else { return }
        continuation?.resume(with: result)
        timer?.cancel()
        // A failure (cancellation, timeout, size limit, bad status) stops the transfer and closes its connection.
        if case .failure = result { task?.cancel() }
    }
}
