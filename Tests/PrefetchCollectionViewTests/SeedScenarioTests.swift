import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

/// The seeds' three cases for `cellForItemAt` (loaded, in flight, never requested), plus fast
/// scrolling with cell reuse, on virtual time.
@Suite("Seeds' scenarios")
@MainActor
struct SeedScenarioTests {
    @Test func dataPrefetchedBeforeDisplayConfiguresTheCellAtOnce() throws {
        // Given loads of 50 ms and a view at rest whose window has been prefetched
        let (collectionView, dataSource, _) = try makeSeedCollectionView(latency: { _ in 0.05 })
        _ = runFrames(collectionView, dataSource, from: 0, count: 12)
        #expect(dataSource.asyncFetcher.fetchedData(for: 8) != nil)
        // When the user scrolls the prefetched row into view
        collectionView.setContentOffset(CGPoint(x: 0, y: 150), animated: false)
        // Then its cell is configured in cellForItemAt, with no wait
        let cell = try #require(collectionView.cellForItem(at: IndexPath(item: 8, section: 0)) as? Cell)
        #expect(cell.shownData == DisplayData(identifier: 8))
        #expect(dataSource.cellStates[8] == ["loaded"])
    }

    @Test func dataInFlightWhenTheCellAppearsArrivesIntoTheCell() throws {
        // Given loads of 1 s: the first row below the screen is prefetched but not loaded
        let (collectionView, dataSource, _) = try makeSeedCollectionView(latency: { _ in 1 })
        _ = runFrames(collectionView, dataSource, from: 0, count: 2)
        #expect(dataSource.asyncFetcher.isLoading(6))
        // When it scrolls into view
        collectionView.setContentOffset(CGPoint(x: 0, y: 120), animated: false)
        let cell = try #require(collectionView.cellForItem(at: IndexPath(item: 6, section: 0)) as? Cell)
        #expect(cell.shownData == nil)
        #expect(dataSource.cellStates[6] == ["inFlight"])
        // Then the cell is configured when the load finishes, without another request
        _ = runFrames(collectionView, dataSource, from: 1.0, count: 2)
        #expect(cell.shownData == DisplayData(identifier: 6))
        #expect(dataSource.asyncFetcher.started.filter { $0 == 6 }.count == 1)
    }

    @Test func aJumpShowsItemsThatWereNeverRequested() throws {
        // Given a view at the top
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView(latency: { _ in 0.2 })
        _ = runFrames(collectionView, dataSource, from: 0, count: 2)
        // When it jumps far down
        try collectionView.scrollToItem(at: IndexPath(item: 600, section: 0), at: .top, animated: false)
        // Then the visible items were never prefetched: cellForItemAt requested them
        let visible = collectionView.indexPathsForVisibleItems
        #expect(visible.contains(IndexPath(item: 600, section: 0)))
        let prefetched = Set(recorder.events(.prefetch).map(\.indexPath))
        #expect(visible.allSatisfy { !prefetched.contains($0) })
        #expect(visible.allSatisfy { dataSource.cellStates[$0.item] == ["notRequested"] })
        // And they fill in when their loads arrive
        let problems = runFrames(collectionView, dataSource, from: 0.5, count: 2)
        #expect(problems.isEmpty)
        #expect(collectionView.visibleCells.allSatisfy { ($0 as? Cell)?.shownData != nil })
    }

    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func recycledCellsNeverShowAnotherItemsData(seed: UInt64) throws {
        // Given random latencies between 10 ms and 1.5 s
        var random = SeededRandom(seed: seed)
        let latencies = (0..<5000).map { _ in Double.random(in: 0.01...1.5, using: &random) }
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView(itemCount: 5000, latency: { latencies[$0] })
        // When the user flings hard, reverses, and flings again, for 10 seconds
        var problems: [String] = []
        var time = 0.0
        for round in 0..<5 {
            let velocity = Double.random(in: 2000...12000, using: &random) * (round.isMultiple(of: 2) ? 1 : -0.5)
            collectionView.fling(velocity: velocity)
            problems += runFrames(collectionView, dataSource, from: time, count: 120)
            time += 2
        }
        // Then no visible cell ever showed data of another item, and cells were reused
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(collectionView.visibleCells.compactMap { $0 as? Cell }.contains { $0.reuseCount > 0 })
        #expect(recorder.events(.cellRequest).count > 100)
        #expect(collectionView.reusePoolCount < 40)
    }

    @Test func flingFasterThanTheWindowShowsUnprefetchedItems() throws {
        // Given a fling of 20,000 points per second (over 50 viewports a second)
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView(itemCount: 20_000)
        collectionView.fling(velocity: 20_000)
        _ = runFrames(collectionView, dataSource, from: 0, count: 30)
        // Then some items were displayed without having been prefetched first
        let prefetched = Set(recorder.events(.prefetch).map(\.indexPath))
        let displayed = recorder.events(.willDisplay).map(\.indexPath)
        #expect(displayed.contains { !prefetched.contains($0) })
        #expect(displayed.contains { prefetched.contains($0) })
    }
}
