import Foundation
import PrefetchKit

extension AsyncFetcher {
    /// A prefetch data source for a ``CollectionView`` or ``TableView`` that lets the view's
    /// controller decide every load of this fetcher: what to prefetch, what to cancel, and the
    /// priority of each.
    ///
    /// Keep a reference to it, as to any data source: the view holds its prefetch data source weakly.
    ///
    /// ```swift
    /// prefetcher = fetcher.prefetchDataSource { indexPath in models[indexPath.item].identifier }
    /// collectionView.prefetchDataSource = prefetcher
    /// // in cellForItemAt:
    /// fetcher.fetchAsync(id, priority: collectionView.fetchPriority(forItemAt: indexPath)) { result in /* fill the cell */ }
    /// ```
    ///
    /// - Parameters:
    ///   - identifier: The id of an index path's data, or `nil` when it is not known yet (a page
    ///     that has not arrived); such an item is skipped.
    ///   - expectedBytes: The size of an index path's data on the wire, when the feed says; the
    ///     view then plans each item with its own load time (see
    ///     ``PrefetchKit/AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``).
    @MainActor
    public func prefetchDataSource(
        identifier: @escaping (IndexPath) -> ID?, expectedBytes: ((IndexPath) -> Int?)? = nil
    ) -> FetcherPrefetchDataSource<ID, Value> {
        FetcherPrefetchDataSource(target: prefetchTarget(identifier: identifier, expectedBytes: expectedBytes))
    }
}

/// A prioritized prefetch data source backed by an `AsyncFetcher`: made by
/// `AsyncFetcher.prefetchDataSource(identifier:expectedBytes:)`.
///
/// It forwards each frame's decisions to the fetcher's prefetch target, which keeps the id it
/// requested under each index path, reports the fetcher's latency to the view, and on memory
/// pressure (``ItemScrollView/handleMemoryPressure()``) trims the fetcher's cache to the items the
/// view keeps.
@MainActor
public final class FetcherPrefetchDataSource<ID: Hashable & Sendable, Value: Sendable>:
    CollectionViewDataSourcePrioritizedPrefetching, TableViewDataSourcePrioritizedPrefetching
{
    /// The target the decisions go to.
    let target: any PrefetchTarget<IndexPath>
    /// Whether the fetcher has a data store: under a memory budget the view sends what its memory
    /// cannot hold there (`FetchDestination.store`).
    public let acceptsStoreDestination: Bool

    init(target: some PrefetchTarget<IndexPath>) {
        self.target = target
        acceptsStoreDestination = target.acceptsStoreDestination
    }

    /// Forwards the collection view's decisions to the fetcher.
    public func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        target.updatePrefetching(update)
    }

    /// Forwards the table view's decisions to the fetcher.
    public func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        target.updatePrefetching(update)
    }

    /// The fetcher's expected latency (its recent 90th percentile, cancelled loads counted as
    /// lasting at least as long as they ran).
    public var expectedLatency: Duration? { target.expectedLatency }

    /// The fetcher's median latency.
    public var typicalLatency: Duration? { target.typicalLatency }

    /// The fetcher's median latency for a load of the item's size, when sizes were given and the
    /// fetcher has measured its transfer rate.
    public func typicalLatency(of indexPath: IndexPath) -> Duration? { target.typicalLatency(of: indexPath) }

    /// How many values fit the fetcher's memory budget at once (`FetcherConfiguration.memoryBudget`
    /// over a typical value's cost); `nil` without a budget.
    public var prefetchCapacity: Int? { target.prefetchCapacity }

    /// Keeps in the fetcher's memory cache only the values of `indexPaths` (the ids requested
    /// under them; `AsyncFetcher.trimCache(keeping:)`).
    public func trimMemory(keeping indexPaths: [IndexPath]) {
        target.trimMemory(keeping: indexPaths)
    }
}
