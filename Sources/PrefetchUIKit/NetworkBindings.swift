#if canImport(Network)
// PrefetchUIKit's other Apple-only lines: the network's conditions read from NWPathMonitor.
import Foundation
import Network
import PrefetchKit

/// Reads the network's conditions from `NWPathMonitor` (Low Data Mode, an expensive link) and
/// hands each change to you on the main actor, for a controller's
/// ``/PrefetchKit/PrefetchController/networkConditions``.
///
/// Keep it as long as you want the updates; it stops when released.
///
/// ```swift
/// monitor = NetworkConditionsMonitor { conditions in prefetcher.controller.networkConditions = conditions }
/// ```
@MainActor
public final class NetworkConditionsMonitor {
    /// The path monitor (its updates come on the main queue).
    package let monitor = NWPathMonitor()

    /// Starts watching the network: `update` runs on the main actor with the path's conditions,
    /// now and at each change, carrying `prefetchBudget` (your cap on prefetched bytes, if any).
    public init(prefetchBudget: PrefetchDataBudget? = nil, update: @escaping @MainActor @Sendable (NetworkConditions) -> Void) {
        monitor.pathUpdateHandler = { path in
            let conditions = NetworkConditions(isConstrained: path.isConstrained, isExpensive: path.isExpensive, prefetchBudget: prefetchBudget)
            MainActor.assumeIsolated { update(conditions) }   // the monitor reports on the main queue
        }
        monitor.start(queue: .main)
    }

    deinit { monitor.cancel() }
}
#endif
