import Foundation
import PrefetchKit

/// The failure of one simulated attempt. Retryable, so the fetcher's `RetryPolicy` decides
/// whether another attempt follows.
///
/// When the fetcher lets go of a failure it has finished with it (its consumers have heard), so
/// a load's last failure tells the network as it goes: that is how a virtual-time driver learns
/// that a failed load has ended for good.
final class SimulatedLoadFailure: Error, RetryableError, CustomStringConvertible, Sendable {
    /// The item whose load failed.
    let item: Int
    /// The attempt that failed, from 1.
    let attempt: Int
    private let released: @Sendable () -> Void

    init(item: Int, attempt: Int, released: @escaping @Sendable () -> Void) {
        self.item = item
        self.attempt = attempt
        self.released = released
    }

    deinit { released() }

    /// Always `true`: the fetcher's retry policy decides.
    var isRetryable: Bool { true }

    /// `simulated failure of item 3, attempt 1`.
    var description: String { "simulated failure of item \(item), attempt \(attempt)" }
}
