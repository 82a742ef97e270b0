import Foundation
import PrefetchKit

/// A headless, frame-driven collection view with UIKit's data-source, prefetching and
/// cell-reuse contracts.
///
/// Code written for `UICollectionView` ports almost line for line; time is explicit, so call
/// ``ItemScrollView/step(to:)`` once per frame.
///
/// ```swift
/// let layout = try FlowLayout(itemSize: CGSize(width: 150, height: 100))
/// let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 343, height: 333),
///                                     collectionViewLayout: layout)
/// collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
/// collectionView.dataSource = dataSource
/// collectionView.prefetchDataSource = dataSource
/// collectionView.step(to: 0)                 // first layout: cells and the initial prefetch window
/// collectionView.fling(velocity: 3000)
/// for frame in 1...60 { collectionView.step(to: Double(frame) / 60) }
/// ```
@MainActor
public final class CollectionView: ItemScrollView, ItemViewHost {
    /// The size a delegate returns from `sizeForItemAt` to let the layout decide.
    public static let automaticSize = CGSize(width: -1, height: -1)

    /// Provides the items and cells. Held weakly, as in UIKit.
    public weak var dataSource: (any CollectionViewDataSource)? {
        didSet { reloadData() }
    }

    /// Receives prefetch and cancel callbacks. Held weakly. Setting it to nil turns off data
    /// prefetching only (cells are still prepared ahead); pending prefetches are forgotten.
    public weak var prefetchDataSource: (any CollectionViewDataSourcePrefetching)? {
        didSet {
            if oldValue !== prefetchDataSource {
                pendingPrefetch.removeAll()
                controller.reset()
            }
        }
    }

    /// Hears about display and sizes items. Held weakly.
    public weak var delegate: (any CollectionViewDelegate)? {
        didSet { needsLayoutPreparation = true }
    }

    /// The layout. Setting it lays the items out again at the next pass.
    public var collectionViewLayout: any CollectionLayout {
        get { layoutObject }
        set {
            layoutObject = newValue
            needsLayoutPreparation = true
            if hasLaidOut { layoutIfNeeded() }
        }
    }

    /// Creates a collection view.
    ///
    /// A zero size is allowed (the view shows nothing until it has one); negative or non-finite
    /// sizes trap with a message naming the size.
    public init(frame: CGRect, collectionViewLayout layout: any CollectionLayout) {
        super.init(frame: frame, layout: layout, names: .items)
        host = self
    }

    // MARK: Cells

    /// Registers the class to create for cells with `identifier`.
    public func register(_ cellClass: CollectionViewCell.Type, forCellWithReuseIdentifier identifier: String) {
        register(cellClass as ReusableCell.Type, identifier: identifier)
    }

    /// Returns a recycled cell for `identifier` (after calling its `prepareForReuse()`), or a new
    /// one of the registered class. Call it from `cellForItemAt`.
    ///
    /// Traps with a message naming `identifier` when no class is registered for it.
    public func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = dequeue(identifier: identifier, for: indexPath) as? CollectionViewCell else {
            preconditionFailure("the class registered for \"\(identifier)\" is not a CollectionViewCell")
        }
        return cell
    }

    /// The displayed cell of the item at `indexPath`, or nil when it is not on screen or the
    /// index path is out of range. Traps for index paths without exactly two non-negative indexes.
    ///
    /// - Complexity: O(1).
    public func cellForItem(at indexPath: IndexPath) -> CollectionViewCell? {
        displayedCell(at: indexPath) as? CollectionViewCell
    }

    /// The index paths of the items on screen, in index path order.
    public var indexPathsForVisibleItems: [IndexPath] { sortedDisplayed }

    /// The cells on screen, in index path order.
    public var visibleCells: [CollectionViewCell] {
        sortedDisplayed.compactMap { cells[$0] as? CollectionViewCell }
    }

    /// The index path of a held (displayed or prepared) cell.
    public func indexPath(for cell: CollectionViewCell) -> IndexPath? {
        cell.owner === self && cell.state == .inUse ? cell.indexPath : nil
    }

    /// The number of items in `section`, as the view last read it from the data source.
    public func numberOfItems(inSection section: Int) -> Int {
        numberOfItemsStored(inSection: section)
    }

    /// The priority to load the item's data at now: pass it from `cellForItemAt` to
    /// `fetchAsync(_:priority:completion:)` or `value(for:priority:)`.
    ///
    /// It comes from the view's `PrefetchController`, which ranks every item on and near the
    /// screen by when it will come on screen and how long it will stay: a cell that a fling
    /// carries past gets a low priority, so it cannot hold up the cells where the fling stops.
    /// See <doc:PrefetchContract>.
    /// - Complexity: O(1).
    public func fetchPriority(forItemAt indexPath: IndexPath) -> FetchPriority {
        fetchPriority(at: indexPath)
    }

    /// The frame of the item at `indexPath` in content coordinates, or nil when there is none.
    public func frameForItem(at indexPath: IndexPath) -> CGRect? {
        if needsReload || needsLayoutPreparation { prepareData() }
        return layoutObject.frameForItem(at: indexPath)
    }

    // MARK: Batch updates

    /// Applies several changes at once: change your data and call the insert, delete, move and
    /// reload methods inside `updates`.
    ///
    /// As in UIKit, deletions, reloads and move sources use index paths from before the update;
    /// insertions and move destinations use index paths after it. Displayed and prepared cells
    /// and the prefetch state move with their items; every callback after the update uses the
    /// new index paths (only `didEndDisplaying` of a deleted item carries its old index path).
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) when an index path is out of
    ///   range or the data source's counts disagree with the changes, naming the counts. The
    ///   view then keeps its state from before the update; call ``ItemScrollView/reloadData()``.
    public func performBatchUpdates(_ updates: () throws -> Void) throws {
        try performUpdates(updates)
    }

    /// Inserts sections (indexes after the update).
    public func insertSections(_ sections: IndexSet) { recordInsertSections(sections) }
    /// Deletes sections (indexes before the update).
    public func deleteSections(_ sections: IndexSet) { recordDeleteSections(sections) }
    /// Inserts items (index paths after the update).
    public func insertItems(at indexPaths: [IndexPath]) { recordInsertItems(indexPaths) }
    /// Deletes items (index paths before the update).
    public func deleteItems(at indexPaths: [IndexPath]) { recordDeleteItems(indexPaths) }
    /// Reloads items (index paths before the update): their cells are requested again.
    public func reloadItems(at indexPaths: [IndexPath]) { recordReloadItems(indexPaths) }
    /// Moves an item from `indexPath` (before the update) to `newIndexPath` (after it).
    public func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) { recordMove(from: indexPath, to: newIndexPath) }

    // MARK: ItemViewHost

    func hostNumberOfSections() -> Int {
        guard let dataSource else { return 0 }
        return dataSource.numberOfSections(in: self)
    }

    func hostNumberOfItems(inSection section: Int) -> Int {
        dataSource?.collectionView(self, numberOfItemsInSection: section) ?? 0
    }

    func hostCell(at indexPath: IndexPath) -> ReusableCell? {
        dataSource?.collectionView(self, cellForItemAt: indexPath)
    }

    func hostWillDisplay(_ cell: ReusableCell, at indexPath: IndexPath) {
        guard let cell = cell as? CollectionViewCell else { return }
        delegate?.collectionView(self, willDisplay: cell, forItemAt: indexPath)
    }

    func hostDidEndDisplaying(_ cell: ReusableCell, at indexPath: IndexPath) {
        guard let cell = cell as? CollectionViewCell else { return }
        delegate?.collectionView(self, didEndDisplaying: cell, forItemAt: indexPath)
    }

    var hostPrefetching: HostPrefetching {
        guard let prefetchDataSource else { return .none }
        return prefetchDataSource is any CollectionViewDataSourcePrioritizedPrefetching ? .prioritized : .classic
    }

    private var prioritizedPrefetchDataSource: (any CollectionViewDataSourcePrioritizedPrefetching)? {
        prefetchDataSource as? any CollectionViewDataSourcePrioritizedPrefetching
    }

    var hostLoadReporting: (any PrefetchLoadReporting)? { prioritizedPrefetchDataSource }

    func hostPrefetch(_ indexPaths: [IndexPath]) {
        prefetchDataSource?.collectionView(self, prefetchItemsAt: indexPaths)
    }

    func hostCancelPrefetch(_ indexPaths: [IndexPath]) {
        prefetchDataSource?.collectionView(self, cancelPrefetchingForItemsAt: indexPaths)
    }

    func hostUpdatePrefetching(_ update: PrefetchUpdate<IndexPath>) {
        prioritizedPrefetchDataSource?.collectionView(self, updatePrefetching: update)
    }

    func hostLayoutEnvironment(counts: [Int]) -> LayoutEnvironment {
        let layout = layoutObject
        var provides = false
        if let delegate, let first = counts.firstIndex(where: { $0 > 0 }) {
            provides = delegate.collectionView(self, layout: layout, sizeForItemAt: IndexPath(indexes: [first, 0])) != Self.automaticSize
        }
        return LayoutEnvironment(
            boundsSize: size, contentInset: contentInset, numberOfItems: counts, providesItemSizes: provides,
            sizeForItem: { [weak self] indexPath in
                guard let self, let delegate = self.delegate else { return nil }
                let size = delegate.collectionView(self, layout: layout, sizeForItemAt: indexPath)
                return size == Self.automaticSize ? nil : size
            }
        )
    }
}
