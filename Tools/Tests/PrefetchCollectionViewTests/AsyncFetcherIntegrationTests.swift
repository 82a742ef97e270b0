import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchTesting
import Testing

/// Apple's sample's `CustomDataSource` on the real `AsyncFetcher`, with a scripted loader: every load
/// waits until the test answers it, so each step is deterministic.
@MainActor
final class FetcherDataSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching {
    let models: [Model]
    let asyncFetcher: AsyncFetcher<Int, DisplayData>
    let arrivals: AsyncStream<Int>
    private let arrived: AsyncStream<Int>.Continuation

    init(models: [Model], fetcher: AsyncFetcher<Int, DisplayData>) {
        self.models = models
        self.asyncFetcher = fetcher
        (arrivals, arrived) = AsyncStream.makeStream(of: Int.self)
    }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        models.count
    }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath) as? Cell else {
            fatalError("Expected `\(Cell.self)` type for reuseIdentifier \(Cell.reuseIdentifier).")
        }
        let identifier = models[indexPath.row].identifier
        cell.representedIdentifier = identifier
        if let fetchedData = asyncFetcher.fetchedData(for: identifier) {
            cell.configure(with: fetchedData)
        } else {
            cell.configure(with: nil)
            let arrived = self.arrived
            asyncFetcher.fetchAsync(identifier) { result in
                Task { @MainActor in
                    // Before updating the cell, check whether the collection view has recycled it.
                    if cell.representedIdentifier == identifier { cell.configure(with: try? result.get()) }
                    arrived.yield(identifier)
                }
            }
        }
        return cell
    }

    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        for indexPath in indexPaths { asyncFetcher.fetchAsync(models[indexPath.row].identifier) }
    }

    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        for indexPath in indexPaths { asyncFetcher.cancelFetch(models[indexPath.row].identifier) }
    }
}

@Suite("With the real AsyncFetcher")
@MainActor
struct AsyncFetcherIntegrationTests {
    /// Apple's sample's 343 × 333 grid of 200 items on a fetcher whose loads wait for the test.
    static func seedsGrid() throws -> (ScriptedLoader<Int, DisplayData>, AsyncFetcher<Int, DisplayData>, CollectionView, FetcherDataSource) {
        let loader = ScriptedLoader<Int, DisplayData>()
        let fetcher = try AsyncFetcher<Int, DisplayData>(
            configuration: FetcherConfiguration(maxConcurrentLoads: 16), clock: ManualClock(), loader: loader)
        let layout = try FlowLayout(itemSize: CGSize(width: 150, height: 100), minimumLineSpacing: 10,
                                    minimumInteritemSpacing: 10, sectionInset: ContentInsets(top: 10, left: 10, bottom: 10, right: 10))
        let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 343, height: 333), collectionViewLayout: layout)
        let dataSource = FetcherDataSource(models: (0..<200).map { Model(identifier: $0) }, fetcher: fetcher)
        collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
        collectionView.dataSource = dataSource
        collectionView.prefetchDataSource = dataSource
        return (loader, fetcher, collectionView, dataSource)
    }

    @Test func seedsScenariosOnTheRealFetcher() async throws {
        // Given Apple's sample's view on an AsyncFetcher whose loads wait for the test
        let (loader, fetcher, collectionView, dataSource) = try Self.seedsGrid()

        // When the first layout requests the visible items (0...5) and prefetches the window (6...11)
        collectionView.step(to: 0)
        await loader.waitForCalls(12)
        #expect(Set(loader.calledIDs) == Set(0..<12))

        // (1) Prefetched data is there before display: item 6 is configured at once
        loader.succeed(6, with: DisplayData(identifier: 6))
        _ = try await fetcher.value(for: 6)
        collectionView.setContentOffset(CGPoint(x: 0, y: 150), animated: false)
        collectionView._checkInvariants()
        let cell6 = try #require(collectionView.cellForItem(at: IndexPath(item: 6, section: 0)) as? Cell)
        #expect(cell6.shownData == DisplayData(identifier: 6))

        // (2) Data in flight when the cell appears: item 8 is blank, then configured on arrival
        let cell8 = try #require(collectionView.cellForItem(at: IndexPath(item: 8, section: 0)) as? Cell)
        #expect(cell8.shownData == nil)
        loader.succeed(8, with: DisplayData(identifier: 8))
        for await identifier in dataSource.arrivals where identifier == 8 { break }
        #expect(cell8.shownData == DisplayData(identifier: 8))
        #expect(loader.calledIDs.filter { $0 == 8 }.count == 1)

        // (5) A direction reversal cancels the items ahead, down to the loader
        let ahead = collectionView.indexPathsPendingPrefetch.map(\.item)
        #expect(ahead == [10, 11, 12, 13])
        collectionView.drag(by: -20)
        collectionView.step(to: 0.1)
        collectionView._checkInvariants()
        await loader.waitForCancellations(4)
        #expect(loader.cancelledIDs.sorted() == ahead)

        // (3) A jump shows items never requested: cellForItemAt starts their loads
        let before = loader.callCount
        try collectionView.scrollToItem(at: IndexPath(item: 150, section: 0), at: .top, animated: false)
        let visible = collectionView.indexPathsForVisibleItems.map(\.item)
        await loader.waitForCalls(before + visible.count)
        #expect(Set(loader.calledIDs.suffix(from: before)).isSuperset(of: visible))
        fetcher.shutdown()
    }

    struct Unreachable: Error {}

    // The limit only stops a regression from hanging CI. It is far above the test's milliseconds:
    // this suite runs on the main actor, and under ThreadSanitizer, with every suite in parallel,
    // other main-actor suites held it for minutes (a 1-minute limit was exceeded that way).
    @Test(.timeLimit(.minutes(20))) func aCellWhoseLoadFailedLoadsAgainWhenItIsShownAgain() async throws {
        // Given Apple's sample's view on an AsyncFetcher whose loads wait for the test (no retries:
        // the error is not retryable)
        let (loader, fetcher, collectionView, dataSource) = try Self.seedsGrid()
        collectionView.step(to: 0)
        await loader.waitForCalls(12)

        // When item 2's load fails while its cell is on screen
        #expect(loader.fail(2, with: Unreachable()))
        for await identifier in dataSource.arrivals where identifier == 2 { break }
        let failedCell = try #require(collectionView.cellForItem(at: IndexPath(item: 2, section: 0)) as? Cell)
        // Then the cell stays blank, and nothing is cached for the item
        #expect(failedCell.shownData == nil)
        #expect(fetcher.fetchedData(for: 2) == nil)
        #expect(loader.calledIDs.filter { $0 == 2 }.count == 1)

        // When the user scrolls far away and back
        try collectionView.scrollToItem(at: IndexPath(item: 150, section: 0), at: .top, animated: false)
        #expect(collectionView.cellForItem(at: IndexPath(item: 2, section: 0)) == nil)
        let before = loader.callCount
        try collectionView.scrollToItem(at: IndexPath(item: 0, section: 0), at: .top, animated: false)
        // Then the cell shown again for item 2 asks again, and shows the data when it arrives
        // (other items' loads may start again too, so wait for item 2's call itself)
        var calls = before
        while loader.calledIDs.filter({ $0 == 2 }).count < 2 {
            calls += 1
            await loader.waitForCalls(calls)
        }
        #expect(loader.calledIDs.filter { $0 == 2 }.count == 2)
        let shownAgain = try #require(collectionView.cellForItem(at: IndexPath(item: 2, section: 0)) as? Cell)
        #expect(shownAgain.shownData == nil)
        #expect(loader.succeed(2, with: DisplayData(identifier: 2)))
        for await identifier in dataSource.arrivals where identifier == 2 { break }
        #expect(shownAgain.shownData == DisplayData(identifier: 2))
        #expect(collectionView.cellForItem(at: IndexPath(item: 2, section: 0)) === shownAgain)
        fetcher.shutdown()
    }
}
