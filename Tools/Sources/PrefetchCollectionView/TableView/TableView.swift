import Foundation
import PrefetchKit

/// A headless, frame-driven table view with UIKit's data-source, prefetching and cell-reuse
/// contracts: the engine of ``CollectionView`` with a ``ListLayout`` and row-named protocols.
///
/// ```swift
/// let tableView = TableView(frame: CGRect(x: 0, y: 0, width: 375, height: 667))
/// tableView.register(CustomTableViewCell.self, forCellReuseIdentifier: CustomTableViewCell.identifier)
/// tableView.rowHeight = 66
/// tableView.dataSource = dataSource
/// tableView.prefetchDataSource = dataSource
/// tableView.step(to: 0)
/// ```
@MainActor
public final class TableView: ItemScrollView, ItemViewHost {
    /// The height a delegate returns from `heightForRowAt` to use ``rowHeight``.
    public static let automaticDimension = -1.0

    /// Provides the rows and cells. Held weakly, as in UIKit.
    public weak var dataSource: (any TableViewDataSource)? {
        didSet { reloadData() }
    }

    /// Receives prefetch and cancel callbacks. Held weakly. Setting it to nil turns off data
    /// prefetching only; pending prefetches are forgotten.
    public weak var prefetchDataSource: (any TableViewDataSourcePrefetching)? {
        didSet { if oldValue !== prefetchDataSource { prefetchDataSourceChanged() } }
    }

    /// Hears about display and sizes rows. Held weakly.
    public weak var delegate: (any TableViewDelegate)? {
        didSet { state.invalidate(.layout) }
    }

    /// The height of rows the delegate does not size; 44 by default. Traps unless it is a
    /// finite number greater than 0.
    public var rowHeight: Double {
        get { list.rowHeight }
        set {
            do {
                list = try ListLayout(rowHeight: newValue)
            } catch {
                preconditionFailure("TableView.rowHeight: \(error)")
            }
            layoutObject = list
            layoutChanged()
        }
    }

    private var list: ListLayout

    /// Creates a table view with 44-point rows.
    ///
    /// A zero size is allowed; negative or non-finite sizes trap with a message naming the size.
    public init(frame: CGRect) {
        // 44 is valid, so this cannot throw.
        let layout = try! ListLayout(rowHeight: 44)
        list = layout
        super.init(frame: frame, layout: layout, names: .rows)
        host = self
    }

    // MARK: Cells

    /// Registers the class to create for cells with `identifier`.
    public func register(_ cellClass: TableViewCell.Type, forCellReuseIdentifier identifier: String) {
        register(cellClass as ReusableCell.Type, identifier: identifier)
    }

    /// Returns a recycled cell for `identifier` (after calling its `prepareForReuse()`), or a new
    /// one of the registered class. Call it from `cellForRowAt`.
    ///
    /// Traps with a message naming `identifier` when no class is registered for it.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: IndexPath) -> TableViewCell {
        guard let cell = dequeue(identifier: identifier, for: indexPath) as? TableViewCell else {
            preconditionFailure("the class registered for \"\(identifier)\" is not a TableViewCell")
        }
        return cell
    }

    /// The displayed cell of the row at `indexPath`, or nil when it is not on screen or the
    /// index path is out of range. Traps for index paths without exactly two non-negative indexes.
    public func cellForRow(at indexPath: IndexPath) -> TableViewCell? {
        displayedCell(at: indexPath) as? TableViewCell
    }

    /// The index paths of the rows on screen, in index path order.
    public var indexPathsForVisibleRows: [IndexPath] { sortedDisplayed }

    /// The number of rows in `section`, as the view last read it from the data source.
    public func numberOfRows(inSection section: Int) -> Int {
        numberOfItemsStored(inSection: section)
    }

    /// The priority to load the row's data at now: pass it from `cellForRowAt` to
    /// `fetchAsync(_:priority:completion:)` or `value(for:priority:)`.
    ///
    /// It comes from the view's prefetch planner; see ``CollectionView/fetchPriority(forItemAt:)``.
    /// - Complexity: O(1).
    public func fetchPriority(forRowAt indexPath: IndexPath) -> FetchPriority {
        fetchPriority(at: indexPath)
    }

    /// The frame of the row at `indexPath` in content coordinates, or nil when there is none.
    public func rectForRow(at indexPath: IndexPath) -> CGRect? { frameForItem(at: indexPath) }

    /// Scrolls so that the row at `indexPath` is at `position` in the viewport.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) naming the index path when it is
    ///   out of range.
    public func scrollToRow(at indexPath: IndexPath, at position: ScrollPosition, animated: Bool) throws {
        try scrollToItem(at: indexPath, at: position, animated: animated)
    }

    // MARK: Batch updates (in or outside performBatchUpdates)

    /// Inserts rows (index paths after the update).
    public func insertRows(at indexPaths: [IndexPath]) { record("insertItems") { $0.insertedItems.formUnion(indexPaths) } }
    /// Deletes rows (index paths before the update).
    public func deleteRows(at indexPaths: [IndexPath]) { record("deleteItems") { $0.deletedItems.formUnion(indexPaths) } }
    /// Reloads rows (index paths before the update): their cells are requested again.
    public func reloadRows(at indexPaths: [IndexPath]) { record("reloadItems") { $0.reloadedItems.formUnion(indexPaths) } }
    /// Moves a row from `indexPath` (before the update) to `newIndexPath` (after it).
    public func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        record("moveItem") { $0.moves.append((indexPath, newIndexPath)) }
    }

    // MARK: ItemViewHost

    func hostNumberOfSections() -> Int { dataSource?.numberOfSections(in: self) ?? 0 }
    func hostNumberOfItems(inSection section: Int) -> Int { dataSource?.tableView(self, numberOfRowsInSection: section) ?? 0 }
    func hostCell(at indexPath: IndexPath) -> ReusableCell? { dataSource?.tableView(self, cellForRowAt: indexPath) }

    func hostWillDisplay(_ cell: ReusableCell, at indexPath: IndexPath) {
        if let cell = cell as? TableViewCell { delegate?.tableView(self, willDisplay: cell, forRowAt: indexPath) }
    }

    func hostDidEndDisplaying(_ cell: ReusableCell, at indexPath: IndexPath) {
        if let cell = cell as? TableViewCell { delegate?.tableView(self, didEndDisplaying: cell, forRowAt: indexPath) }
    }

    var hostPrefetching: HostPrefetching { prefetchDataSource == nil ? .none : prioritized == nil ? .classic : .prioritized }
    private var prioritized: (any TableViewDataSourcePrioritizedPrefetching)? {
        prefetchDataSource as? any TableViewDataSourcePrioritizedPrefetching
    }
    var hostLoadReporting: (any PrefetchLoadReporting)? { prioritized }
    func hostPrefetch(_ indexPaths: [IndexPath]) { prefetchDataSource?.tableView(self, prefetchRowsAt: indexPaths) }
    func hostCancelPrefetch(_ indexPaths: [IndexPath]) { prefetchDataSource?.tableView(self, cancelPrefetchingForRowsAt: indexPaths) }
    func hostStopPrefetching() { prefetchDataSource = nil }
    func hostUpdatePrefetching(_ update: PrefetchUpdate<IndexPath>) { prioritized?.tableView(self, updatePrefetching: update) }

    func hostLayoutEnvironment(counts: [Int]) -> LayoutEnvironment {
        layoutEnvironment(counts: counts) { [weak self] indexPath in
            guard let self, let delegate = self.delegate else { return nil }
            let height = delegate.tableView(self, heightForRowAt: indexPath)
            return height == Self.automaticDimension ? nil : CGSize(width: self.size.width, height: height)
        }
    }
}
