import PrefetchKit

/// A ``/PrefetchKit/PrefetchTarget`` that records every update of a ``/PrefetchKit/PrefetchController``
/// and keeps what is requested, as a fetcher would, so a test can check the controller's
/// decisions without a fetcher.
///
/// ```swift
/// let target = RecordingPrefetchTarget<Int>()
/// let controller = PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)
/// controller.update(state, geometry: rows)
/// #expect(target.requested[42]?.level == .prefetch)
/// ```
public final class RecordingPrefetchTarget<Item: Hashable>: PrefetchTarget {
    /// Every update received, in order.
    public private(set) var updates: [PrefetchUpdate<Item>] = []
    /// What is requested now, with its latest priority.
    public private(set) var requested: [Item: FetchPriority] = [:]
    /// The latency reported to the controller as ``/PrefetchKit/PrefetchTarget/expectedLatency``.
    public var expectedLatency: Duration?
    /// The latency reported as ``/PrefetchKit/PrefetchTarget/typicalLatency``; `nil` reports none.
    public var typicalLatency: Duration?

    /// Whether the target says it loads previews (``/PrefetchKit/PrefetchTarget/acceptsPreviews``):
    /// then a controller with a ``/PrefetchKit/PreviewPlan`` sets each request's quality. `false` by default.
    public var acceptsPreviews = false

    /// Creates a target that reports no latency.
    public init() {}

    /// Records `update` and applies it to ``requested`` in the documented order: removals,
    /// renames, withdrawals, requests.
    public func updatePrefetching(_ update: PrefetchUpdate<Item>) {
        updates.append(update)
        for item in update.removed { requested[item] = nil }
        var carried: [(Item, FetchPriority)] = []
        for move in update.moved {
            if let priority = requested.removeValue(forKey: move.from) { carried.append((move.to, priority)) }
        }
        for (item, priority) in carried { requested[item] = priority }
        for item in update.withdrawals { requested[item] = nil }
        for request in update.requests { requested[request.item] = request.priority }
    }

    /// The last update received, or an empty one.
    package var lastUpdate: PrefetchUpdate<Item> { updates.last ?? PrefetchUpdate() }
}
