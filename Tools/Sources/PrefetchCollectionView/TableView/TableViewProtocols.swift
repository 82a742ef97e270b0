import Foundation
import PrefetchKit

/// Provides the rows and cells of a ``TableView``, like `UITableViewDataSource`.
@MainActor
public protocol TableViewDataSource: AnyObject {
    /// The number of sections; 1 unless you implement it.
    func numberOfSections(in tableView: TableView) -> Int

    /// The number of rows in `section`.
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int

    /// The cell for the row at `indexPath`, from ``TableView/dequeueReusableCell(withIdentifier:for:)``.
    ///
    /// The row's data may be loaded, loading, or never requested: cope with all three
    /// (see <doc:PrefetchContract>).
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell
}

extension TableViewDataSource {
    /// One section.
    public func numberOfSections(in tableView: TableView) -> Int { 1 }
}

/// Starts and cancels data loads ahead of display, like `UITableViewDataSourcePrefetching`.
@MainActor
public protocol TableViewDataSourcePrefetching: AnyObject {
    /// Starts loading the data of these rows, given nearest first.
    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath])

    /// Cancels loads started for these rows, which left the prefetch window without being
    /// displayed. Does nothing unless you implement it.
    func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath])
}

extension TableViewDataSourcePrefetching {
    /// Does nothing.
    public func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {}
}

/// A prefetch data source that takes the view's full prefetch decisions: one update per frame
/// with the priority of every row it wants loaded, visible rows included.
///
/// The table view's counterpart of ``CollectionViewDataSourcePrioritizedPrefetching``; use
/// ``TableView/fetchPriority(forRowAt:)`` in `cellForRowAt`. An `AsyncFetcher` gives you one:
/// `AsyncFetcher.prefetchDataSource(identifier:expectedBytes:)`.
@MainActor
public protocol TableViewDataSourcePrioritizedPrefetching: TableViewDataSourcePrefetching, PrefetchLoadReporting {
    /// Applies one frame's decisions; see `PrefetchUpdate` for the order of its parts.
    func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>)
}

extension TableViewDataSourcePrioritizedPrefetching {
    /// Not called: the view sends ``tableView(_:updatePrefetching:)`` instead.
    public func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) {}
}

/// Hears about cells coming on and off screen, and sizes rows, like `UITableViewDelegate`.
/// Every method is optional.
@MainActor
public protocol TableViewDelegate: AnyObject {
    /// The row's cell is about to come on screen.
    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath)

    /// The row's cell left the screen. For a row deleted by a batch update, `indexPath` is the
    /// row's index path before the update.
    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath)

    /// The height of a row; ``TableView/automaticDimension`` (the default) uses
    /// ``TableView/rowHeight``.
    ///
    /// The view asks for the first row at each reload; when that answer is `automaticDimension`
    /// it assumes you do not size rows and never asks again until the next reload. Otherwise it
    /// asks for every row once per reload (O(rows)).
    func tableView(_ tableView: TableView, heightForRowAt indexPath: IndexPath) -> Double
}

extension TableViewDelegate {
    /// Does nothing.
    public func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {}
    /// Does nothing.
    public func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {}
    /// ``TableView/automaticDimension``: use ``TableView/rowHeight``.
    public func tableView(_ tableView: TableView, heightForRowAt indexPath: IndexPath) -> Double {
        TableView.automaticDimension
    }
}
