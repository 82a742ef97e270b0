import PrefetchKit

// What the app's prefetcher plans with: the policy, the network's conditions, and whether it works ahead.
extension SampleApp {
    /// The policy the app's prefetcher plans with (adaptive by default); without one, the view's own.
    public var policy: any PrefetchPolicy {
        get { prefetcher?.controller.policy ?? listFeed?.controller.policy ?? surface.prefetchPolicy }
        set {
            if let prefetcher {
                prefetcher.controller.policy = newValue
            } else if let listFeed {
                listFeed.controller.policy = newValue
            } else {
                surface.prefetchPolicy = newValue
            }
        }
    }

    /// The network's conditions the app's prefetcher plans under (and the view's own prefetching).
    public var networkConditions: NetworkConditions {
        get { prefetcher?.controller.networkConditions ?? listFeed?.controller.networkConditions ?? surface.networkConditions }
        set {
            prefetcher?.controller.networkConditions = newValue
            listFeed?.controller.networkConditions = newValue
            surface.networkConditions = newValue
        }
    }

    /// Whether the app works ahead of display: the view prepares cells ahead and the prefetcher's
    /// plan reaches the fetcher. `false` stops both (UIKit's `isPrefetchingEnabled`, and the
    /// prefetcher's controller without a target: it plans nothing and withdraws what it held).
    public var isPrefetchingEnabled: Bool {
        get { surface.isPrefetchingEnabled }
        set {
            surface.isPrefetchingEnabled = newValue
            prefetcher?.controller.target = newValue ? prefetchTarget : nil
            listFeed.map { $0.controller.target = newValue ? $0.target : nil }
        }
    }
}
