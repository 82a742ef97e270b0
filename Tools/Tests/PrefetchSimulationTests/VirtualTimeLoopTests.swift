import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// The app loop's pieces on hand-computed cases: the network, retries on the virtual clock, the meter, the gesture driver.
@Suite("The virtual-time loop")
@MainActor
struct VirtualTimeLoopTests {
    /// A loop over items 0..<100 whose value is the item itself.
    func loop(latency: LatencyModel, retry: RetryPolicy = .none, cap: Int = 6, onEvent: (@Sendable (FetchEvent<Int>) -> Void)? = nil) throws -> VirtualTimeLoop<Int, Int> {
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = cap
        configuration.retry = retry
        return try VirtualTimeLoop(configuration: configuration, latency: latency, seed: 1, item: { $0 }, value: { $0 }, onEvent: onEvent)
    }

    @Test func aLoadEndsAtItsDrawnDeadlineOnTheVirtualClock() async throws {
        // Given a fixed 250 ms network
        let loop = try loop(latency: LatencyModel(.fixed(.milliseconds(250))))
        // When item 3 is prefetched at time 0
        loop.fetcher.prefetch([3])
        await loop.settle()
        #expect(loop.network.occupancy.waiting == 1)
        // Then it is not there at 0.2 s, and is at 0.25 s, with the fetcher's latency measured on the virtual clock
        await loop.advance(to: 0.2)
        #expect(loop.fetcher.fetchedData(for: 3) == nil)
        await loop.advance(to: 0.25)
        #expect(loop.fetcher.fetchedData(for: 3) == 3)
        #expect(loop.fetcher.statistics.latency.median == .milliseconds(250))
        #expect(loop.now == 0.25)
    }

    @Test func failedAttemptsAreRetriedAfterTheRetryPolicysBackOffOnTheClock() async throws {
        // Given attempts of 100 ms that always fail, and 3 attempts with back-offs of 200 ms and 400 ms (no jitter)
        let retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(200), multiplier: 2, jitter: 0)
        let loop = try loop(latency: LatencyModel(.fixed(.milliseconds(100)), failureRate: 1), retry: retry)
        let failed = Locked<Double?>(nil)
        let clock = loop.clock
        // When a consumer asks for item 7
        _ = loop.fetcher.fetchAsync(7) { result in
            if case .failure(let error) = result, error is SimulatedLoadFailure { failed.withLock { $0 = clock.now.offset.seconds } }
        }
        await loop.settle()
        // Then the attempts run at 0 (to 0.1), 0.3 (to 0.4) and 0.8 s, and the failure arrives at 0.9 s, not before
        await loop.advance(to: 0.89)
        #expect(failed.withLock { $0 } == nil)
        #expect(loop.fetcher.statistics.retries == 2)
        await loop.advance(to: 0.9)
        let failedAt = try #require(failed.withLock { $0 })
        #expect(abs(failedAt - 0.9) < 1e-9)
        #expect(loop.fetcher.statistics.loadsFailed == 1)
        #expect(loop.fetcher.statistics.inFlight == 0)
    }

    @Test func aRetryThatSucceedsDeliversTheValue() async throws {
        // Given a network where half the attempts fail, and retries
        let retry = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(50), jitter: 0.5)
        let loop = try loop(latency: LatencyModel(.fixed(.milliseconds(50)), failureRate: 0.5), retry: retry, cap: 2)
        // When 20 items are prefetched and the loop runs for 10 s
        loop.fetcher.prefetch(Array(0..<20))
        await loop.settle()
        await loop.advance(to: 10)
        // Then every load ended, some after retries, and never more than 2 ran at once
        let stats = loop.fetcher.statistics
        #expect(stats.retries > 0)
        #expect(stats.loadsCompleted + stats.loadsFailed == 20)
        #expect(stats.peakInFlight == 2)
        #expect(loop.network.occupancy == .init(waiting: 0, backingOff: 0, inTransit: 0, undrawn: 0, finishing: 0, running: 0))
    }

    @Test func aCancelledBackOffEndsTheLoad() async throws {
        // Given attempts that always fail and a long back-off
        let retry = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(1), jitter: 0)
        let loop = try loop(latency: LatencyModel(.fixed(.milliseconds(100)), failureRate: 1), retry: retry)
        loop.fetcher.prefetch([4])
        await loop.settle()
        await loop.advance(to: 0.5)
        #expect(loop.network.occupancy.backingOff == 1)
        #expect(loop.clock.sleeperCount == 1)
        // When the prefetch is withdrawn during the back-off
        loop.fetcher.cancelPrefetching([4])
        await loop.settle()
        // Then the load is gone, and time moves on without it
        #expect(loop.network.occupancy.backingOff == 0)
        #expect(loop.fetcher.statistics.inFlight == 0)
        await loop.advance(to: 3)
        #expect(loop.fetcher.statistics.loadsStarted == 1)
        #expect(loop.fetcher.statistics.loadsCancelled == 1)
    }

    @Test func drawsAreKeyedByItemLoadAndAttemptNotByOrder() async throws {
        // Given the same items requested in two orders
        let model = try LatencyModel(.logNormal(median: .milliseconds(100), p99: .seconds(1)))
        var finished: [[Int]] = []
        for order in [[1, 2, 3, 4], [4, 3, 2, 1]] {
            let loop = try loop(latency: model)
            loop.fetcher.prefetch(order)
            await loop.settle()
            var ends: [Int] = []
            await loop.advance(to: 5) { id in if let id { ends.append(id) } }
            finished.append(ends)
        }
        // Then each item's load takes its own drawn time, so they finish in the same order
        #expect(finished[0] == finished[1])
        #expect(finished[0].count == 4)
    }

    @Test func aZeroBackOffIsRefusedWithTheRule() throws {
        let retry = RetryPolicy(maxAttempts: 2, initialDelay: .zero)
        #expect { try loop(latency: LatencyModel(.fixed(.milliseconds(100))), retry: retry) } throws: {
            ($0 as? SimulationError)?.message.contains("on virtual time every back-off must be at least 1 µs") == true
        }
    }

    @Test func theMeterCountsWaitsFromTheFirstCountedAppearance() {
        // Given a meter on a hand-moved time
        let now = Locked(0.0)
        let meter = ReadinessMeter(now: { now.withLock { $0 } })
        // The first screen is not counted
        meter.cellAppeared(item: 0, ready: false)
        meter.startCounting()
        // Item 1 appears ready, item 2 blank at 1 s; its data arrives at 1.5 s; item 3 appears blank at 2 s and leaves at 3 s
        now.withLock { $0 = 1 }
        meter.cellAppeared(item: 1, ready: true)
        meter.cellAppeared(item: 2, ready: false)
        now.withLock { $0 = 1.5 }
        meter.dataShown(item: 2)
        now.withLock { $0 = 2 }
        meter.cellAppeared(item: 3, ready: false)
        now.withLock { $0 = 3 }
        meter.cellDisappeared(item: 3)
        meter.finish()
        let r = meter.readiness
        #expect(r.displayed == 3)
        #expect(abs(r.displayReadyRate - 1.0 / 3) < 1e-12)
        #expect(abs(r.blankCellSeconds - 1.5) < 1e-12)
        #expect(abs(r.visibleWaitMeanMs - 500) < 1e-9)
        #expect(abs(r.visibleWaitP95Ms - 1000) < 1e-9)
    }

    @Test func theMeterCountsLoadsFromTheFetchersEvents() async throws {
        // Given a meter listening to a cap-2 fetcher
        let clock = ManualClock()
        let meter = ReadinessMeter(now: { clock.now.offset.seconds })
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = 2
        let loop = try VirtualTimeLoop<Int, Int>(
            configuration: configuration, clock: clock, latency: LatencyModel(.fixed(.milliseconds(100))), seed: 1, item: { $0 }, value: { $0 },
            onEvent: { event in meter.record(event, item: { $0 }) })
        // When 5 items are prefetched, one is withdrawn while it runs, and item 0 is then displayed
        loop.fetcher.prefetch(Array(0..<5))
        await loop.settle()
        loop.fetcher.cancelPrefetching([1])
        await loop.settle()
        await loop.advance(to: 1)
        meter.cellAppeared(item: 0, ready: true)
        // Then 5 started, 1 cancelled, 4 completed, 3 of them never displayed, at most 2 at once
        let r = meter.readiness
        #expect(r.loadsStarted == 5)
        #expect(r.loadsCancelled == 1)
        #expect(r.loadsCompleted == 4)
        #expect(r.loadsWasted == 3)
        #expect(r.peakInFlight == 2)
    }

    @Test func theGestureDriverPlaysAFlingToRestAndClampsAJump() throws {
        // Given ten 100-point rows in a 100-point viewport
        guard let view = try ScenarioLayout(kind: .list, itemCount: 10, itemWidth: 0, itemHeight: 100, spacing: 0)
            .makeView(viewport: Viewport(width: 100, height: 100)) as? TableView else { throw SimulationError("a list is a table") }
        let rows = TenRows()
        view.register(TableViewCell.self, forCellReuseIdentifier: "row")
        view.dataSource = rows
        var driver = GestureDriver(gestures: [.jump(item: 99), .pause(duration: 0.1), .fling(velocity: -2_000)])
        view.step(to: 0)
        // When the frames play
        var frame = 0
        while !driver.isFinished, frame < 600 {
            frame += 1
            try driver.input(to: view, at: Double(frame) / 60, frameDuration: 1.0 / 60)
            view.step(to: Double(frame) / 60)
        }
        // Then the jump went to the last row, and the fling upward ended at rest
        withExtendedLifetime(rows) {}
        #expect(driver.isFinished)
        #expect(!view.isDecelerating)
        #expect(view.contentOffset.y < 900)
        #expect(frame > 6)
    }

    @Test func badGestureInputNamesTheValueAndTheRule() throws {
        let view = try ScenarioLayout.list(itemCount: 10).makeView(viewport: .phoneList)
        var driver = GestureDriver(gestures: [.drag(speed: .nan, duration: 1)])
        #expect { try driver.input(to: view, at: 0.1, frameDuration: 1.0 / 60) } throws: {
            ($0 as? SimulationError)?.description == "gestures[0]: drag speed nan must be finite"
        }
        var other = GestureDriver(gestures: [])
        #expect { try other.input(to: view, at: -1, frameDuration: 1.0 / 60) } throws: {
            ($0 as? SimulationError)?.message == "gesture time is -1.0 s, but it must be a finite number, at least 0"
        }
        #expect { try other.input(to: view, at: 1, frameDuration: .infinity) } throws: {
            ($0 as? SimulationError)?.message == "frame duration is inf s, but it must be a finite number, at least 0"
        }
        #expect { try ScenarioLayout.list(itemCount: 0).makeView(viewport: .phoneList) } throws: {
            ($0 as? SimulationError)?.description == "layout.itemCount: 0 items; a layout needs at least 1"
        }
    }
}

/// Ten plain rows.
@MainActor
final class TenRows: TableViewDataSource {
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 10 }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
}
