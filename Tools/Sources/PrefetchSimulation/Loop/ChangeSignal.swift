import PrefetchKit
import PrefetchToolSupport

/// Wakes a virtual-time driver whenever something it waits for may have changed: a load reached
/// the network, a load ended, a completion handler finished its main-actor work.
///
/// The driver reads ``version``, checks its condition, and if the condition does not hold yet
/// awaits ``wait(after:)``, which returns as soon as the version moves past the one it read.
/// So it never polls and never misses a change.
///
/// Data sources hop to the main actor through `MainActorDeliveries`, which reports the
/// deliveries in progress here.
package final class ChangeSignal: Sendable {
    private struct State: Sendable {
        var version = 0
        var pendingDeliveries = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Creates a signal at version 0.
    package init() {}

    /// A counter that grows with every change.
    package var version: Int { state.withLock { $0.version } }

    /// Completion handlers that were called and have not finished their main-actor work.
    package var pendingDeliveries: Int { state.withLock { $0.pendingDeliveries } }

    /// Records a change and wakes the waiters.
    package func bump() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.version += 1
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for continuation in ready { continuation.resume() }
    }

    /// A completion handler scheduled main-actor work.
    package func deliveryScheduled() {
        state.withLock { $0.pendingDeliveries += 1 }
        bump()
    }

    /// That main-actor work finished.
    package func deliveryFinished() {
        state.withLock { $0.pendingDeliveries -= 1 }
        bump()
    }

    /// Returns once the version is past `version`.
    package func wait(after version: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.version > version { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Completion handlers that run on the main actor, counted per id until they have, so a
/// virtual-time driver can wait until every consumer of a finished load has heard.
final class MainActorDeliveries<ID: Hashable & Sendable>: Sendable {
    private let live = Locked([ID: Int]())
    /// The signal told of every delivery.
    package let signal: ChangeSignal

    /// Creates a ledger with a signal of its own.
    convenience init() {
        self.init(signal: ChangeSignal())
    }

    /// Creates a ledger that reports to `signal`.
    package init(signal: ChangeSignal) {
        self.signal = signal
    }

    /// Whether a consumer of `id` made here has not run its main-actor work yet.
    package func hasLiveConsumers(_ id: ID) -> Bool {
        live.withLock { $0[id] != nil }
    }

    /// A preview handler for a consumer of `id` that runs `body` on the main actor; the consumer
    /// counts as live from when it is called until `body` has run (it may never be called).
    @MainActor
    func preview<Value: Sendable>(for id: ID, _ body: @escaping @Sendable @MainActor (Value) -> Void) -> @Sendable (Value) -> Void {
        { [self] value in
            live.withLock { $0[id, default: 0] += 1 }
            deliver(to: id) { body(value) }
        }
    }

    /// A completion handler for a consumer of `id` that runs `body` on the main actor; the
    /// consumer counts as live from now until `body` has run.
    @MainActor
    func completion<Value: Sendable>(
        for id: ID, _ body: @escaping @Sendable @MainActor (Result<Value, any Error>) -> Void
    ) -> @Sendable (Result<Value, any Error>) -> Void {
        live.withLock { $0[id, default: 0] += 1 }
        return { [self] result in deliver(to: id) { body(result) } }
    }

    /// Runs `body` on the main actor, then counts one live consumer of `id` as done.
    private func deliver(to id: ID, _ body: @escaping @Sendable @MainActor () -> Void) {
        signal.deliveryScheduled()
        Task { @MainActor in
            body()
            self.live.withLock { live in
                let left = (live[id] ?? 1) - 1
                live[id] = left > 0 ? left : nil
            }
            self.signal.deliveryFinished()
        }
    }
}
