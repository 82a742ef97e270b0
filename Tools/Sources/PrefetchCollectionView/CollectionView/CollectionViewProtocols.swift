import Foundation
import PrefetchKit

/// Provides the items and cells of a ``CollectionView``, like `UICollectionViewDataSource`.
@MainActor
public protocol CollectionViewDataSource: AnyObject {
    /// The number of sections; 1 unless you implement it.
    func numberOfSections(in collectionView: CollectionView) -> Int

    /// The number of items in `section`.
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int

    /// The cell for the item at `indexPath`, from
    /// ``CollectionView/dequeueReusableCell(withReuseIdentifier:for:)``.
    ///
    /// With ``ItemScrollView/isPrefetchingEnabled`` the view may ask ahead of display, and may
    /// never display the cell. The item's data may be loaded, loading, or never requested: cope
    /// with all three (see <doc:PrefetchContract>).
    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell
}

extension CollectionViewDataSource {
    /// One section.
    public func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
}

/// Starts and cancels data loads ahead of display, like `UICollectionViewDataSourcePrefetching`.
///
/// See <doc:PrefetchContract> for when each method is called.
@MainActor
public protocol CollectionViewDataSourcePrefetching: AnyObject {
    /// Starts loading the data of these items, given nearest first.
    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath])

    /// Cancels loads started for these items, which left the prefetch window without being
    /// displayed. Does nothing unless you implement it.
    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath])
}

extension CollectionViewDataSourcePrefetching {
    /// Does nothing.
    public func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {}
}

/// A prefetch data source that takes the view's full prefetch decisions: one update per frame
/// with the priority of every item it wants loaded, visible items included.
///
/// Adopt it instead of the two callbacks of ``CollectionViewDataSourcePrefetching`` (which the
/// view then never calls) to let the view's prefetch planner rank every load: set each
/// request's priority on the item's prefetch interest, and use
/// ``CollectionView/fetchPriority(forItemAt:)`` in `cellForItemAt`. An `AsyncFetcher` gives
/// you one: `AsyncFetcher.prefetchDataSource(identifier:expectedBytes:)` (this module's extension).
/// See <doc:PrefetchContract>.
@MainActor
public protocol CollectionViewDataSourcePrioritizedPrefetching: CollectionViewDataSourcePrefetching, PrefetchLoadReporting {
    /// Applies one frame's decisions; see `PrefetchUpdate` for the order of its parts.
    ///
    /// Removals and withdrawals name items by the index paths they were requested under: keep
    /// what you requested under each index path (a batch update may have given it to other data).
    func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>)
}

extension CollectionViewDataSourcePrioritizedPrefetching {
    /// Not called: the view sends ``collectionView(_:updatePrefetching:)`` instead.
    public func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {}
}

/// What a prioritized prefetch data source reports about its loads, so the view plans with
/// them: the latency of the fetcher behind it.
@MainActor
public protocol PrefetchLoadReporting: AnyObject {
    /// A latency to plan prefetching with (a high percentile, as `AsyncFetcher.expectedLatency`);
    /// `nil` until measured.
    var expectedLatency: Duration? { get }

    /// How long a typical load takes (a median); `nil` until measured. By default ``expectedLatency``.
    var typicalLatency: Duration? { get }

    /// How long a typical load of the item's data takes, when the data source knows its size
    /// (as `PrefetchTarget.typicalLatency(of:)`); `nil`, the default, plans it with ``typicalLatency``.
    func typicalLatency(of indexPath: IndexPath) -> Duration?

    /// How many items' data the fetcher's memory holds at once (as
    /// `PrefetchTarget.prefetchCapacity`); `nil`, the default, for no limit.
    var prefetchCapacity: Int? { get }

    /// Memory pressure: keep in memory only the data of `indexPaths` (the items on screen and
    /// where a fling comes to rest, oldest request first). The view calls it from
    /// ``ItemScrollView/handleMemoryPressure()`` after it withdrew the other requests. The
    /// default does nothing.
    func trimMemory(keeping indexPaths: [IndexPath])

    /// Whether requests beyond ``prefetchCapacity`` may go to the fetcher's data store only (as
    /// `PrefetchTarget.acceptsStoreDestination`); `false`, the default, drops them.
    var acceptsStoreDestination: Bool { get }
}

extension PrefetchLoadReporting {
    /// ``expectedLatency``.
    public var typicalLatency: Duration? { expectedLatency }

    /// `nil`: every item is planned with ``typicalLatency``.
    public func typicalLatency(of indexPath: IndexPath) -> Duration? { nil }

    /// `nil`: no limit.
    public var prefetchCapacity: Int? { nil }

    /// Does nothing.
    public func trimMemory(keeping indexPaths: [IndexPath]) {}

    /// `false`.
    public var acceptsStoreDestination: Bool { false }
}

/// Hears about cells coming on and off screen, and sizes items, like
/// `UICollectionViewDelegateFlowLayout`. Every method is optional.
@MainActor
public protocol CollectionViewDelegate: AnyObject {
    /// The item's cell is about to come on screen.
    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath)

    /// The item's cell left the screen. For an item deleted by a batch update, `indexPath` is the
    /// item's index path before the update.
    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath)

    /// The size of an item, for ``FlowLayout`` (the first item of each section sizes the section)
    /// and ``ListLayout`` (the height of each row).
    ///
    /// Return ``CollectionView/automaticSize`` (the default) to use the layout's own size. The
    /// view asks for `[0, 0]` (or the first item) at each reload; when that answer is
    /// `automaticSize` it assumes you do not size items and never asks again until the next reload.
    func collectionView(_ collectionView: CollectionView, layout collectionViewLayout: any CollectionLayout, sizeForItemAt indexPath: IndexPath) -> CGSize
}

extension CollectionViewDelegate {
    /// Does nothing.
    public func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {}
    /// Does nothing.
    public func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {}
    /// ``CollectionView/automaticSize``: use the layout's size.
    public func collectionView(_ collectionView: CollectionView, layout collectionViewLayout: any CollectionLayout, sizeForItemAt indexPath: IndexPath) -> CGSize {
        CollectionView.automaticSize
    }
}
