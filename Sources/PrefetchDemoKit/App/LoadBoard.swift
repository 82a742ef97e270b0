import Foundation
import PrefetchKit

/// What the fetcher's events say about each id: which are loading now, and which loads completed.
///
/// Fed by the fetcher's `onEvent` handler from any thread; read by the screen and the summary.
package final class LoadBoard: Sendable {
    private struct State: Sendable {
        var loading: Set<UUID> = []
        var completed: [UUID] = []
        var prefetchCancels = 0
    }

    private let state = Locked(State())
    private let signal: ChangeSignal?

    package init(signal: ChangeSignal?) {
        self.signal = signal
    }

    /// Records one fetcher event.
    package func record(_ event: FetchEvent<UUID>) {
        state.withLock { s in
            switch event {
            case .loadStarted(let id): s.loading.insert(id)
            case .loadCompleted(let id, _):
                s.loading.remove(id)
                s.completed.append(id)
            case .loadCancelled(let id): s.loading.remove(id)
            case .loadFailed(let id, _, let willRetry): if !willRetry { s.loading.remove(id) }
            default: break
            }
        }
        signal?.bump()
    }

    /// Whether a load of `id` is running now.
    package func isLoading(_ id: UUID) -> Bool { state.withLock { $0.loading.contains(id) } }

    /// Every completed load's id, in completion order.
    package var completed: [UUID] { state.withLock { $0.completed } }
}
