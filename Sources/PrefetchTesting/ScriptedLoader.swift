import PrefetchKit

/// A loader whose calls wait until a test answers them: a gate per load, no sleeps.
///
/// Each ``load(_:)`` call suspends until the test calls ``succeed(_:with:)`` or
/// ``fail(_:with:)`` for its id (oldest call first), or until its task is cancelled. Tests wait
/// for calls with ``waitForCalls(_:)``, so they never poll or sleep.
///
/// ```swift
/// let loader = ScriptedLoader<Int, String>()
/// let fetcher = try AsyncFetcher(loader: loader)
/// fetcher.prefetch([1])
/// await loader.waitForCalls(1)
/// loader.succeed(1, with: "one")
/// ```
public final class ScriptedLoader<ID: Hashable & Sendable, Value: Sendable>: DataLoader, Sendable {
    private struct Call: Sendable {
        var number: Int
        var id: ID
        var continuation: CheckedContinuation<Value, any Error>?
    }

    private struct State: Sendable {
        var calls: [Call] = []
        var started = 0
        /// Calls that reached the point where a test can answer them (or were answered at once).
        var registered = 0
        var cancelled: [ID] = []
        var callLog: [ID] = []
        var pendingCancel: Set<Int> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var cancelWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())
    private let autoRespond: (@Sendable (ID) throws -> Value)?
    /// Whether calls keep waiting when their task is cancelled, like a loader that ignores cancellation.
    package let ignoresCancellation: Bool

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - ignoresCancellation: keep a cancelled call waiting until the test answers it.
    ///   - autoRespond: answer every call at once with this function instead of waiting.
    public init(ignoresCancellation: Bool = false, autoRespond: (@Sendable (ID) throws -> Value)? = nil) {
        self.ignoresCancellation = ignoresCancellation
        self.autoRespond = autoRespond
    }

    /// Waits for the test's answer for `id`.
    public func load(_ id: ID) async throws -> Value {
        let number = state.withLock { s -> Int in
            s.started += 1
            s.callLog.append(id)
            return s.started
        }
        if let autoRespond {
            state.withLock { $0.registered += 1 }
            notifyWatchers()
            return try autoRespond(id)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let early = state.withLock { s -> Bool in
                    s.registered += 1
                    if s.pendingCancel.remove(number) != nil, !ignoresCancellation { return true }
                    s.calls.append(Call(number: number, id: id, continuation: continuation))
                    return false
                }
                if early { continuation.resume(throwing: CancellationError()) }
                notifyWatchers()
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Value, any Error>? in
                s.cancelled.append(id)
                if ignoresCancellation { return nil }
                guard let index = s.calls.firstIndex(where: { $0.number == number }) else {
                    s.pendingCancel.insert(number)
                    return nil
                }
                return s.calls.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
            notifyWatchers()
        }
    }

    /// Answers the oldest waiting call for `id` with `value`; returns `false` when none waits.
    @discardableResult
    public func succeed(_ id: ID, with value: Value) -> Bool {
        answer(id, .success(value))
    }

    /// Answers the oldest waiting call for `id` with `error`; returns `false` when none waits.
    @discardableResult
    public func fail(_ id: ID, with error: any Error) -> Bool {
        answer(id, .failure(error))
    }

    /// The ids of the calls waiting now, oldest first.
    public var pendingIDs: [ID] { state.withLock { $0.calls.map(\.id) } }
    /// The number of calls made so far.
    public var callCount: Int { state.withLock { $0.started } }
    /// The ids of every call made so far, in call order.
    public var calledIDs: [ID] { state.withLock { $0.callLog } }
    /// The ids of the calls whose task was cancelled, in order.
    public var cancelledIDs: [ID] { state.withLock { $0.cancelled } }

    /// Suspends until at least `count` calls have been made and can be answered.
    public func waitForCalls(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.registered >= count { return true }
                s.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Suspends until at least `count` calls have seen their task cancelled.
    public func waitForCancellations(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.cancelled.count >= count { return true }
                s.cancelWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func answer(_ id: ID, _ result: Result<Value, any Error>) -> Bool {
        let continuation = state.withLock { s -> CheckedContinuation<Value, any Error>?? in
            guard let index = s.calls.firstIndex(where: { $0.id == id }) else { return nil }
            return s.calls.remove(at: index).continuation
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }

    private func notifyWatchers() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            var ready = s.watchers.filter { s.registered >= $0.count }.map(\.continuation)
            s.watchers.removeAll { s.registered >= $0.count }
            ready += s.cancelWatchers.filter { s.cancelled.count >= $0.count }.map(\.continuation)
            s.cancelWatchers.removeAll { s.cancelled.count >= $0.count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

