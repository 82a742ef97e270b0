#if canImport(UIKit)
import Foundation
import PrefetchKit
import UIKit

/// A ``PrefetchKit/PrefetchTarget`` that hands the controller's decisions to the app's own
/// `UICollectionViewDataSourcePrefetching` (or `UITableViewDataSourcePrefetching`), for apps
/// that keep their prefetch code and only want a better window.
///
/// Requests become `prefetchItemsAt` (most urgent first), withdrawals and removals
/// `cancelPrefetchingForItemsAt`; priorities beyond that order are lost, since UIKit's protocol
/// has none.
///
/// ```swift
/// let target = PrefetchDataSourceTarget(collectionView: collectionView, prefetching: myPrefetcher, lookup: .indexPaths)
/// let prefetcher = ScrollViewPrefetcher(collectionView: collectionView, lookup: .indexPaths,
///                                       adapter: ScrollAdapter(controller: PrefetchController(target: target)))
/// ```
///
/// Use it on the main actor, where the controller runs.
public final class PrefetchDataSourceTarget<Item: Hashable>: PrefetchTarget {
    private let prefetch: @MainActor ([IndexPath]) -> Void
    private let cancel: @MainActor ([IndexPath]) -> Void
    private let lookup: ItemLookup<Item>

    /// The most loads the app's prefetch code runs at once, as the controller should assume.
    public let maxConcurrentLoads: Int
    /// Unknown: the app's prefetch code does not report its latency.
    public var expectedLatency: Duration? { nil }

    /// Forwards to a collection view's prefetching data source.
    @MainActor
    public convenience init(collectionView: UICollectionView, prefetching: any UICollectionViewDataSourcePrefetching,
                            lookup: ItemLookup<Item>, maxConcurrentLoads: Int = 6) {
        self.init(lookup: lookup, maxConcurrentLoads: maxConcurrentLoads,
                  prefetch: { [weak collectionView, weak prefetching] paths in
                      if let collectionView { prefetching?.collectionView(collectionView, prefetchItemsAt: paths) }
                  },
                  cancel: { [weak collectionView, weak prefetching] paths in
                      if let collectionView { prefetching?.collectionView?(collectionView, cancelPrefetchingForItemsAt: paths) }
                  })
    }

    /// Forwards to a table view's prefetching data source.
    @MainActor
    public convenience init(tableView: UITableView, prefetching: any UITableViewDataSourcePrefetching,
                            lookup: ItemLookup<Item>, maxConcurrentLoads: Int = 6) {
        self.init(lookup: lookup, maxConcurrentLoads: maxConcurrentLoads,
                  prefetch: { [weak tableView, weak prefetching] paths in
                      if let tableView { prefetching?.tableView(tableView, prefetchRowsAt: paths) }
                  },
                  cancel: { [weak tableView, weak prefetching] paths in
                      if let tableView { prefetching?.tableView?(tableView, cancelPrefetchingForRowsAt: paths) }
                  })
    }

    private init(lookup: ItemLookup<Item>, maxConcurrentLoads: Int,
                 prefetch: @escaping @MainActor ([IndexPath]) -> Void, cancel: @escaping @MainActor ([IndexPath]) -> Void) {
        self.lookup = lookup
        self.maxConcurrentLoads = max(1, maxConcurrentLoads)
        self.prefetch = prefetch
        self.cancel = cancel
    }

    /// Cancels what was removed or withdrawn, then asks for the requests, most urgent first.
    /// Items that have no index path any more are skipped.
    public func updatePrefetching(_ update: PrefetchUpdate<Item>) {
        let gone = (update.removed + update.withdrawals).compactMap(lookup.indexPath)
        let wanted = update.requests.compactMap { lookup.indexPath($0.item) }
        MainActor.assumeIsolated {
            if !gone.isEmpty { cancel(gone) }
            if !wanted.isEmpty { prefetch(wanted) }
        }
    }
}
#endif
