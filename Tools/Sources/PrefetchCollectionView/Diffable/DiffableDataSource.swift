import Foundation
import PrefetchKit

/// A data source that takes snapshots and updates its ``CollectionView`` with the difference,
/// like `UICollectionViewDiffableDataSource`.
///
/// ```swift
/// let dataSource = DiffableDataSource<Section, Item.ID>(collectionView: collectionView) {
///     collectionView, indexPath, id in
///     let cell = collectionView.dequeueReusableCell(withReuseIdentifier: "Cell", for: indexPath)
///     (cell as? Cell)?.configure(with: id)
///     return cell
/// }
/// var snapshot = Snapshot<Section, Item.ID>()
/// snapshot.appendSections([.main])
/// snapshot.appendItems(ids)
/// try dataSource.apply(snapshot)
/// ```
///
/// Keep a strong reference to it: the collection view holds its data source weakly.
@MainActor
public final class DiffableDataSource<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable>: CollectionViewDataSource {
    /// Makes the cell for an item.
    public typealias CellProvider = (CollectionView, IndexPath, ItemIdentifierType) -> CollectionViewCell

    private weak var collectionView: CollectionView?
    private let cellProvider: CellProvider
    private var current = Snapshot<SectionIdentifierType, ItemIdentifierType>()
    private var indexPathOfItem: [ItemIdentifierType: IndexPath] = [:]

    /// Creates a data source and makes it `collectionView`'s ``CollectionView/dataSource``.
    public init(collectionView: CollectionView, cellProvider: @escaping CellProvider) {
        self.collectionView = collectionView
        self.cellProvider = cellProvider
        collectionView.dataSource = self
    }

    /// A copy of the current snapshot.
    public func snapshot() -> Snapshot<SectionIdentifierType, ItemIdentifierType> {
        current
    }

    /// Makes `snapshot` current and updates the collection view with one batch update: deleted,
    /// inserted, moved and reloaded items and sections, with cells and prefetch state moving with
    /// their items.
    ///
    /// The headless view does not animate; `animatingDifferences` is accepted for source
    /// compatibility and ignored.
    ///
    /// - Throws: `PrefetchError` if the collection view rejects the update (which
    ///   means a bug in this type: the update is computed from the two snapshots).
    /// - Complexity: O(n log n) for n items, plus the view's update.
    public func apply(_ snapshot: Snapshot<SectionIdentifierType, ItemIdentifierType>, animatingDifferences: Bool = true) throws {
        let old = current
        let difference = snapshot.difference(from: old)
        guard let collectionView else {
            install(snapshot)
            return
        }
        try collectionView.performBatchUpdates {
            install(snapshot)
            collectionView.deleteSections(difference.deletedSections)
            collectionView.insertSections(difference.insertedSections)
            collectionView.deleteItems(at: difference.deletedItems)
            collectionView.insertItems(at: difference.insertedItems)
            collectionView.reloadItems(at: difference.reloadedItems)
            for move in difference.moves { collectionView.moveItem(at: move.from, to: move.to) }
        }
    }

    /// Makes `snapshot` current and reloads the collection view's data without a difference.
    public func applySnapshotUsingReloadData(_ snapshot: Snapshot<SectionIdentifierType, ItemIdentifierType>) {
        install(snapshot)
        collectionView?.reloadData()
    }

    private func install(_ snapshot: Snapshot<SectionIdentifierType, ItemIdentifierType>) {
        current = snapshot.clearingMarks
        indexPathOfItem = current.indexPathsByItem
    }

    /// The item at `indexPath` in the current snapshot, or nil.
    ///
    /// - Complexity: O(1).
    public func itemIdentifier(for indexPath: IndexPath) -> ItemIdentifierType? {
        guard indexPath.count == 2 else { return nil }
        return current.item(at: indexPath[0], indexPath[1])
    }

    /// The index path of `itemIdentifier` in the current snapshot, or nil.
    ///
    /// - Complexity: O(1).
    public func indexPath(for itemIdentifier: ItemIdentifierType) -> IndexPath? {
        indexPathOfItem[itemIdentifier]
    }

    /// The section at `index` in the current snapshot, or nil.
    package func sectionIdentifier(for index: Int) -> SectionIdentifierType? {
        let sections = current.sectionIdentifiers
        return index >= 0 && index < sections.count ? sections[index] : nil
    }

    // MARK: CollectionViewDataSource

    /// The number of sections in the current snapshot.
    public func numberOfSections(in collectionView: CollectionView) -> Int {
        current.numberOfSections
    }

    /// The number of items in a section of the current snapshot.
    public func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        let sections = current.itemsBySection
        return section >= 0 && section < sections.count ? sections[section].count : 0
    }

    /// The cell from the cell provider.
    public func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let item = itemIdentifier(for: indexPath) else {
            preconditionFailure("DiffableDataSource has no item at \(indexPath)")
        }
        return cellProvider(collectionView, indexPath, item)
    }
}
