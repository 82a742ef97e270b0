import Foundation
import PrefetchKit
import PrefetchToolSupport

/// Which ids are loading now, from the fetcher's events: the screen shows them as loading.
///
/// Fed by the fetcher's `onEvent` handler from any thread; read by the screen.
package final class LoadBoard: Sendable {
    private let loading = Locked(Set<UUID>())

    package init() {}

    /// Records one fetcher event.
    package func record(_ event: FetchEvent<UUID>) {
        loading.withLock { loading in
            switch event {
            case .loadStarted(let id): loading.insert(id)
            case .loadCompleted(let id, _), .loadCancelled(let id): loading.remove(id)
            case .loadFailed(let id, _, let willRetry): if !willRetry { loading.remove(id) }
            default: break
            }
        }
    }

    /// Whether a load of `id` is running now.
    package func isLoading(_ id: UUID) -> Bool { loading.withLock { $0.contains(id) } }
}
