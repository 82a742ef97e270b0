import Testing
@testable import PrefetchKit

/// The planner's parts on their own: the one latency estimate, the withdrawal grace, the
/// re-prioritisation rule, and the planner as a value that returns its decisions (rows of 100 pt,
/// a viewport of 300 pt, as in the controller tests).
@Suite("PrefetchPlanner")
struct PrefetchPlannerTests {
    let rows = Rows(count: 100, height: 100)

    @Test func theFallbackStandsInUntilMeasuredAndALatencyMovesOnlyByAQuarter() {
        var latency = PlanningLatency(fallback: .milliseconds(300))
        func holds(_ typical: Int, _ expected: Int) -> Bool {
            latency.typical == .milliseconds(typical) && latency.expected == .milliseconds(expected)
        }
        // Unmeasured: L = E = the fallback, nothing moved
        var moved = latency.take(LatencyEstimate(), fallback: .milliseconds(300))
        #expect(!moved)
        #expect(holds(300, 300))
        // L measured 10 % off stays; E measured at 0.6 s moves
        moved = latency.take(LatencyEstimate(typical: .milliseconds(330), expected: .milliseconds(600)), fallback: .milliseconds(300))
        #expect(moved)
        #expect(holds(300, 600))
        // L doubles: it moves; E unmeasured now falls back to max(L, fallback) = 0.6, which it is
        moved = latency.take(LatencyEstimate(typical: .milliseconds(600)), fallback: .milliseconds(300))
        #expect(moved)
        #expect(holds(600, 600))
        // A negative measurement is no measurement: L falls back to 300 ms
        moved = latency.take(LatencyEstimate(typical: .milliseconds(-5), expected: .milliseconds(600)), fallback: .milliseconds(300))
        #expect(moved)
        #expect(holds(300, 600))
    }

    @Test func thePolicySeesTheExpectedLatencyTheRankingUses() throws {
        struct Recording: PrefetchPolicy {
            let seen: Locked<[Duration]>
            var name: String { "recording" }
            func plan(for context: ScrollContext) -> PrefetchPlan {
                seen.withLock { $0.append(context.expectedLatency) }
                return .empty
            }
        }
        let seen = Locked<[Duration]>([])
        var planner = PrefetchPlanner<Int>(policy: Recording(seen: seen), configuration: try .init(fallbackLatency: .milliseconds(200)))
        // Unmeasured: the fallback; then E measured at 1 s; then 1.1 s, within a quarter: still 1 s
        for (time, expected) in [(0.0, nil), (0.1, Duration.seconds(1)), (0.2, .milliseconds(1_100))] {
            _ = planner.step(frame(time, at: 0), geometry: rows, latency: LatencyEstimate(typical: expected, expected: expected))
        }
        #expect(seen.withLock { $0 } == [.milliseconds(200), .seconds(1), .seconds(1)])
        #expect(planner.latency.expected == .seconds(1))
        #expect { try PrefetchController<Int>.Configuration(fallbackLatency: .seconds(-1)) } throws: { $0 is PrefetchError }
    }

    @Test func theGraceWithdrawsWhatLeftOldestRequestFirstOnceItHasPassed() {
        var leaving = LeavingItems<Int>()
        var changes = Changes<Int>(moved: [], removed: [])
        let prefetch = Rank(priority: FetchPriority(level: .prefetch, order: 1))
        leaving.retire(7, HeldEntry(extent: 700..<800, rank: prefetch, sequence: 5), at: 1, &changes)
        leaving.retire(8, HeldEntry(extent: 800..<900, rank: prefetch, sequence: 3), at: 1.5, &changes)
        // Each drops to background, after every other request
        #expect(changes.update().requests == [8, 7].map { PrefetchRequest(item: $0, priority: LeavingItems<Int>.priority) })
        // Taken back, item 8 keeps its request
        #expect(leaving.takeBack(8)?.sequence == 3)
        leaving.retire(8, HeldEntry(extent: 800..<900, rank: Rank(priority: LeavingItems<Int>.priority), sequence: 3), at: 2, &changes)
        #expect(changes.requestItems.count == 2, "an item already at background is not requested again")
        // A grace of 1 s: nothing at 1.9 s, item 7 at 2 s, item 8 at 3 s
        leaving.expire(now: 1.9, grace: 1, &changes)
        #expect(changes.withdrawals.isEmpty)
        leaving.expire(now: 2, grace: 1, &changes)
        #expect(changes.withdrawals == [7])
        leaving.expire(now: 3, grace: 1, &changes)
        #expect(changes.withdrawals == [7, 8])
        #expect(leaving.items.isEmpty && leaving.earliest == .infinity)
    }

    @Test func aFlingsPathIsRankedWithTheTypicalWaitAndADragsWithTheExpectedOne() throws {
        // Given loads of typical latency L = 0.5 s and 90th percentile E = 2 s
        var latency = PlanningLatency(fallback: .milliseconds(300))
        _ = latency.take(LatencyEstimate(typical: .milliseconds(500), expected: .seconds(2)), fallback: .milliseconds(300))
        let (l, e) = (0.5, 2.0)
        // The rows a motion shows long enough for a load that starts now and takes L, but not
        // for one that takes E: worth a slot only if the planner waits L for it
        func rowsBetween(_ state: ScrollState) -> [Range<Double>] {
            let forecast = MotionForecast(state)
            return (3..<100).map { Double($0) * 100..<Double($0 + 1) * 100 }.filter { extent in
                let (arrival, departure) = forecast.window(of: extent)
                return arrival.isFinite && departure - max(arrival, l) >= l && departure - max(arrival, e) < l
            }
        }
        // When a fling coasts from 0 at 3,000 pt/s towards rest at 1,500
        let fling = frame(0, at: 0, velocity: 3_000, .decelerating(restingOffset: 1_500, rate: 0.998))
        let flown = rowsBetween(fling)
        try #require(!flown.isEmpty)
        let flingRanking = Ranking(forecast: MotionForecast(fling), now: 0, latency: latency, tolerance: 0.05)
        // Then they are worth a slot: its path is fixed, so the wait is the typical one
        #expect(flown.allSatisfy { flingRanking.rank(of: $0).priority.level == .prefetch }, "\(flown)")
        // When a finger drags at 700 pt/s instead (its speed held is a guess)
        let drag = frame(0, at: 0, velocity: 700, .dragging)
        let dragged = rowsBetween(drag)
        try #require(!dragged.isEmpty)
        let dragRanking = Ranking(forecast: MotionForecast(drag), now: 0, latency: latency, tolerance: 0.05)
        // Then such rows wait E and are not worth a slot
        #expect(dragged.allSatisfy { dragRanking.rank(of: $0).priority.level == .speculative }, "\(dragged)")
    }

    @Test func aHeldRequestMovesOnAChangeOfLevelOrAnOrderPastTheTolerance() {
        let ranking = Ranking(forecast: MotionForecast(frame(0, at: 0)), now: 0, latency: PlanningLatency(fallback: .milliseconds(300)), tolerance: 0.05)
        let prefetch = FetchPriority(level: .prefetch, order: 1)
        #expect(ranking.isMeaningful(from: prefetch, to: FetchPriority(level: .visible, order: 1)))
        #expect(!ranking.isMeaningful(from: prefetch, to: FetchPriority(level: .prefetch, order: 1.04)))
        #expect(ranking.isMeaningful(from: prefetch, to: FetchPriority(level: .prefetch, order: 1.06)))
        // Among visible items the order matters little
        #expect(!ranking.isMeaningful(from: .visible, to: FetchPriority(level: .visible, order: 5)))
    }

    @Test func aStepReturnsItsDecisionsAndCallsNothing() {
        var planner = PrefetchPlanner<Int>(policy: FixedPolicy(regions: [300..<600]))
        let first = planner.step(frame(0, at: 0), geometry: rows, latency: LatencyEstimate())
        #expect(Set(first.requests.map(\.item)) == Set(0...5))
        #expect(planner.requestedCount == 6)
        // Two batch updates before the next step: a row inserted above, then the old row 0 (now 1) deleted
        planner.moveItems { $0 + 1 }
        planner.moveItems { $0 == 1 ? nil : ($0 > 1 ? $0 - 1 : $0) }
        let second = planner.step(frame(0.1, at: 0), geometry: rows, latency: LatencyEstimate())
        // They compose, named as the target knows them: rows 1–5 end where they were (no move),
        // row 0 is removed, and the new row 0 requested
        #expect(second.removed == [0])
        #expect(second.moved.isEmpty)
        #expect(second.requests.map(\.item) == [0])
        #expect(planner.requestedCount == 6)
        planner._checkInvariants(geometry: rows)
    }

    @Test func withoutPlanningItFollowsTheMotionAndWithdrawsWhatItHeld() {
        var planner = PrefetchPlanner<Int>(policy: FixedPolicy(regions: [300..<600]))
        _ = planner.step(frame(0, at: 0), geometry: rows, latency: LatencyEstimate())
        let off = planner.step(frame(0.1, at: 0, velocity: 500, .dragging), geometry: rows, latency: LatencyEstimate(), planning: false)
        #expect(off.withdrawals == Array(0...5))
        #expect(off.requests.isEmpty && planner.requestedCount == 0)
        // The forecast still ranks: row 7 arrives at 0.1 + (700 − 300) / 500 = 0.9 s
        #expect(planner.priority(for: 7, extent: 700..<800) == FetchPriority(level: .prefetch, order: 0.9))
        #expect(planner.step(frame(0.2, at: 50), geometry: rows, latency: LatencyEstimate(), planning: false).isEmpty)
    }
}
