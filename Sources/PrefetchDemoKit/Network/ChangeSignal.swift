import PrefetchKit

/// Wakes the virtual-time driver whenever something it waits for may have changed: a load
/// reached the network, a load ended, a completion was delivered on the main actor.
///
/// The driver reads ``version``, checks its condition, and if the condition does not hold yet
/// awaits ``wait(after:)``, which returns as soon as the version moves past the one it read.
/// So it never polls and never misses a change.
package final class ChangeSignal: Sendable {
    private struct State: Sendable {
        var version = 0
        var pendingDeliveries = 0
        var waiters: [(version: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    package init() {}

    /// A counter that grows with every change.
    package var version: Int { state.withLock { $0.version } }

    /// Completion handlers that were called and have not finished their main-actor work.
    package var pendingDeliveries: Int { state.withLock { $0.pendingDeliveries } }

    /// Records a change and wakes the waiters.
    package func bump() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.version += 1
            let ready = s.waiters.map(\.continuation)
            s.waiters.removeAll()
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// A completion handler scheduled work on the main actor.
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
                s.waiters.append((version, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
