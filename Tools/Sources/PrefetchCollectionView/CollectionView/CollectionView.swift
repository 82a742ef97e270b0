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
        didSet { if oldValue !== prefetchDataSource { prefetchDataSourceChanged() } }
    }

    /// Hears about display and sizes items. Held weakly.
    public weak var delegate: (any CollectionViewDelegate)? {
        didSet { state.invalidate(.layout) }
    }

    /// The layout. Setting it lays the items out again, at once if the view has laid out.
    public var collectionViewLayout: any CollectionLayout {
        get { layoutObject }
        set {
            layoutObject = newValue
            layoutChanged()
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

    /// The number of items in `section`, as the view last read it from the data source.
    public func numberOfItems(inSection section: Int) -> Int {
        numberOfItemsStored(inSection: section)
    }

    /// The priority to load the item's data at now: pass it from `cellForItemAt` to
    /// `fetchAsync(_:priority:completion:)` or `value(for:priority:)`.
    ///
    /// It comes from the view's prefetch planner, which ranks every item on and near the
    /// screen by when it will come on screen and how long it will stay: a cell that a fling
    /// carries past gets a low priority, so it cannot hold up the cells where the fling stops.
    /// See <doc:PrefetchContract>.
    /// - Complexity: O(1).
    public func fetchPriority(forItemAt indexPath: IndexPath) -> FetchPriority {
        fetchPriority(at: indexPath)
    }

    // MARK: Batch updates (in or outside performBatchUpdates)

    /// Inserts items (index paths after the update).
    public func insertItems(at indexPaths: [IndexPath]) { record("insertItems") { $0.insertedItems.formUnion(indexPaths) } }
    /// Deletes items (index paths before the update).
    public func deleteItems(at indexPaths: [IndexPath]) { record("deleteItems") { $0.deletedItems.formUnion(indexPaths) } }
    /// Reloads items (index paths before the update): their cells are requested again.
    public func reloadItems(at indexPaths: [IndexPath]) { record("reloadItems") { $0.reloadedItems.formUnion(indexPaths) } }
    /// Moves an item from `indexPath` (before the update) to `newIndexPath` (after it).
    public func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        record("moveItem") { $0.moves.append((indexPath, newIndexPath)) }
    }

    // MARK: ItemViewHost

    func hostNumberOfSections() -> Int { dataSource?.numberOfSections(in: self) ?? 0 }
    func hostNumberOfItems(inSection section: Int) -> Int { dataSource?.collectionView(self, numberOfItemsInSection: section) ?? 0 }
    func hostCell(at indexPath: IndexPath) -> ReusableCell? { dataSource?.collectionView(self, cellForItemAt: indexPath) }

    func hostWillDisplay(_ cell: ReusableCell, at indexPath: IndexPath) {
        if let cell = cell as? CollectionViewCell { delegate?.collectionView(self, willDisplay: cell, forItemAt: indexPath) }
    }

    func hostDidEndDisplaying(_ cell: ReusableCell, at indexPath: IndexPath) {
        if let cell = cell as? CollectionViewCell { delegate?.collectionView(self, didEndDisplaying: cell, forItemAt: indexPath) }
    }

    var hostPrefetching: HostPrefetching { prefetchDataSource == nil ? .none : prioritized == nil ? .classic : .prioritized }
    private var prioritized: (any CollectionViewDataSourcePrioritizedPrefetching)? {
        prefetchDataSource as? any CollectionViewDataSourcePrioritizedPrefetching
    }
    var hostLoadReporting: (any PrefetchLoadReporting)? { prioritized }
    func hostPrefetch(_ indexPaths: [IndexPath]) { prefetchDataSource?.collectionView(self, prefetchItemsAt: indexPaths) }
    func hostCancelPrefetch(_ indexPaths: [IndexPath]) { prefetchDataSource?.collectionView(self, cancelPrefetchingForItemsAt: indexPaths) }
    func hostStopPrefetching() { prefetchDataSource = nil }
    /// A collection view's layout sizes its items: nothing is measured.
    func hostSizeItemsOnScreen() {}
    func hostItemsChanged(map: ((IndexPath) -> IndexPath?)?) {}
    func hostUpdatePrefetching(_ update: PrefetchUpdate<IndexPath>) { prioritized?.collectionView(self, updatePrefetching: update) }

    func hostLayoutEnvironment(counts: [Int]) -> LayoutEnvironment {
        let layout = layoutObject
        return layoutEnvironment(counts: counts) { [weak self] indexPath in
            guard let self, let delegate = self.delegate else { return nil }
            let size = delegate.collectionView(self, layout: layout, sizeForItemAt: indexPath)
            return size == Self.automaticSize ? nil : size
        }
    }
}
