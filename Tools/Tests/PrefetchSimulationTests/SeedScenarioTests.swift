import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// Apple's sample's three cases for `cellForItemAt` (loaded, in flight, never requested), plus fast
/// scrolling with cell reuse: Apple's sample's data source on the real fetcher, run by the app
/// loop's public pieces (``VirtualTimeLoop``, ``GestureDriver``, ``ReadinessMeter``).
@Suite("Seeds' scenarios")
@MainActor
struct SeedScenarioTests {
    /// Apple's sample's cell.
    final class Cell: CollectionViewCell {
        static let reuseIdentifier = "reuseIdentifier"
        var representedIdentifier: Int?
        var shownData: Int?
        var fetchHandle: FetchHandle?
        private(set) var reuseCount = 0

        override func prepareForReuse() {
            super.prepareForReuse()
            fetchHandle?.cancel()
            fetchHandle = nil
            reuseCount += 1
        }
    }

    /// Apple's sample's `CustomDataSource` on the real fetcher, noting how each `cellForItemAt` found its data.
    final class SeedDataSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching, CollectionViewDelegate {
        let loop: VirtualTimeLoop<Int, Int>
        let meter: ReadinessMeter
        let itemCount: Int
        let consumers = PooledCells()
        private(set) var cellStates: [Int: [String]] = [:]
        private(set) var started: [Int] = []

        init(loop: VirtualTimeLoop<Int, Int>, meter: ReadinessMeter, itemCount: Int) {
            self.loop = loop
            self.meter = meter
            self.itemCount = itemCount
        }

        var asyncFetcher: AsyncFetcher<Int, Int> { loop.fetcher }

        func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { itemCount }

        func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
            guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath) as? Cell else {
                fatalError("Expected `\(Cell.self)` type for reuseIdentifier \(Cell.reuseIdentifier).")
            }
            let identifier = indexPath.item
            cell.representedIdentifier = identifier
            // Check if the `asyncFetcher` has already fetched data for the specified identifier.
            if let fetchedData = asyncFetcher.fetchedData(for: identifier) {
                cellStates[identifier, default: []].append("loaded")
                cell.shownData = fetchedData
                return cell
            }
            cellStates[identifier, default: []].append(loop.network.isLoading(identifier) ? "inFlight" : "notRequested")
            // There is no data available; clear the cell until the fetched data arrives.
            cell.shownData = nil
            let meter = self.meter
            cell.fetchHandle = asyncFetcher.fetchAsync(identifier, completion: loop.deliveries.completion(for: identifier) { result in
                // Before updating the cell, check whether the collection view has recycled it.
                guard cell.representedIdentifier == identifier, case .success(let data) = result else { return }
                cell.fetchHandle = nil
                cell.shownData = data
                if cell.isDisplayed { meter.dataShown(item: identifier) }
            })
            consumers.hold(cell, item: identifier)
            return cell
        }

        func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
            // Begin asynchronously fetching data for the requested index paths.
            for indexPath in indexPaths { asyncFetcher.fetchAsync(indexPath.item) }
        }

        func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
            // Cancel any in-flight requests for data for the specified index paths.
            for indexPath in indexPaths { asyncFetcher.cancelFetch(indexPath.item) }
        }

        func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
            meter.cellAppeared(item: indexPath.item, ready: (cell as? Cell)?.shownData != nil)
        }

        func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
            meter.cellDisappeared(item: indexPath.item)
        }
    }

    /// Apple's sample's view (343×333 points, two columns of 150×100 items) over a network of `latency`, at most 16 loads at once.
    struct Seed {
        let view: CollectionView
        let source: SeedDataSource
        let loop: VirtualTimeLoop<Int, Int>
        let meter: ReadinessMeter
        let recorder: EventRecorder
    }

    func makeSeed(itemCount: Int = 1_000, latency: LatencyModel) throws -> Seed {
        var configuration = FetcherConfiguration()
        configuration.cacheCountLimit = itemCount
        // Room for the first screen and the window at once, as Apple's sample's fetcher (an operation queue) has.
        configuration.maxConcurrentLoads = 16
        let clock = ManualClockBox()
        let meter = ReadinessMeter(now: clock.seconds)
        let loop = try VirtualTimeLoop<Int, Int>(
            configuration: configuration, clock: clock.clock, latency: latency, seed: 1, item: { $0 }, value: { $0 },
            onEvent: { meter.record($0, item: { $0 }) })
        guard let view = try ScenarioLayout.seedSample(itemCount: itemCount).makeView(viewport: .seedGrid) as? CollectionView else {
            throw SimulationError("the layout of Apple's sample is a grid")
        }
        let source = SeedDataSource(loop: loop, meter: meter, itemCount: itemCount)
        view.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
        view.dataSource = source
        view.prefetchDataSource = source
        view.delegate = source
        let recorder = EventRecorder()
        recorder.attach(to: view)
        return Seed(view: view, source: source, loop: loop, meter: meter, recorder: recorder)
    }

    /// Visible cells that represent or show another item's data.
    func wrongCells(_ seed: Seed) -> [String] {
        seed.view.indexPathsForVisibleItems.compactMap { indexPath in
            guard let cell = seed.view.cellForItem(at: indexPath) as? Cell else { return "no cell at \(indexPath)" }
            if cell.representedIdentifier != indexPath.item { return "cell at \(indexPath) represents \(String(describing: cell.representedIdentifier))" }
            if let shown = cell.shownData, shown != indexPath.item { return "cell at \(indexPath) shows data of \(shown)" }
            return nil
        }
    }

    /// Plays frames at 60 Hz up to `time` through the loop, checking the cells after each.
    func run(_ seed: Seed, to time: Double) async -> [String] {
        var problems: [String] = []
        var frame = Int((seed.loop.now * 60).rounded())
        while Double(frame + 1) / 60 <= time + 1e-9 {
            frame += 1
            let t = Double(frame) / 60
            await seed.loop.advance(to: t)
            seed.source.consumers.releasePooled()
            seed.view.step(to: t)
            seed.source.consumers.releasePooled()
            await seed.loop.settle()
            problems += wrongCells(seed)
        }
        return problems
    }

    @Test func dataPrefetchedBeforeDisplayConfiguresTheCellAtOnce() async throws {
        // Given loads of 50 ms and a view at rest whose window has been prefetched
        let seed = try makeSeed(latency: LatencyModel(.fixed(.milliseconds(50))))
        seed.view.step(to: 0)
        await seed.loop.settle()
        _ = await run(seed, to: 0.2)
        #expect(seed.loop.fetcher.fetchedData(for: 8) != nil)
        // When the user scrolls the prefetched row into view
        seed.view.setContentOffset(CGPoint(x: 0, y: 150), animated: false)
        // Then its cell is configured in cellForItemAt, with no wait
        let cell = try #require(seed.view.cellForItem(at: IndexPath(item: 8, section: 0)) as? Cell)
        #expect(cell.shownData == 8)
        #expect(seed.source.cellStates[8] == ["loaded"])
    }

    @Test func dataInFlightWhenTheCellAppearsArrivesIntoTheCell() async throws {
        // Given loads of 1 s: the first row below the screen is prefetched but not loaded
        let seed = try makeSeed(latency: LatencyModel(.fixed(.seconds(1))))
        seed.view.step(to: 0)
        await seed.loop.settle()
        _ = await run(seed, to: 1.0 / 60)
        #expect(seed.loop.network.isLoading(6))
        // When it scrolls into view
        seed.view.setContentOffset(CGPoint(x: 0, y: 120), animated: false)
        await seed.loop.settle()
        let cell = try #require(seed.view.cellForItem(at: IndexPath(item: 6, section: 0)) as? Cell)
        #expect(cell.shownData == nil)
        #expect(seed.source.cellStates[6] == ["inFlight"])
        // Then the cell is configured when the load finishes, without another request
        _ = await run(seed, to: 1.05)
        #expect(cell.shownData == 6)
        #expect(seed.meter.readiness.loadsCompleted >= 1)
        #expect(seed.loop.fetcher.statistics.loadsStarted == seed.loop.fetcher.statistics.loadsCompleted + seed.loop.fetcher.statistics.inFlight)
    }

    @Test func aJumpShowsItemsThatWereNeverRequested() async throws {
        // Given a view at the top
        let seed = try makeSeed(latency: LatencyModel(.fixed(.milliseconds(200))))
        seed.view.step(to: 0)
        await seed.loop.settle()
        _ = await run(seed, to: 2.0 / 60)
        // When it jumps far down
        try seed.view.scrollToItem(at: IndexPath(item: 600, section: 0), at: .top, animated: false)
        await seed.loop.settle()
        // Then the visible items were never prefetched: cellForItemAt requested them
        let visible = seed.view.indexPathsForVisibleItems
        #expect(visible.contains(IndexPath(item: 600, section: 0)))
        let prefetched = Set(seed.recorder.events(.prefetch).map(\.indexPath))
        #expect(visible.allSatisfy { !prefetched.contains($0) })
        #expect(visible.allSatisfy { seed.source.cellStates[$0.item] == ["notRequested"] })
        // And they fill in when their loads arrive
        let problems = await run(seed, to: 0.3)
        #expect(problems.isEmpty)
        #expect(seed.view.visibleCells.allSatisfy { ($0 as? Cell)?.shownData != nil })
    }

    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func recycledCellsNeverShowAnotherItemsData(seed number: UInt64) async throws {
        // Given latencies between about 10 ms and 1.5 s
        var random = SplitMix64(seed: number)
        let seed = try makeSeed(itemCount: 5_000, latency: LatencyModel(.logNormal(median: .milliseconds(200), p99: .milliseconds(1_500))))
        // When the user flings hard, reverses, and flings again, for 10 seconds
        let gestures = (0..<5).flatMap { round in
            [ScrollGesture.fling(velocity: Double.random(in: 2_000...12_000, using: &random) * (round.isMultiple(of: 2) ? 1 : -0.5)), .pause(duration: 0.3)]
        }
        var driver = GestureDriver(gestures: gestures)
        var problems: [String] = []
        _ = try await FrameDriver(duration: 10).play(
            &driver, on: seed.view, advance: { await seed.loop.advance(to: $0) },
            step: { t in
                seed.source.consumers.releasePooled()
                seed.view.step(to: t)
                seed.source.consumers.releasePooled()
                await seed.loop.settle()
            },
            afterFrame: { _ in
                problems += wrongCells(seed)
                return true
            })
        // Then no visible cell ever showed data of another item, and cells were reused
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(seed.view.visibleCells.compactMap { $0 as? Cell }.contains { $0.reuseCount > 0 })
        #expect(seed.recorder.events(.cellRequest).count > 100)
        #expect(seed.view.reusePoolCount < 40)
    }

    @Test func flingFasterThanTheWindowShowsUnprefetchedItems() async throws {
        // Given a fling of 20,000 points per second (over 50 viewports a second)
        let seed = try makeSeed(itemCount: 20_000, latency: LatencyModel(.fixed(.milliseconds(100))))
        var driver = GestureDriver(gestures: [.fling(velocity: 20_000)])
        _ = try await FrameDriver(duration: 0.5).play(&driver, on: seed.view, advance: { await seed.loop.advance(to: $0) }, step: { t in
            seed.view.step(to: t)
            await seed.loop.settle()
        })
        // Then some items were displayed without having been prefetched first
        let prefetched = Set(seed.recorder.events(.prefetch).map(\.indexPath))
        let displayed = seed.recorder.events(.willDisplay).map(\.indexPath)
        #expect(displayed.contains { !prefetched.contains($0) })
        #expect(displayed.contains { prefetched.contains($0) })
    }
}

/// Apple's sample's cells holding a consumer: those the view puts back in its reuse pool withdraw it at
/// once, in item order, so which loads stay alive never depends on the pool's order.
@MainActor
final class PooledCells {
    private var holders: [ObjectIdentifier: (cell: SeedScenarioTests.Cell, item: Int)] = [:]

    func hold(_ cell: SeedScenarioTests.Cell, item: Int) {
        if cell.fetchHandle != nil { holders[ObjectIdentifier(cell)] = (cell, item) }
    }

    func releasePooled() {
        let pooled = holders.filter { $0.value.cell.indexPath == nil || $0.value.cell.fetchHandle == nil }.sorted { $0.value.item < $1.value.item }
        for (key, holder) in pooled {
            holders[key] = nil
            holder.cell.fetchHandle?.cancel()
            holder.cell.fetchHandle = nil
        }
    }
}

/// A `ManualClock` and its time in seconds.
struct ManualClockBox: Sendable {
    let clock = ManualClock()
    var seconds: @Sendable () -> Double {
        let clock = self.clock
        return { clock.now.offset.seconds }
    }
}
