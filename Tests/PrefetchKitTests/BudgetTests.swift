import PrefetchTesting
import Testing
@testable import PrefetchKit

/// Budgets (issue #27) on virtual time: the network's conditions, the byte budget, the memory a
/// fetcher holds and its budget, and memory pressure. Rows 100 pt high, a viewport of 300 pt on
/// 10,000 pt, a typical load of 300 ms (the fallback), as in the controller tests.
@Suite("Budgets")
struct BudgetTests {
    let rows = Rows(count: 100, height: 100)

    /// `screens` viewports ahead of the viewport, whatever the motion.
    struct Ahead: PrefetchPolicy {
        var screens = 2.0
        var name: String { "ahead" }
        func plan(for context: ScrollContext) -> PrefetchPlan {
            let end = context.viewport.upperBound
            return PrefetchPlan(regions: [end..<(end + screens * context.viewportLength)])
        }
    }

    /// A target that reports a capacity and records what it holds and what it was told to keep.
    final class CapacityTarget: PrefetchTarget {
        let recording = RecordingTarget<Int>()
        var prefetchCapacity: Int?
        var kept: [[Int]] = []
        var expectedLatency: Duration? { nil }
        var requested: [Int: FetchPriority] { recording.requested }
        func updatePrefetching(_ update: PrefetchUpdate<Int>) { recording.updatePrefetching(update) }
        func trimMemory(keeping items: [Int]) { kept.append(items) }
    }

    // MARK: Network conditions

    @Test func lowDataModeRequestsOnlyTheLandingZoneOfAFlingAndTheNextScreenAtRest() throws {
        // The fling of the controller tests: from 0 to rest at 3,000; rows 25–32 are worth a slot
        // (29–32 are its landing zone, 25–28 the slow end of the way), 13–24 are flown past, 0–12
        // gone before a load could finish; the policy plans 27 rows past the landing zone too.
        let fling = frame(0, at: 0, velocity: 6_006, .decelerating(restingOffset: 3_000, rate: 0.998))
        func requested(_ conditions: NetworkConditions, _ state: ScrollState, _ policy: any PrefetchPolicy) -> [Int] {
            let target = RecordingTarget<Int>()
            let controller = PrefetchController<Int>(policy: policy, target: target)
            controller.networkConditions = conditions
            controller.update(state, geometry: rows)
            return target.requested.keys.sorted()
        }
        let way = FixedPolicy(regions: [300..<6_000])
        #expect(requested(.normal, fling, way) == Array(0...59))
        #expect(requested(.constrained, fling, way) == Array(25...32))
        // Expensive, milder: the policy's rows up to a screen and a half past the landing zone
        #expect(requested(.expensive, fling, way) == Array(0...37))
        // At rest on the first screen: the visible rows and three quarters of the next screen
        #expect(requested(.normal, frame(0, at: 1_000), Ahead(screens: 3)) == Array(10...21))
        #expect(requested(.constrained, frame(0, at: 1_000), Ahead(screens: 3)) == Array(10...15))
        #expect(requested(.expensive, frame(0, at: 1_000), Ahead(screens: 3)) == Array(10...17))
    }

    @Test func lowDataModeTrustsTheDirectionOfADragButNotOfAJump() {
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: Ahead(screens: 3), target: target)
        controller.networkConditions = .constrained
        controller.update(frame(0, at: 1_000), geometry: rows)
        // A jump: no latest motion, no direction: only the visible rows
        controller.update(frame(1, at: 5_000), geometry: rows)
        #expect(target.requested.keys.sorted() == [50, 51, 52])
        // A drag at 1,000 pt/s reaches 2 × 300 ms ahead (E is the 300 ms fallback), to 5,950 pt;
        // of those rows only 56–59 would show for a typical load (rows 50–55 pass in under 0.3 s
        // after a load started now could finish: their cells ask for themselves if they want)
        controller.update(frame(1.1, at: 5_050, velocity: 1_000, .dragging), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(56...59))
        // It stops after 100 pt: at rest, three quarters of those 100 pt ahead (row 54)
        controller.update(frame(1.15, at: 5_100, velocity: 1_000, .dragging), geometry: rows)
        controller.update(frame(1.2, at: 5_100), geometry: rows)
        #expect(target.requested.keys.sorted() == [51, 52, 53, 54])
    }

    @Test func conditionsTakeEffectAtTheNextUpdateBothWays() {
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: Ahead(screens: 3), target: target)
        controller.update(frame(0, at: 1_000), geometry: rows)
        #expect(target.requested.count == 12)
        // Low Data Mode comes: the rows past the next screen are withdrawn at once
        controller.networkConditions = .constrained
        controller.update(frame(0.1, at: 1_000), geometry: rows)
        #expect(target.lastUpdate.withdrawals.sorted() == Array(16...21))
        #expect(target.requested.keys.sorted() == Array(10...15))
        // It goes: the whole window again, at the priorities the plan holds
        controller.networkConditions = .normal
        controller.update(frame(0.2, at: 1_000), geometry: rows)
        #expect(target.lastUpdate.requestedItems.sorted() == Array(16...21))
        #expect(target.requested == Dictionary(uniqueKeysWithValues: controller.requestedItems.map { ($0.item, $0.priority) }))
    }

    @Test func theByteBudgetCapsPrefetchesPerMinuteAndNeverHoldsBackVisibleRows() throws {
        // 300 bytes a minute at 100 bytes a prefetch: three prefetches in any minute
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: Ahead(), target: target)
        controller.networkConditions = NetworkConditions(prefetchBudget: try PrefetchDataBudget(bytesPerMinute: 300, bytesPerLoad: 100))
        var sent: [(time: Double, item: Int)] = []
        func step(_ time: Double, at offset: Double) {
            let before = Set(target.requested.keys)
            controller.update(frame(time, at: offset), geometry: rows)
            for request in target.lastUpdate.requests where request.priority.level < .visible && !before.contains(request.item) {
                sent.append((time, request.item))
            }
        }
        step(0, at: 1_000)   // visible 10–12; of 13–18, the nearest three
        #expect(target.requested.keys.sorted() == Array(10...15))
        step(20, at: 2_000)  // a jump: the new visible rows come, no prefetch is left this minute
        #expect(target.requested.keys.sorted() == [20, 21, 22])
        step(59.9, at: 2_000)
        #expect(target.requested.count == 3)
        step(60, at: 2_000)  // the first minute's prefetches leave the window: three more
        #expect(target.requested.keys.sorted() == Array(20...25))
        step(70, at: 2_000)
        #expect(target.requested.keys.sorted() == Array(20...25))
        for (time, _) in sent { #expect(sent.filter { $0.time > time - 60 && $0.time <= time }.count <= 3) }
        #expect(sent.count == 6)
        // No budget at all: still every visible row
        controller.networkConditions = NetworkConditions(isConstrained: true, prefetchBudget: try PrefetchDataBudget(bytesPerMinute: 0, bytesPerLoad: 1))
        controller.update(frame(80, at: 5_000), geometry: rows)
        #expect(target.requested.keys.sorted() == [50, 51, 52])
        #expect { try PrefetchDataBudget(bytesPerMinute: 100, bytesPerLoad: 0) } throws: { ($0 as? PrefetchError)?.message.contains("bytesPerLoad is 0") == true }
        #expect { try PrefetchDataBudget(bytesPerMinute: -1, bytesPerLoad: 10) } throws: { ($0 as? PrefetchError)?.message.contains("bytesPerMinute is -1") == true }
    }

    // MARK: Memory

    @Test func theControllerRequestsNoMoreThanTheTargetsMemoryHoldsVisibleRowsFirst() {
        let target = CapacityTarget()
        let controller = PrefetchController<Int>(policy: Ahead(), target: target)
        target.prefetchCapacity = 5
        controller.update(frame(0, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(10...14))
        // Less room than visible rows: the visible rows all the same, nothing ahead
        target.prefetchCapacity = 2
        controller.update(frame(0.1, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == [10, 11, 12])
        target.prefetchCapacity = nil
        controller.update(frame(0.2, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(10...18))
    }

    @Test func aBatchUpdateQueuedWhenTheGateClosesIsAppliedToTheTargetOnce() {
        // Rows 10–15 held (the screen and the next); two rows are inserted above, and the
        // target's memory shrinks to three items, before the next frame
        let target = CapacityTarget()
        let controller = PrefetchController<Int>(policy: Ahead(screens: 1), target: target)
        controller.update(frame(0, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(10...15))
        controller.moveItems { $0 + 2 }
        target.prefetchCapacity = 3
        controller.update(frame(0.1, at: 1_000), geometry: rows)
        // The screen shows rows 10–12 now (two new items and the former 10): those and no more;
        // the former 11 (now 13) is not left behind
        #expect(target.requested.keys.sorted() == [10, 11, 12])
        controller.withdrawAll()
        #expect(target.requested.isEmpty)
    }

    @Test func aFetcherReportsTheMemoryItHoldsAndKeepsItWithinTheBudget() async throws {
        // Values cost 10; a budget of 35 holds three; two loads at once.
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(
            configuration: FetcherConfiguration(maxConcurrentLoads: 2, memoryBudget: 35), clock: ManualClock(), cost: { _ in 10 },
            loader: loader)
        #expect(fetcher.valueCapacity == nil, "no value seen yet")
        fetcher.prefetch(Array(1...8))
        var peak = 0
        for id in 1...8 {
            await loader.waitForCalls(id)
            let inbox = Inbox<Int>()
            fetcher.fetchAsync(id, completion: inbox.handler)
            #expect(loader.succeed(id, with: id))
            _ = await inbox.next()
            let stats = fetcher.statistics
            // The cache, plus a typical value (10) per load running
            #expect(stats.memoryHeld == fetcher.cachedCount * 10 + stats.inFlight * 10)
            #expect(stats.memoryHeld <= 35 && stats.peakMemoryHeld <= 35, "after \(id): \(stats)")
            peak = max(peak, stats.memoryHeld)
        }
        #expect(peak == 30 && fetcher.statistics.peakMemoryHeld == 30)
        #expect(fetcher.valueCapacity == 3)
        #expect(fetcher.cachedCount == 3 && fetcher.fetchedData(for: 8) == 8, "the most recent values stay")
        // Without a budget the same loads hold everything
        let free = try AsyncFetcher<Int, Int>(clock: ManualClock(), cost: { _ in 10 }, load: { $0 })
        for id in 1...8 { _ = try await free.value(for: id) }
        #expect(free.statistics.memoryHeld == 80 && free.statistics.peakMemoryHeld == 80 && free.valueCapacity == nil)
        #expect { try FetcherConfiguration(memoryBudget: -1) } throws: { ($0 as? PrefetchError)?.message.contains("memoryBudget must be 0 or more, got -1") == true }
    }

    @Test func aControllerOverABudgetedFetcherKeepsItsPeakWithinTheBudget() async throws {
        let fetcher = try AsyncFetcher<Int, Int>(
            configuration: FetcherConfiguration(maxConcurrentLoads: 2, memoryBudget: 50), clock: ManualClock(), cost: { _ in 10 },
            load: { $0 })
        let target = FetcherPrefetchTarget<Int, Int, Int>(fetcher: fetcher, identifier: { $0 })
        let controller = PrefetchController<Int>(policy: Ahead(screens: 3), target: target)
        _ = try await fetcher.value(for: 0)   // one value: a typical cost of 10, room for 5
        for step in 0..<40 {
            controller.update(frame(Double(step) * 0.1, at: Double(step) * 50, velocity: 500, .dragging), geometry: rows)
            #expect(target.requestedCount <= 5)
            for id in target.requestedIDs { _ = try await fetcher.value(for: id, priority: .background) }
            #expect(fetcher.statistics.memoryHeld <= 50)
        }
        #expect(fetcher.statistics.peakMemoryHeld <= 50 && fetcher.statistics.peakMemoryHeld >= 40)
    }

    @Test func memoryPressureDropsToTheScreenAndLandingZoneWithinAFrameThenRecovers() async throws {
        let fetcher = try AsyncFetcher<Int, Int>(clock: ManualClock(), cost: { _ in 10 }, load: { $0 })
        let target = FetcherPrefetchTarget<Int, Int, Int>(fetcher: fetcher, identifier: { $0 })
        let controller = PrefetchController<Int>(policy: Ahead(screens: 3), target: target,
                                                 configuration: try .init(memoryPressureDuration: .seconds(3)))
        func loadRequested() async throws {
            for id in target.requestedIDs { _ = try await fetcher.value(for: id, priority: .background) }
        }
        // At rest on rows 10–12 with three screens ahead loaded: 12 values held
        controller.update(frame(0, at: 1_000), geometry: rows)
        try await loadRequested()
        #expect(fetcher.statistics.memoryHeld == 120)
        // A fling starts toward 4,000 (landing zone: rows 39–42), and memory runs short
        controller.update(frame(1, at: 1_000, velocity: 6_006, .decelerating(restingOffset: 4_000, rate: 0.998)), geometry: rows)
        controller.handleMemoryPressure()
        // At once: only the screen's values stay, and only the screen and the landing zone are requested
        #expect(fetcher.statistics.memoryHeld == 30 && fetcher.cachedCount == 3)
        #expect([10, 11, 12].allSatisfy { fetcher.fetchedData(for: $0) != nil })
        #expect(Set(target.requestedIDs).isSubset(of: Set(10...12).union(39...42)))
        #expect(controller.isUnderMemoryPressure)
        // The next frames plan the screen and the landing zone only, at rest too
        controller.update(frame(1.5, at: 2_600, velocity: 2_000, .decelerating(restingOffset: 4_000, rate: 0.998)), geometry: rows)
        // (Loads here take no time, so even the rows on screen during the fling are worth a slot.)
        #expect(target.requestedIDs.sorted() == Array(26...28) + Array(39...42))
        controller.update(frame(3, at: 4_000), geometry: rows)
        try await loadRequested()
        #expect(target.requestedIDs.sorted() == [40, 41, 42])
        #expect(fetcher.statistics.memoryHeld <= 7 * 10)
        // Three seconds after the signal the window comes back, and the rows ahead load again
        controller.update(frame(4.1, at: 4_000), geometry: rows)
        #expect(!controller.isUnderMemoryPressure)
        #expect(target.requestedIDs.sorted() == Array(40...51))
        try await loadRequested()
        #expect((40...51).allSatisfy { fetcher.fetchedData(for: $0) != nil })
    }

    @Test func pressureBeforeTheFirstFrameStartsWithItAndThePrefetchContextSaysWhatALoadIs() async throws {
        let target = CapacityTarget()
        let controller = PrefetchController<Int>(policy: Ahead(), target: target)
        // The default shrinks for 0.5 s: the first frame starts it, and it is over by 5.5 s
        #expect(controller.configuration.memoryPressureDuration == .milliseconds(500))
        controller.handleMemoryPressure()
        #expect(target.kept == [[]], "nothing on screen yet: nothing to keep")
        controller.update(frame(5, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == [10, 11, 12])
        controller.update(frame(5.4, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == [10, 11, 12])
        controller.update(frame(5.6, at: 1_000), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(10...18))
        // What a loader sees
        let seen = Locked<[Int: Bool]>([:])
        let fetcher = try AsyncFetcher<Int, Int>(clock: ManualClock(), load: { id in
            seen.withLock { $0[id] = FetchLoadContext.isPrefetch }
            return id
        })
        _ = try await fetcher.value(for: 1)
        fetcher.prefetch([2])
        _ = try await fetcher.value(for: 2, priority: .background)
        #expect(seen.withLock { $0 } == [1: false, 2: true])
        #expect(!FetchLoadContext.isPrefetch && FetchLoadContext.priority == nil)
    }
}
