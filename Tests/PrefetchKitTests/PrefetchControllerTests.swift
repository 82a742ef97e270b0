import Foundation
import PrefetchTesting
import Testing
@testable import PrefetchKit

/// The controller on virtual time, without a view: rows 100 pt high, a viewport 300 pt long, a
/// typical load of 300 ms (the fallback: the targets here report no latency). Every expected
/// rank below is computed by hand in the comments.
@Suite("PrefetchController")
struct PrefetchControllerTests {
    let rows = Rows(count: 100, height: 100)

    private func makeFetcher(cap: Int) throws -> (AsyncFetcher<Int, Int>, ScriptedLoader<Int, Int>) {
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(
            configuration: FetcherConfiguration(maxConcurrentLoads: cap), clock: ManualClock(), loader: loader)
        return (fetcher, loader)
    }

    // MARK: Hand-computed cases

    @Test func aFlingsRestingCellsRankAboveTheCellsItFliesPast() throws {
        // Given a fling from offset 0 that comes to rest at 3,000 (UIKit's 0.998 per ms), and a
        // plan of the whole way: offset(t) = 3000·(1 − e^(−2.002 t)).
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<3_300]), target: target)
        controller.update(frame(0, at: 0, velocity: 6_006, .decelerating(restingOffset: 3_000, rate: 0.998)), geometry: rows)

        // Then row k arrives when the offset reaches 100k − 300 and leaves when it reaches 100k + 100.
        // A load started now is ready at 0.3 s (the fallback latency, for E and L alike), and is
        // worth its slot when the row then shows its data for at least 0.3 s:
        // row 25 is on screen from 0.660 s to 1.006 s (1.006 − 0.660 ≥ 0.3: worth it), row 24 from
        // 0.601 s to 0.895 s (0.294 s: not), rows 29 to 32 never leave. Rows 13 to 24 leave after
        // 0.3 s (offset(0.3) = 3000·(1 − e^(−0.6006)) = 1354): speculative, latest departure first.
        // Rows 0 to 12 are gone before a load started now could finish: background, by arrival.
        let requests = target.lastUpdate.requests
        #expect(requests.map(\.item) == Array(25...32) + Array((13...24).reversed()) + Array(0...12))
        #expect(requests.prefix(8).allSatisfy { $0.priority.level == .prefetch })
        #expect(requests.dropFirst(8).prefix(12).allSatisfy { $0.priority.level == .speculative })
        #expect(requests.suffix(13).allSatisfy { $0.priority.level == .background })
        // Orders are absolute arrival times: row 25 at 0.660 s, row 30 (resting) at 1.150 s.
        #expect(abs(requests[0].priority.order - 0.6602) < 1e-3)
        #expect(abs(requests[5].priority.order - 1.1501) < 1e-3)
        controller._checkInvariants(geometry: rows)
    }

    @Test func aRankThatTimeMakesStaleIsRankedAgainThoughTheForecastHolds() throws {
        // Given a drag at a steady 100 pt/s from offset 0 and a plan of rows 3 to 12
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<1_300]), target: target)
        // Then row 5 (500..<600) arrives when the offset passes 200 (t = 2 s) and leaves at 600
        // (t = 6 s): worth a slot (shown 4 s ≥ L = 0.3 s), prefetch by arrival; on screen from
        // t = 2 it is visible. With E = L = 0.3 s it stays worth a slot until 6 − 0.3 − 0.3 = 5.4 s.
        var t = 0.0
        while t <= 5.35 {
            controller.update(frame(t, at: 100 * t, velocity: 100, .dragging), geometry: rows)
            if t == 0 { #expect(controller.requestedPriority(of: 5) == FetchPriority(level: .prefetch, order: 2)) }
            if abs(t - 3) < 1e-9 { #expect(controller.requestedPriority(of: 5)?.level == .visible) }
            t = ((t + 0.05) * 100).rounded() / 100
        }
        #expect(controller.requestedPriority(of: 5)?.level == .visible)
        // When time passes 5.4 s with the same motion (no new forecast)
        controller.update(frame(5.45, at: 545, velocity: 100, .dragging), geometry: rows)
        // Then a load started now would show row 5 for 6 − 5.75 = 0.25 s < L: it drops to
        // speculative (latest departure first), and the update says so.
        #expect(controller.requestedPriority(of: 5) == FetchPriority(level: .speculative, order: -6))
        #expect(target.lastUpdate.requests.contains { $0.item == 5 && $0.priority.level == .speculative })
        controller._checkInvariants(geometry: rows)
    }

    @Test func aFlingsRestingCellsLoadBeforeTheCellsItFliesPast() async throws {
        // Given the same fling on a fetcher that runs two loads at once
        let (fetcher, loader) = try makeFetcher(cap: 2)
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<3_300]), target: fetcher.prefetchTarget { $0 })
        controller.update(frame(0, at: 0, velocity: 6_006, .decelerating(restingOffset: 3_000, rate: 0.998)), geometry: rows)
        // Then the first loads are the first cells that will stay, in order of arrival, not the cells passing now
        await loader.waitForCalls(2)
        #expect(Set(loader.calledIDs) == [25, 26])
        for (finished, next) in [(25, 27), (26, 28), (27, 29)] {
            loader.succeed(finished, with: finished)
            await loader.waitForCalls(loader.callCount + 1)
            #expect(loader.calledIDs.last == next)
        }
        fetcher.shutdown()
    }

    @Test func anAnimatedScrollsDestinationLoadsFirst() async throws {
        // Given a view at rest at the top, animating to offset 5,000 in 0.3 s (ease-out), with uikitLike:
        // the destination's viewport (rows 50–52) and 0.75 screen past it (rows 53–55).
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.uikitLike, target: target)
        controller.update(frame(0, at: 0), geometry: rows)
        controller.update(frame(0, at: 0, .programmatic(targetOffset: 5_000, duration: .milliseconds(300))), geometry: rows)

        // Then rows 50–52 come first, at visible priority: the destination is what the user asked to
        // see (issue #35). Ordered by arrival: row 50 arrives when the offset passes 4,700,
        // 0.3·(1 − ∛(1 − 4700/5000)) = 0.183 s, and stays. Rows 53–55 are never on screen (the
        // animation stops at 5,000): speculative, nearest first. Rows 0–2 leave within 7 ms, before
        // a load started now could finish: background.
        let requests = target.lastUpdate.requests
        #expect(requests.map(\.item) == [50, 51, 52, 53, 54, 55, 0, 1, 2])
        #expect(requests.prefix(3).map(\.priority.level) == [.visible, .visible, .visible])
        #expect(abs(requests[0].priority.order - 0.1826) < 1e-3)
        #expect(requests.dropFirst(3).prefix(3).allSatisfy { $0.priority.level == .speculative })
        #expect(requests.suffix(3).allSatisfy { $0.priority.level == .background })

        // And on a fetcher with two slots, the first loads are the destination's
        let (fetcher, loader) = try makeFetcher(cap: 2)
        controller.target = fetcher.prefetchTarget { $0 }
        // (0.01 s into the animation the offset is 5000·(1 − (1 − 0.01/0.3)³) = 483.5)
        controller.update(frame(0.01, at: 483.5, .programmatic(targetOffset: 5_000, duration: .milliseconds(290))), geometry: rows)
        await loader.waitForCalls(2)
        #expect(Set(loader.calledIDs) == [50, 51])
        fetcher.shutdown()
    }

    @Test func aReversalWithdrawsWhatIsNowBehind() async throws {
        // Given a drag down at 600 pt/s with uikitLike: rows 10–12 on screen, rows 13–15 ahead
        let (fetcher, loader) = try makeFetcher(cap: 6)
        let target = fetcher.prefetchTarget { (row: Int) in row }
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.uikitLike, target: target)
        let first = controller.update(frame(0, at: 1_000, velocity: 600, .dragging), geometry: rows)
        // Row 10 leaves in 1/6 s, before a 0.3 s load could finish (background); rows 11–12 leave at
        // 1/3 s and 1/2 s, showing data loaded now for less than 0.3 s (speculative, latest
        // departure first); rows 13–15 arrive at 0, 1/6 and 1/3 s and stay 2/3 s (prefetch).
        #expect(first.requests.map(\.item) == [13, 14, 15, 12, 11, 10])
        #expect(first.requests.map(\.priority.level) == [.prefetch, .prefetch, .prefetch, .speculative, .speculative, .background])
        await loader.waitForCalls(6)

        // When the finger reverses: the viewport moves up 60 pt and the window flips above it
        let second = controller.update(frame(0.1, at: 940, velocity: -600, .dragging), geometry: rows)
        // Then rows 13–15 are withdrawn, their loads cancelled, and rows 7–9 requested
        #expect(second.withdrawals == [13, 14, 15])
        #expect(Set(second.requests.map(\.item)).isSuperset(of: [7, 8, 9]))
        await loader.waitForCancellations(3)
        #expect(Set(loader.cancelledIDs) == [13, 14, 15])
        controller._checkInvariants(geometry: rows)
        fetcher.shutdown()
    }

    @Test func aWindowThatShrinksForAFrameKeepsWhatItLeftAhead() throws {
        // Given a view at rest at the top holding rows 3–8 past the viewport (rows 0–2), with no
        // measured latency: a typical load of 0.3 s, so the grace is 2 × 0.3 = 0.6 s
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<900]), target: target)
        controller.update(frame(0, at: 0), geometry: rows)
        #expect(Set(target.lastUpdate.requestedItems) == Set(0...8))

        // When the plan shrinks to rows 3–5 for one frame (a finger touched down)
        controller.policy = FixedPolicy(regions: [300..<600])
        let shrunk = controller.update(frame(0.016, at: 0), geometry: rows)
        // Then rows 6–8, ahead of the viewport, are not withdrawn but drop to background, after
        // everything else
        #expect(shrunk.withdrawals.isEmpty)
        #expect(shrunk.requests.map(\.item) == [6, 7, 8])
        #expect(shrunk.requests.allSatisfy { $0.priority.level == .background })
        #expect(controller.requestedPriority(of: 7)?.level == .background)
        #expect(controller.requestedCount == 9)
        controller._checkInvariants(geometry: rows)

        // When the plan grows back on the next frame
        controller.policy = FixedPolicy(regions: [300..<900])
        let back = controller.update(frame(0.033, at: 0), geometry: rows)
        // Then they are requested again at their rank (never reached at rest: speculative), and
        // nothing was withdrawn: a load running for them goes on
        #expect(back.withdrawals.isEmpty)
        #expect(back.requests.map(\.item) == [6, 7, 8])
        #expect(back.requests.allSatisfy { $0.priority.level == .speculative })
        controller._checkInvariants(geometry: rows)

        // When it shrinks again at 0.05 s and stays so
        controller.policy = FixedPolicy(regions: [300..<600])
        controller.update(frame(0.05, at: 0), geometry: rows)
        // Then rows 6–8 are still held 0.59 s later, and withdrawn once the 0.6 s have passed
        #expect(controller.update(frame(0.64, at: 0), geometry: rows).withdrawals.isEmpty)
        controller._checkInvariants(geometry: rows)
        #expect(controller.update(frame(0.66, at: 0), geometry: rows).withdrawals == [6, 7, 8])
        #expect(controller.requestedCount == 6)
        controller._checkInvariants(geometry: rows)
    }

    @Test func whatTheViewportPassedOrAJumpLeftIsWithdrawnAtOnce() throws {
        // Given a drag down at 600 pt/s at offset 1,000 holding rows 10–15
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [1_300..<1_600]), target: target)
        controller.update(frame(0, at: 1_000, velocity: 600, .dragging), geometry: rows)
        // When the viewport moves on to 1,150: row 10 (1,000..<1,100) is behind it
        let passed = controller.update(frame(0.25, at: 1_150, velocity: 600, .dragging), geometry: rows)
        // Then row 10 is withdrawn at once
        #expect(passed.withdrawals == [10])

        // When the view then jumps to the top, with the plan past it: rows 11–15 lie ahead of the
        // new viewport in the direction of travel, but a jump is no flap
        controller.policy = FixedPolicy(regions: [300..<600])
        let jumped = controller.update(frame(0.3, at: 0), geometry: rows)
        // Then they are withdrawn at once
        #expect(Set(jumped.withdrawals) == Set(11...15))
        #expect(controller.requestedCount == 6)
        controller._checkInvariants(geometry: rows)
    }

    @Test func aNegativeOrInfiniteWithdrawalGraceIsRejectedByName() {
        for grace in [-1, Double.infinity, .nan] {
            #expect {
                _ = try PrefetchController<Int>.Configuration(withdrawalGrace: grace)
            } throws: { error in
                guard let error = error as? PrefetchError else { return false }
                return error.code == .invalidConfiguration && error.message.contains("withdrawalGrace is \(grace)")
            }
        }
        #expect((try? PrefetchController<Int>.Configuration(withdrawalGrace: 0)) != nil)
    }

    @Test func aCellThatSettlesOnScreenJumpsAheadOfEverythingOffScreen() async throws {
        // Given a drag at 500 pt/s from the top, one load at a time, the plan rows 0–9
        let (fetcher, loader) = try makeFetcher(cap: 1)
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<1_000]), target: fetcher.prefetchTarget { $0 })
        let first = controller.update(frame(0, at: 0, velocity: 500, .dragging), geometry: rows)
        // Row 0 leaves at 0.2 s, before a 0.3 s load could finish (background); rows 1 and 2 leave
        // at 0.4 s and 0.6 s, too soon to show data loaded now for 0.3 s (speculative, latest
        // departure first; row 2 is on the boundary, 0.6 − 0.3 < 0.3 in floating point); rows 3–9
        // arrive at 0.2·(k − 3) s and stay 0.8 s (prefetch, by arrival).
        #expect(first.requests.map(\.item) == [3, 4, 5, 6, 7, 8, 9, 2, 1, 0])
        #expect(first.requests.last?.priority.level == .background)
        await loader.waitForCalls(1)
        #expect(loader.calledIDs == [3])

        // When the finger stops 50 pt further on: rows 0–3 on screen, at rest
        let second = controller.update(frame(0.1, at: 50), geometry: rows)
        // Then rows 0–3 become visible-level work, in the order they entered the plan, and the
        // rest, no longer on the way, drops to speculative, nearest first
        #expect(second.requests.map(\.item) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(second.requests.prefix(4).allSatisfy { $0.priority.level == .visible })
        #expect(second.requests.dropFirst(4).allSatisfy { $0.priority.level == .speculative })
        // And the loads run: row 3 (already running), then the other visible rows (equal
        // priorities start in the order the fetcher first heard of them: 2, 1, 0), then the rest
        for row in [3, 2, 1, 0, 4, 5] {
            #expect(loader.calledIDs.last == row)
            loader.succeed(row, with: row)
            await loader.waitForCalls(loader.callCount + 1)
        }
        fetcher.shutdown()
    }

    @Test func whileTheForecastHoldsOnlyArrivalsAndDeparturesChangeRequests() {
        // Given the fling of the first test, followed frame by frame at 60 Hz
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<3_300]), target: target)
        let phase = MotionPhase.decelerating(restingOffset: 3_000, rate: 0.998)
        controller.update(frame(0, at: 0, velocity: 6_006, phase), geometry: rows)
        var level = target.requested.mapValues(\.level)
        for index in 1...72 {
            let t = Double(index) / 60
            let offset = 3_000 * (1 - exp(-2.002 * t))
            let update = controller.update(frame(t, at: offset, velocity: 6_006 * exp(-2.002 * t), phase), geometry: rows)
            // Then a held item is asked for again only when its level changes (it arrives and stays)
            for request in update.requests {
                #expect(level[request.item] != request.priority.level, "frame \(index): \(request.item) re-requested at the same level")
            }
            #expect(update.withdrawals.allSatisfy { rows.extent(of: $0)!.upperBound <= offset })
            level = target.requested.mapValues(\.level)
            controller._checkInvariants(geometry: rows)
        }
        // And a resting cell that came on screen (row 30, at 1.150 s) is visible work now
        #expect(target.requested[30]?.level == .visible)
        #expect(target.requested[31]?.level == .prefetch)
    }

    // MARK: Bad input

    @Test func unusableFramesPlanNothingAndWithdrawEverything() {
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.textureLike, target: target)
        let bad: [ScrollState] = [
            ScrollState(seconds: 1, viewport: -Double.infinity..<0, contentLength: 10_000),
            ScrollState(seconds: 1, viewport: 0..<(.infinity), contentLength: 10_000),
            ScrollState(seconds: 1, viewport: 500..<500, contentLength: 10_000),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: 0),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: -5),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: .nan),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: 10_000, velocity: .nan, phase: .dragging),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: 10_000, velocity: 10, phase: .decelerating(restingOffset: 900, rate: 1.5)),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: 10_000, velocity: 10, phase: .decelerating(restingOffset: .infinity, rate: 0.998)),
            ScrollState(seconds: 1, viewport: 0..<300, contentLength: 10_000, phase: .programmatic(targetOffset: 900, duration: .seconds(-1))),
        ]
        for state in bad {
            // Given a controller holding a plan
            controller.update(ScrollState(seconds: 1, viewport: 0..<300, contentLength: 10_000), geometry: rows)
            #expect(!target.requested.isEmpty)
            // When a frame is unusable, then everything is withdrawn and nothing requested
            let update = controller.update(state, geometry: rows)
            #expect(update.requests.isEmpty)
            #expect(target.requested.isEmpty, "\(state)")
            #expect(controller.requestedCount == 0)
        }
    }

    @Test func validationNamesTheValueAndTheRule() {
        func message(_ state: ScrollState) -> String? {
            do { try state.validate(); return nil } catch { return (error as? PrefetchError)?.message }
        }
        #expect(message(ScrollState(seconds: 0, viewport: 0..<300, contentLength: 10)) == nil)
        #expect(message(ScrollState(seconds: .nan, viewport: 0..<300, contentLength: 10)) == "ScrollState time nan must be finite")
        #expect(message(ScrollState(seconds: 0, viewport: 0..<300, contentLength: -1))
            == "ScrollState contentLength -1.0 must be a finite number, at least 0")
        #expect(message(ScrollState(seconds: 0, viewport: 0..<300, contentLength: 10, velocity: .infinity)) == "ScrollState velocity inf must be finite")
        #expect(message(ScrollState(seconds: 0, viewport: 0..<300, contentLength: 10, phase: .decelerating(restingOffset: 0, rate: 0)))
            == "MotionPhase.decelerating rate 0.0 must lie strictly between 0 and 1")
        #expect(message(ScrollState(seconds: 0, viewport: 0..<300, contentLength: 10, phase: .programmatic(targetOffset: 0, duration: .seconds(-1))))
            == "MotionPhase.programmatic duration -1.0 seconds must not be negative")
    }

    @Test func itemsTheGeometryNoLongerHasAreWithdrawnAtTheNextLayout() {
        // Given a plan over 100 rows
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.textureLike, target: target)
        controller.update(frame(0, at: 9_400), geometry: rows)
        #expect(target.requested.keys.contains(99))
        // When the content shrinks to 95 rows under the same viewport (clamped by the surface)
        controller.invalidateLayout()
        let shorter = Rows(count: 95, height: 100)
        controller.update(ScrollState(seconds: 0.1, viewport: 9_200..<9_500, contentLength: 9_500), geometry: shorter)
        // Then rows 95–99 are withdrawn and nothing past the content is held
        #expect(target.requested.keys.allSatisfy { $0 < 95 })
        #expect(Set(target.lastUpdate.withdrawals).isSuperset(of: [95, 96, 97, 98, 99]))
        controller._checkInvariants(geometry: shorter)
    }

    // MARK: Data changes

    @Test func aBatchUpdateMovesRequestsAndRemovesDeletedItemsUnderTheirOldNames() {
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<600]), target: target)
        controller.update(frame(0, at: 0), geometry: rows)
        #expect(Set(target.requested.keys) == Set(0...5))
        // When row 1 is deleted: rows after it move up by one
        controller.moveItems { $0 == 1 ? nil : ($0 > 1 ? $0 - 1 : $0) }
        let update = controller.update(frame(0.1, at: 0), geometry: Rows(count: 99, height: 100))
        // Then the deleted row is removed under its old name and the others renamed; row 2 (was 3)
        // is on screen now, rows 3 and 4 are nearer, row 5 is new
        #expect(update.removed == [1])
        #expect(update.moved == [2, 3, 4, 5].map { PrefetchMove(from: $0, to: $0 - 1) })
        #expect(update.requests.map(\.item) == [2, 3, 4, 5])
        #expect(update.requests.first?.priority.level == .visible)
        #expect(Set(target.requested.keys) == Set(0...5))
    }

    @Test func aReloadRemovesEverythingAndRequestsThePlanAfresh() {
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<600]), target: target)
        controller.update(frame(0, at: 0), geometry: rows)
        controller.invalidateItems()
        let update = controller.update(frame(0.1, at: 0), geometry: rows)
        #expect(update.removed == Array(0...5))
        #expect(Set(update.requests.map(\.item)) == Set(0...5))
    }

    @Test func anotherTargetTakesOverAndTheOldOneIsReleased() {
        let old = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<600]), target: old)
        controller.update(frame(0, at: 0), geometry: rows)
        let new = RecordingTarget<Int>()
        controller.target = new
        #expect(old.requested.isEmpty)
        #expect(new.updates.isEmpty)
        controller.update(frame(0.1, at: 0), geometry: rows)
        #expect(Set(new.requested.keys) == Set(0...5))
        controller.target = nil
        #expect(new.requested.isEmpty)
    }

    @Test func priorityForAnItemOutsideThePlanComesFromTheForecast() {
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.none)
        // Before any frame: visible
        #expect(controller.priority(for: 7) == .visible)
        // Without a target nothing is held, but the forecast still ranks: a drag at 500 pt/s,
        // row 7 arrives at (700 − 300)/500 = 0.8 s and stays 0.8 s
        controller.update(frame(0, at: 0, velocity: 500, .dragging), geometry: rows)
        #expect(controller.requestedCount == 0)
        #expect(controller.priority(for: 7, extent: 700..<800) == FetchPriority(level: .prefetch, order: 0.8))
        // Row 0 leaves at 0.2 s, before a 0.3 s load could finish; row 1 at 0.4 s, too soon
        // for data loaded now to show 0.3 s
        #expect(controller.priority(for: 0, extent: 0..<100).level == .background)
        #expect(controller.priority(for: 1, extent: 100..<200) == FetchPriority(level: .speculative, order: -0.4))
    }

    // MARK: The fetcher's target

    @Test func theFetcherTargetKeepsTheIdItRequestedAndSharedIdsStayLoaded() async throws {
        let (fetcher, loader) = try makeFetcher(cap: 6)
        var ids = [10: 100, 11: 101, 12: 100]  // rows 10 and 12 show the same data
        let target = FetcherPrefetchTarget(fetcher: fetcher) { (row: Int) in ids[row] }
        target.updatePrefetching(PrefetchUpdate(requests: [10, 11, 12, 13].map { PrefetchRequest(item: $0, priority: .prefetch) }))
        // Row 13 has no id yet: skipped
        await loader.waitForCalls(2)
        #expect(Set(loader.calledIDs) == [100, 101])
        #expect(target.requestedCount == 3)
        // When row 10 is withdrawn, id 100 stays loading for row 12
        target.updatePrefetching(PrefetchUpdate(withdrawals: [10]))
        #expect(loader.cancelledIDs.isEmpty)
        // When row 11 is deleted and another model takes its place, its old id is cancelled
        ids[11] = 555
        target.updatePrefetching(PrefetchUpdate(removed: [11]))
        await loader.waitForCancellations(1)
        #expect(loader.cancelledIDs == [101])
        // A rename keeps the id: row 12 becomes row 2, then row 2 leaves
        target.updatePrefetching(PrefetchUpdate(moved: [PrefetchMove(from: 12, to: 2)]))
        ids = [:]
        target.updatePrefetching(PrefetchUpdate(withdrawals: [2]))
        await loader.waitForCancellations(2)
        #expect(loader.cancelledIDs == [101, 100])
        #expect(target.requestedCount == 0)
        fetcher.shutdown()
    }
}

/// The forecast's inverse times against its own curve, for every phase.
@Suite("MotionForecast")
struct MotionForecastTests {
    @Test(arguments: [
        MotionPhase.dragging, .decelerating(restingOffset: 4_000, rate: 0.998), .decelerating(restingOffset: -3_000, rate: 0.99),
        .programmatic(targetOffset: 9_000, duration: .milliseconds(300)), .programmatic(targetOffset: 0, duration: .milliseconds(500)),
    ])
    func timeToReachAnOffsetInvertsTheCurve(phase: MotionPhase) {
        let state = ScrollState(seconds: 2, viewport: 1_000..<1_400, contentLength: 20_000, velocity: -900, phase: phase)
        let forecast = MotionForecast(state)
        let end = forecast.final
        for step in 1..<50 {
            let y = 1_000 + (end - 1_000) * Double(step) / 50
            let t = forecast.time(reaching: y)
            #expect(t.isFinite && t >= 2)
            #expect(abs(forecast.offset(at: t) - y) < 1e-6 * max(1, abs(y)), "\(phase): reaching \(y) at \(t)")
        }
        // Beyond where the motion stops, and behind it: never
        let past = end + (end > 1_000 ? 10 : -10)
        #expect(forecast.time(reaching: past) == .infinity)
        #expect(forecast.time(reaching: 1_000 - (end - 1_000)) == .infinity)
    }

    @Test func aForecastAgreesWithTheNextFramesOfTheSameMotionOnly() {
        let fling = MotionPhase.decelerating(restingOffset: 3_000, rate: 0.998)
        let first = MotionForecast(ScrollState(seconds: 0, viewport: 0..<300, contentLength: 10_000, velocity: 6_006, phase: fling))
        let offset = first.offset(at: 0.1)
        let next = MotionForecast(ScrollState(seconds: 0.1, viewport: offset..<(offset + 300), contentLength: 10_000, velocity: 4_900, phase: fling))
        #expect(first.agrees(with: next))
        let refling = MotionPhase.decelerating(restingOffset: 3_400, rate: 0.998)
        #expect(!first.agrees(with: MotionForecast(ScrollState(seconds: 0.1, viewport: offset..<(offset + 300), contentLength: 10_000, phase: refling))))
        #expect(!first.agrees(with: MotionForecast(ScrollState(seconds: 0.1, viewport: offset..<(offset + 300), contentLength: 10_000))))
    }
}
