import Foundation
import PrefetchKit

/// The app's two prefetching calls, kept where the controller runs.
@MainActor
final class PrefetchingBridge {
    let prefetch: ([IndexPath]) -> Void
    let cancelPrefetching: ([IndexPath]) -> Void

    init(prefetch: @escaping ([IndexPath]) -> Void, cancelPrefetching: @escaping ([IndexPath]) -> Void) {
        self.prefetch = prefetch
        self.cancelPrefetching = cancelPrefetching
    }
}

/// A ``/PrefetchKit/PrefetchTarget`` that hands the controller's decisions to the app's own
/// `UICollectionViewDataSourcePrefetching` (or `UITableViewDataSourcePrefetching`) code, for
/// apps that keep their prefetch code and only want a better window. It is portable: you give it
/// the two calls.
///
/// It calls the app the way UIKit does:
/// - `prefetchItemsAt` once for each item that enters the plan, most urgent first; a change of
///   priority alone calls nothing (UIKit's protocol has no priorities);
/// - `cancelPrefetchingForItemsAt` for items that leave the plan, at their index paths now;
/// - nothing for items a batch update deleted, or every item after `reloadData()`: UIKit does not
///   cancel those either, and their old index paths may name other data now. Items a batch update
///   moved keep their request under their new index path.
///
/// ```swift
/// extension PhotosViewController {
///     // `prefetching` is the app's UICollectionViewDataSourcePrefetching code, kept as it was.
///     func prefetchWithOwnCode() {
///         let target = PrefetchDataSourceTarget(lookup: .indexPaths,
///             prefetch: { [unowned self] in prefetching.collectionView(collectionView, prefetchItemsAt: $0) },
///             cancelPrefetching: { [unowned self] in prefetching.collectionView(collectionView, cancelPrefetchingForItemsAt: $0) })
///         let controller = PrefetchController(policy: PrefetchPolicies.adaptive, target: target)
///         prefetcher = ScrollViewPrefetcher(collectionView: collectionView, lookup: .indexPaths,
///                                           controller: controller)
///     }
/// }
/// ```
///
/// Use it on the main actor, where the controller runs.
public final class PrefetchDataSourceTarget<Item: Hashable>: PrefetchTarget {
    /// Unknown: the app's prefetch code does not report its latency.
    public var expectedLatency: Duration? { nil }

    private let bridge: PrefetchingBridge
    private let lookup: ItemLookup<Item>
    /// The items the app was asked to prefetch and not told to cancel.
    private var requested: Set<Item> = []

    /// Creates a target that calls your prefetching code.
    /// - Parameters:
    ///   - lookup: Names the index paths: ``/PrefetchKit/ItemLookup/indexPaths`` when the controller plans for index paths.
    ///   - prefetch: Your `collectionView(_:prefetchItemsAt:)` (or `tableView(_:prefetchRowsAt:)`).
    ///   - cancelPrefetching: Your `collectionView(_:cancelPrefetchingForItemsAt:)` (or the table view's).
    @MainActor
    public convenience init(lookup: ItemLookup<Item>, prefetch: @escaping @MainActor ([IndexPath]) -> Void,
                            cancelPrefetching: @escaping @MainActor ([IndexPath]) -> Void) {
        self.init(bridge: PrefetchingBridge(prefetch: prefetch, cancelPrefetching: cancelPrefetching), lookup: lookup)
    }

    init(bridge: PrefetchingBridge, lookup: ItemLookup<Item>) {
        self.bridge = bridge
        self.lookup = lookup
    }

    /// Cancels what left the plan, then asks for what entered it, most urgent first. Items that
    /// have no index path any more are skipped.
    public func updatePrefetching(_ update: PrefetchUpdate<Item>) {
        let (cancels, requests) = calls(for: update)
        let bridge = self.bridge
        MainActor.assumeIsolated {
            if !cancels.isEmpty { bridge.cancelPrefetching(cancels) }
            if !requests.isEmpty { bridge.prefetch(requests) }
        }
    }

    /// The index paths to cancel and to request for `update`, as UIKit would name them.
    func calls(for update: PrefetchUpdate<Item>) -> (cancels: [IndexPath], requests: [IndexPath]) {
        for item in update.removed { requested.remove(item) }
        let carried = update.moved.filter { requested.remove($0.from) != nil }
        for move in carried { requested.insert(move.to) }
        var cancels: [IndexPath] = []
        for item in update.withdrawals where requested.remove(item) != nil {
            if let path = lookup.indexPath(item) { cancels.append(path) }
        }
        var requests: [IndexPath] = []
        for request in update.requests where !requested.contains(request.item) {
            guard let path = lookup.indexPath(request.item) else { continue }
            requested.insert(request.item)
            requests.append(path)
        }
        return (cancels, requests)
    }
}
