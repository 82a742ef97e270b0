import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

@Suite("Batch updates")
@MainActor
struct BatchUpdateTests {
    @Test func insertDeleteAndMoveRemapCellsAndPrefetchState() throws {
        // Given Apple's sample's view at rest with items 0..<6 visible and 6..<12 pending prefetch
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView(itemCount: 100)
        collectionView.step(to: 0)
        let cellOf2 = try #require(collectionView.cellForItem(at: IndexPath(item: 2, section: 0)))
        // When item 0 is deleted, a new item inserted at 3 and item 5 moved to the front
        recorder.removeAll()
        try collectionView.performBatchUpdates {
            var models = dataSource.models
            let moved = models.remove(at: 5)
            models.remove(at: 0)
            models.insert(Model(identifier: 1000), at: 2)   // lands at 3 after the move
            models.insert(moved, at: 0)
            dataSource.models = models
            collectionView.deleteItems(at: [IndexPath(item: 0, section: 0)])
            collectionView.insertItems(at: [IndexPath(item: 3, section: 0)])
            collectionView.moveItem(at: IndexPath(item: 5, section: 0), to: IndexPath(item: 0, section: 0))
        }
        collectionView._checkInvariants()
        // Then cells follow their items, and the state refers to the new index paths
        #expect(dataSource.models.prefix(4).map(\.identifier) == [5, 1, 2, 1000])
        #expect(collectionView.indexPath(for: cellOf2) == IndexPath(item: 2, section: 0))
        #expect(wrongCells(collectionView, dataSource).isEmpty)
        #expect(recorder.events(.didEndDisplaying).map(\.indexPath) == [IndexPath(item: 0, section: 0)])
        #expect(recorder.events(.cellRequest).map(\.indexPath) == [IndexPath(item: 3, section: 0)])
        let pendingIdentifiers = collectionView.indexPathsPendingPrefetch.map { dataSource.models[$0.item].identifier }
        #expect(Set(pendingIdentifiers).isSuperset(of: [6, 7, 8, 9]))
    }

    @Test func countsThatDisagreeThrowNamingTheCounts() throws {
        let (collectionView, dataSource, _) = try makeSeedCollectionView(itemCount: 20)
        collectionView.step(to: 0)
        #expect {
            try collectionView.performBatchUpdates {
                dataSource.models.append(Model(identifier: 99))
                dataSource.models.append(Model(identifier: 98))
                collectionView.insertItems(at: [IndexPath(item: 20, section: 0)])
            }
        } throws: { error in
            guard let error = error as? PrefetchError else { return false }
            return error.code == .invalidArgument && error.message.contains("reports 22") && error.message.contains("had 20")
                && error.message.contains("expected 21")
        }
        // The view kept its state; a reload brings it in line.
        collectionView._checkInvariants()
        collectionView.reloadData()
        collectionView.step(to: 0.1)
        #expect(collectionView.numberOfItems(inSection: 0) == 22)
        collectionView._checkInvariants()
    }

    @Test func outOfRangeIndexPathsThrow() throws {
        let (collectionView, dataSource, _) = try makeSeedCollectionView(itemCount: 20)
        collectionView.step(to: 0)
        #expect {
            try collectionView.performBatchUpdates {
                dataSource.models.removeLast()
                collectionView.deleteItems(at: [IndexPath(item: 25, section: 0)])
            }
        } throws: { error in
            (error as? PrefetchError)?.message.contains("[0, 25]") == true
        }
    }

    @Test func sectionsCanBeInsertedAndDeleted() throws {
        final class Sections: CollectionViewDataSource {
            var counts: [Int]
            init(_ counts: [Int]) { self.counts = counts }
            func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
            func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
            func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
                collectionView.dequeueReusableCell(withReuseIdentifier: "c", for: indexPath)
            }
        }
        let layout = try FlowLayout(itemSize: CGSize(width: 50, height: 50))
        let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 200, height: 300), collectionViewLayout: layout)
        collectionView.register(CollectionViewCell.self, forCellWithReuseIdentifier: "c")
        let data = Sections([3, 4])
        collectionView.dataSource = data
        collectionView.step(to: 0)
        let cell = try #require(collectionView.cellForItem(at: IndexPath(item: 1, section: 1)))
        try collectionView.performBatchUpdates {
            data.counts = [2, 3, 4]
            collectionView.deleteSections([0])
            collectionView.insertSections([0, 1])
        }
        collectionView._checkInvariants()
        #expect(collectionView.indexPath(for: cell) == IndexPath(item: 1, section: 2))
        #expect(collectionView.numberOfSections == 3)
    }

    @Test func batchUpdatesDuringAScrollNeverCarryStaleIndexPaths() throws {
        // Given a scroll under way, with random inserts, deletes and moves every few frames
        var random = SeededRandom(seed: 42)
        let (collectionView, dataSource, _) = try makeSeedCollectionView(itemCount: 400, latency: { _ in 0.3 })
        var nextIdentifier = 10_000
        var stale: [String] = []
        let prefetchCheck = PrefetchLog(dataSource: dataSource)
        // Every callback's index path must name an item the data source has now.
        collectionView.onEvent = { event in
            guard event.kind != .didEndDisplaying else { return }
            guard event.indexPath.item < dataSource.models.count else {
                stale.append("\(event)")
                return
            }
            if event.kind == .willDisplay { prefetchCheck.pending.remove(dataSource.models[event.indexPath.item].identifier) }
        }
        let forwarding = ForwardingPrefetcher(dataSource: dataSource, log: prefetchCheck)
        collectionView.prefetchDataSource = forwarding
        var problems: [String] = []
        var time = 0.0
        for round in 0..<40 {
            collectionView.drag(by: round < 25 ? 40 : -30)
            try collectionView.performBatchUpdates {
                var models = dataSource.models
                let visible = collectionView.indexPathsForVisibleItems.map(\.item)
                let near = (visible.first ?? 0)...(min((visible.last ?? 0) + 10, models.count - 1))
                let deleteAt = Int.random(in: near, using: &random)
                models.remove(at: deleteAt)
                let insertAt = Int.random(in: near, using: &random)
                models.insert(Model(identifier: nextIdentifier), at: insertAt)
                nextIdentifier += 1
                dataSource.models = models
                collectionView.deleteItems(at: [IndexPath(item: deleteAt, section: 0)])
                collectionView.insertItems(at: [IndexPath(item: insertAt, section: 0)])
            }
            collectionView._checkInvariants()
            problems += runFrames(collectionView, dataSource, from: time, count: 4)
            time += 4.0 / 60
        }
        #expect(problems.isEmpty, "\(problems.prefix(3))")
        #expect(stale.isEmpty)
        #expect(prefetchCheck.errors.isEmpty, "\(prefetchCheck.errors.prefix(3))")
        #expect(prefetchCheck.prefetched > 0)
    }
}

/// Records which identifiers were prefetched and checks that cancels name prefetched identifiers.
@MainActor
final class PrefetchLog {
    let dataSource: CustomDataSource
    var pending: Set<Int> = []
    var prefetched = 0
    var errors: [String] = []
    init(dataSource: CustomDataSource) { self.dataSource = dataSource }

    func prefetch(_ indexPaths: [IndexPath]) {
        for indexPath in indexPaths {
            let identifier = dataSource.models[indexPath.item].identifier
            if !pending.insert(identifier).inserted { errors.append("\(identifier) prefetched twice") }
            prefetched += 1
        }
    }

    func cancel(_ indexPaths: [IndexPath]) {
        for indexPath in indexPaths {
            let identifier = dataSource.models[indexPath.item].identifier
            if pending.remove(identifier) == nil { errors.append("cancel of \(identifier) at \(indexPath), which is not pending") }
        }
    }
}

@MainActor
final class ForwardingPrefetcher: CollectionViewDataSourcePrefetching {
    let dataSource: CustomDataSource
    let log: PrefetchLog
    init(dataSource: CustomDataSource, log: PrefetchLog) {
        self.dataSource = dataSource
        self.log = log
    }

    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        log.prefetch(indexPaths)
        dataSource.collectionView(collectionView, prefetchItemsAt: indexPaths)
    }

    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        log.cancel(indexPaths)
        dataSource.collectionView(collectionView, cancelPrefetchingForItemsAt: indexPaths)
    }
}
