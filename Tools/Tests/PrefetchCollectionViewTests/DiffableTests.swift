import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

@Suite("Diffable data source")
@MainActor
struct DiffableTests {
    enum Section: Hashable { case main, more }

    @Test func snapshotEditing() {
        var snapshot = Snapshot<Section, Int>()
        snapshot.appendSections([.main])
        snapshot.appendItems([1, 2, 3])
        snapshot.insertSections([.more], beforeSection: .main)
        snapshot.appendItems([10], toSection: .more)
        snapshot.insertItems([0], beforeItem: 1)
        snapshot.insertItems([4], afterItem: 3)
        snapshot.moveItem(4, beforeItem: 0)
        snapshot.moveItem(10, afterItem: 2)
        snapshot.deleteItems([3])
        #expect(snapshot.sectionIdentifiers == [.more, .main])
        #expect(snapshot.itemIdentifiers(inSection: .main) == [4, 0, 1, 2, 10])
        #expect(snapshot.numberOfItems(inSection: .more) == 0)
        #expect(snapshot.numberOfItems == 5)
        #expect(snapshot.sectionIdentifier(containingItem: 10) == .main)
        #expect(snapshot.indexOfItem(1) == 2)
        snapshot.moveSection(.main, beforeSection: .more)
        #expect(snapshot.indexOfSection(.more) == 1)
        snapshot.reloadItems([1])
        snapshot.reconfigureItems([2])
        #expect(snapshot.reloadedItemIdentifiers == [1] && snapshot.reconfiguredItemIdentifiers == [2])
        snapshot.deleteSections([.main])
        #expect(snapshot.numberOfItems == 0 && snapshot.numberOfSections == 1)
        snapshot.deleteAllItems()
        #expect(snapshot.numberOfSections == 0)
    }

    @Test func applyUpdatesTheViewAndKeepsCellsWithTheirItems() throws {
        let (collectionView, seed, _) = try makeSeedCollectionView(itemCount: 0)
        _ = seed
        let dataSource = DiffableDataSource<Section, Int>(collectionView: collectionView) { collectionView, indexPath, item in
            let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath)
            (cell as? Cell)?.representedIdentifier = item
            return cell
        }
        collectionView.prefetchDataSource = nil
        var snapshot = Snapshot<Section, Int>()
        snapshot.appendSections([.main])
        snapshot.appendItems(Array(0..<50))
        try dataSource.apply(snapshot)
        collectionView.step(to: 0)
        let cellOf3 = try #require(collectionView.cellForItem(at: IndexPath(item: 3, section: 0)))
        // When items are deleted, inserted, moved and reloaded
        snapshot.deleteItems([0, 1])
        snapshot.insertItems([100], afterItem: 4)
        snapshot.moveItem(40, beforeItem: 2)
        snapshot.reloadItems([5])
        try dataSource.apply(snapshot)
        collectionView._checkInvariants()
        // Then every visible cell represents the item the snapshot has at its index path
        #expect(dataSource.snapshot() == snapshot)
        for indexPath in collectionView.indexPathsForVisibleItems {
            let cell = try #require(collectionView.cellForItem(at: indexPath) as? Cell)
            #expect(cell.representedIdentifier == dataSource.itemIdentifier(for: indexPath))
        }
        #expect(dataSource.indexPath(for: 3) == IndexPath(item: 2, section: 0))
        #expect(collectionView.indexPath(for: cellOf3) == IndexPath(item: 2, section: 0))
        #expect(dataSource.itemIdentifier(for: IndexPath(item: 0, section: 0)) == 40)
        #expect(dataSource.indexPath(for: 0) == nil)
        #expect(dataSource.sectionIdentifier(for: 0) == .main)
    }

    @Test func randomSnapshotSequencesApplyCleanly() throws {
        var random = SeededRandom(seed: 5)
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 0)
        let dataSource = DiffableDataSource<Int, Int>(collectionView: collectionView) { collectionView, indexPath, item in
            let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath)
            (cell as? Cell)?.representedIdentifier = item
            return cell
        }
        let prefetcher = DiffablePrefetcher()
        collectionView.prefetchDataSource = prefetcher
        var nextItem = 0
        var time = 0.0
        for round in 0..<60 {
            var snapshot = Snapshot<Int, Int>()
            let sections = (0..<4).filter { _ in Bool.random(using: &random) }.shuffled(using: &random)
            snapshot.appendSections(sections.isEmpty ? [0] : sections)
            var pool = dataSource.snapshot().itemIdentifiers.filter { _ in Int.random(in: 0..<10, using: &random) > 1 }
            pool += (0..<Int.random(in: 0...12, using: &random)).map { _ in nextItem += 1; return nextItem }
            pool.shuffle(using: &random)
            for item in pool { snapshot.appendItems([item], toSection: snapshot.sectionIdentifiers.randomElement(using: &random)!) }
            let reloads = snapshot.itemIdentifiers.filter { _ in Int.random(in: 0..<8, using: &random) == 0 }
            snapshot.reloadItems(reloads)
            try dataSource.apply(snapshot)
            collectionView._checkInvariants()
            #expect(dataSource.snapshot() == snapshot)
            if round.isMultiple(of: 3) { collectionView.drag(by: 30) }
            time += 1.0 / 60
            collectionView.step(to: time)
            collectionView._checkInvariants()
            for indexPath in collectionView.indexPathsForVisibleItems {
                #expect((collectionView.cellForItem(at: indexPath) as? Cell)?.representedIdentifier == dataSource.itemIdentifier(for: indexPath))
            }
            for indexPath in collectionView.indexPathsPendingPrefetch {
                #expect(dataSource.itemIdentifier(for: indexPath) != nil)
            }
        }
        #expect(prefetcher.count > 0)
    }
}

@MainActor
final class DiffablePrefetcher: CollectionViewDataSourcePrefetching {
    var count = 0
    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) { count += indexPaths.count }
}
