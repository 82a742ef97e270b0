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

    /// The height a self-sizing row is laid out at until it is measured, in points; 0 turns
    /// self-sizing off. Traps unless it is a finite number, at least 0.
    ///
    /// UIKit's default is `automaticDimension` (estimates on, the table choosing them); here it
    /// is 0, so a table whose rows the ``rowHeight`` or the delegate sizes lays out as it always did.
    ///
    /// Above 0, rows the delegate does not size (`heightForRowAt` answers
    /// ``automaticDimension``) size themselves, as a `UITableView`'s do with Auto Layout: each
    /// is laid out at this estimate until it first comes on screen, when the view asks for its
    /// cell and gives the row the cell's ``TableViewCell/fittingHeight``. The content size
    /// changes with every row measured. When a row above the top of the screen is measured
    /// (scrolling up over rows never shown, after a jump) the content offset moves by the row's
    /// change in the same pass, so what is on screen stays in place; the scroll observer hears
    /// the content size change first and the offset's move after it, in UIKit's order. Measured
    /// heights follow their rows through batch updates; ``ItemScrollView/reloadData()`` forgets them.
    public var estimatedRowHeight: Double = 0 {
        didSet {
            precondition(estimatedRowHeight.isFinite && estimatedRowHeight >= 0,
                         "TableView.estimatedRowHeight is \(estimatedRowHeight), but it must be a finite number, at least 0")
            measuredHeights.removeAll()
            layoutChanged()
        }
    }

    /// The heights of the rows measured so far (self-sizing only), by index path.
    private var measuredHeights: [IndexPath: Double] = [:]

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
            guard let self else { return nil }
            let height = self.delegate?.tableView(self, heightForRowAt: indexPath) ?? Self.automaticDimension
            if height != Self.automaticDimension { return CGSize(width: self.size.width, height: height) }
            guard self.estimatedRowHeight > 0 else { return nil }
            return CGSize(width: self.size.width, height: self.measuredHeights[indexPath] ?? self.estimatedRowHeight)
        }
    }

    func hostItemsChanged(map: ((IndexPath) -> IndexPath?)?) {
        guard !measuredHeights.isEmpty else { return }
        guard let map else { return measuredHeights.removeAll() }
        var moved: [IndexPath: Double] = [:]
        moved.reserveCapacity(measuredHeights.count)
        for (indexPath, height) in measuredHeights {
            if let target = map(indexPath) { moved[target] = height }
        }
        measuredHeights = moved
    }

    /// Measures the self-sizing rows on screen that are still at their estimate, until every row
    /// on screen is measured: each round asks for the cells of the rows not measured yet, gives
    /// the rows their cells' heights, and keeps what is on screen in place when rows above its
    /// top changed (``estimatedRowHeight``).
    func hostSizeItemsOnScreen() {
        guard estimatedRowHeight > 0, hasArea, dataSource != nil else { return }
        // Each round measures at least one row; the bound only stops a data source whose rows
        // keep changing from spinning.
        for _ in 0..<256 {
            var unmeasured: [(IndexPath, CGRect)] = []
            list.forEachItem(in: bounds) { indexPath, frame in
                if measuredHeights[indexPath] == nil { unmeasured.append((indexPath, frame)) }
            }
            guard !unmeasured.isEmpty else { return }
            let top = contentOffsetStorage.y
            var changes: [(indexPath: IndexPath, height: Double)] = [], shift = 0.0
            for (indexPath, frame) in unmeasured {
                let height = measure(indexPath, frame: frame)
                measuredHeights[indexPath] = height
                guard height != frame.height else { continue }
                changes.append((indexPath, height))
                if frame.minY < top { shift += height - frame.height }
            }
            guard !changes.isEmpty else { continue }
            list.setHeights(changes)
            controller.invalidateLayout()
            // UIKit's order: the content size first, at the old offset; then the offset that keeps
            // what is on screen in place.
            contentSizeChangePending = true
            notifyScrollObserver()
            if shift != 0 {
                moveContentKeepingMotion(by: shift)
                notifyScrollObserver()
            }
        }
    }

    /// The height of the row at `indexPath`: the delegate's, or else its cell's fitting height
    /// (the cell is asked for, and kept for the pass to display).
    private func measure(_ indexPath: IndexPath, frame: CGRect) -> Double {
        if let delegate {
            let given = delegate.tableView(self, heightForRowAt: indexPath)
            if given != Self.automaticDimension { return given }
        }
        let cell = cells[indexPath] ?? requestCell(indexPath, frame: frame)
        let height = (cell as? TableViewCell)?.fittingHeight ?? rowHeight
        precondition(height.isFinite && height > 0,
                     "the cell for row \(indexPath) has fittingHeight \(height), but it must be a finite number greater than 0")
        return height
    }
}
