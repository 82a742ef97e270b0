import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// UIKit's documented callback order, replayed through the portable half of PrefetchUIKit:
// - every scroll step changes `contentOffset` and the origin of `bounds`, so a prefetcher that
//   observes both (key-value observing) hears each step twice, microseconds apart
//   (UIScrollView.contentOffset, UIView.bounds);
// - during a drag `isDragging` is true; when the finger lifts the delegate gets
//   `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)` (velocity in points per
//   millisecond, the target where the deceleration will stop) while `isDragging` is still true,
//   then the steps of the deceleration come with `isDecelerating` true;
// - `setContentOffset(_:animated: true)` moves the offset over several steps with neither flag
//   set; `animated: false` moves it once;
// - a batch update or `apply(_:)` changes `contentSize` between two steps.
// What the controller sees is `adapter.lastState`, asserted frame by frame.

@MainActor
@Suite("UIKit callback order")
struct UIKitCallbackOrderTests {
    @Test func aDragHeardByTheOffsetAndTheBoundsObserversKeepsItsSpeedOnEveryFrame() {
        // A 1,200 pt/s drag at 60 Hz: 20 pt a step, each step heard twice
        let rig = UIKitRig()
        rig.step(to: 0, dragging: true)
        for step in 1...60 {
            rig.step(to: Double(step) * 20, dragging: true)
            #expect(within5Percent(rig.state?.velocity, 1_200), "frame \(step): \(String(describing: rig.state?.velocity))")
            #expect(rig.state?.phase == .dragging)
        }
        #expect(rig.problems.isEmpty)
    }

    @Test func aContentSizeChangeMidDragKeepsTheSpeedAndTheNewLength() {
        // A page of rows arrives while the finger drags at 1,200 pt/s
        let rig = UIKitRig()
        for step in 0...10 { rig.step(to: Double(step) * 20, dragging: true) }
        rig.clock.now += 0.003
        rig.contentSizeChanged(rows: 2_000)
        // Heard with the offset unchanged, the new length waits for the offset that may keep the
        // user's place (an insert above moves it at once); the next step plans both
        #expect(rig.state?.contentLength == 100_000)
        rig.step(to: 220, after: 1.0 / 60 - 0.003, dragging: true)
        #expect(rig.state?.contentLength == 200_000)
        #expect(within5Percent(rig.state?.velocity, 1_200))
        for step in 12...20 {
            rig.step(to: Double(step) * 20, dragging: true)
            #expect(within5Percent(rig.state?.velocity, 1_200), "frame \(step)")
        }
    }

    @Test func aLiftWithTheDelegatesTargetCoastsExactlyThere() {
        // willEndDragging: 2 pt/ms, UIKit's target 3,000 (a snapping app may have moved it there)
        let rig = UIKitRig()
        for step in 0...10 { rig.step(to: Double(step) * 20, dragging: true) }
        var target = CGPoint(x: 0, y: 3_000)
        rig.prefetcher.willEndDragging(velocityPerMillisecond: 2, target: Double(target.y))
        #expect(rig.state?.phase == .decelerating(restingOffset: 3_000, rate: 0.998))
        // The deceleration's steps (isDecelerating) follow UIKit's curve to the target
        let fling = uikitFling(from: 200, velocity: 2_000)
        target.y = fling.rest
        for step in 1...120 {
            rig.step(to: fling.at(Double(step) / 60), decelerating: true)
            #expect(rig.state?.phase == .decelerating(restingOffset: 3_000, rate: 0.998), "frame \(step)")
        }
        // UIKit's last step lands on the target while still decelerating; then it sends nothing
        rig.step(to: 3_000, after: 2, decelerating: true)
        #expect(rig.state?.phase == .decelerating(restingOffset: 3_000, rate: 0.998))
        #expect(rig.state?.viewport.lowerBound == 3_000)
        // The next touch: at rest under the finger
        rig.step(to: 3_000, after: 1, dragging: true)
        #expect(rig.state?.phase == .dragging)
        #expect(rig.state?.velocity == 0)
    }

    @Test func aFlingThatCoastsPastItsTargetRestsWhereItIsAndKeepsItsHeading() {
        // willEndDragging gives UIKit's target 3,000; the deceleration's last steps, rounded to
        // pixels, land a third of a point past it, still decelerating, before the view rests
        let rig = UIKitRig()
        for step in 0...10 { rig.step(to: Double(step) * 20, dragging: true) }
        rig.prefetcher.willEndDragging(velocityPerMillisecond: 2, target: 3_000)
        let fling = uikitFling(from: 200, velocity: 2_000)
        for step in 1...120 { rig.step(to: fling.at(Double(step) / 60), decelerating: true) }
        let past = 3_000 + 1.0 / 3
        rig.step(to: past, decelerating: true)
        let updatesBefore = rig.target.updates.count
        for _ in 1...5 { rig.step(to: past, after: 1.0 / 60, decelerating: true) }
        // Then the coast rests where the view is: not at a point behind it, which would plan the
        // way back (three viewports above the screen) for the fling's last frames
        #expect(rig.state?.phase == .decelerating(restingOffset: past, rate: 0.998))
        rig.step(to: past, after: 1.0 / 60)
        #expect(rig.state?.phase == .idle)
        // and rest keeps what the coast's last frames asked for: nothing is withdrawn
        let last = rig.target.updates.dropFirst(updatesBefore)
        #expect(last.flatMap(\.withdrawals).isEmpty, "withdrawn \(last.flatMap(\.withdrawals).map { $0[1] }.sorted())")
        #expect(rig.problems.isEmpty)
    }

    @Test func aLiftThatNobodyReportsIsProjectedAtTheScrollViewsRate() {
        // No delegate forwarding and no pan gesture: the first decelerating step, on the fast rate
        let rig = UIKitRig()
        rig.surface.reading?.decelerationRate = 0.99
        for step in 0...10 { rig.step(to: Double(step) * 40, dragging: true) }   // 2,400 pt/s
        let fling = uikitFling(from: 400, velocity: 2_400, rate: 0.99)
        rig.step(to: fling.at(1.0 / 60), decelerating: true)
        guard case let .decelerating(rest, rate)? = rig.state?.phase else {
            Issue.record("not coasting: \(String(describing: rig.state?.phase))")
            return
        }
        #expect(rate == 0.99)
        // Projected from the measured speed: within 2 % of the way UIKit goes
        #expect(abs(rest - fling.rest) <= 0.02 * (fling.rest - 400), "rest \(rest), UIKit's \(fling.rest)")
    }

    @Test func thePanGesturesLiftCoastsAndTheDelegateWinsWhicheverComesFirst() {
        let rig = UIKitRig()
        for step in 0...5 { rig.step(to: Double(step) * 20, dragging: true) }
        // Pan ends first (1,500 pt/s), then the delegate with its target
        rig.prefetcher.dragEnded(fingerVelocity: CGPoint(x: 0, y: -1_500))
        let projected = uikitFling(from: 100, velocity: 1_500).rest
        guard case let .decelerating(rest, _)? = rig.state?.phase else { Issue.record("not coasting"); return }
        #expect(abs(rest - projected) < 1e-6)
        rig.prefetcher.willEndDragging(velocityPerMillisecond: 1.5, target: 700)
        #expect(rig.state?.phase == .decelerating(restingOffset: 700, rate: 0.998))
        // Next drag: the delegate first, then the pan, which changes nothing
        rig.prefetcher.dragBegan()
        for step in 0...5 { rig.step(to: 700 + Double(step) * 20, dragging: true) }
        rig.prefetcher.willEndDragging(velocityPerMillisecond: 1, target: 1_200)
        rig.prefetcher.dragEnded(fingerVelocity: CGPoint(x: 0, y: -9_000))
        #expect(rig.state?.phase == .decelerating(restingOffset: 1_200, rate: 0.998))
    }

    @Test func aLiftWithoutSpeedRestsAtOnce() {
        // The finger stops, then lifts: UIKit sends no more steps, so the lift itself must say "idle"
        let rig = UIKitRig()
        for step in 0...5 { rig.step(to: Double(step) * 20, dragging: true) }
        rig.clock.now += 0.2
        rig.prefetcher.dragEnded(fingerVelocity: .zero)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.velocity == 0)
    }

    @Test func rubberBandingPastTheTopWithdrawsNothing() {
        // A drag from rest at the top pulls the content down (negative offsets), then it bounces back
        let rig = UIKitRig()
        rig.step(to: 0)
        let requested = Set(rig.target.requested.keys)
        #expect(!requested.isEmpty)
        for step in 1...10 { rig.step(to: -8 * Double(step), dragging: true) }
        rig.prefetcher.dragEnded(fingerVelocity: .zero)
        for step in 1...10 { rig.step(to: -80 + 8 * Double(step)) }
        #expect(rig.target.updates.flatMap(\.withdrawals).isEmpty, "\(rig.target.updates.flatMap(\.withdrawals))")
        #expect(requested.isSubset(of: Set(rig.target.requested.keys)))
        #expect(rig.state?.viewport.lowerBound == 0)
    }

    @Test func aFlingThatOutlivesItsContentRestsInTheRangeTheContentHasNow() {
        // A fling toward the end of 1,000 rows; mid-fling a rotation shrinks the content to 300 rows
        let rig = UIKitRig()
        rig.step(to: 20_000, dragging: true)
        rig.step(to: 20_100, dragging: true)
        rig.prefetcher.dragEnded(fingerVelocity: CGPoint(x: 0, y: -20_000))
        rig.step(to: 20_400, decelerating: true)
        rig.contentSizeChanged(rows: 300)
        rig.surface.reading?.offset = 29_400
        rig.step(to: 29_400, decelerating: true)
        guard case let .decelerating(resting, _)? = rig.state?.phase else { Issue.record("\(String(describing: rig.state?.phase))"); return }
        #expect(resting <= 30_000 - 600, "rests at \(resting), past the content's end")
    }

    @Test func aVoiceOverPageScrollPlansForItsDestinationAndAnnouncesWhereItLanded() {
        // 100,000 pt of content in a 600 pt viewport, 40 pt kept in view: pages of 560 pt
        let rig = UIKitRig()
        rig.prefetcher.pageOverlap = 40
        rig.step(to: 560)
        #expect(rig.prefetcher.scrollPage(.forward))
        #expect(rig.surface.animatedTo == [1_120])
        #expect(rig.surface.announced.isEmpty, "UIKit expects the announcement after the scroll")
        rig.step(to: 800)
        guard case let .programmatic(target, _)? = rig.state?.phase else { Issue.record("\(String(describing: rig.state?.phase))"); return }
        #expect(target == 1_120)
        #expect(rig.surface.announced.isEmpty)
        rig.step(to: 1_120)
        // 99,400 pt of range over 560 pt pages: 179 pages, and 1,120 starts the third
        #expect(rig.surface.announced == ["Page 3 of 179"])
        rig.step(to: 1_120, after: 1)
        #expect(rig.surface.announced.count == 1)
        // A drag that takes over: no announcement
        #expect(rig.prefetcher.scrollPage(.backward))
        rig.step(to: 1_000, dragging: true)
        rig.step(to: 560, after: 1)
        #expect(rig.surface.announced.count == 1)
        // At the start there is nothing to scroll: VoiceOver hears the same position again (a border)
        rig.step(to: 0, after: 1)
        #expect(!rig.prefetcher.scrollPage(.backward))
        #expect(rig.surface.animatedTo.count == 2)
        #expect(rig.surface.announced.last == "Page 1 of 179")
        rig.prefetcher.pageStatus = { "Seite \($0) von \($1)" }
        #expect(rig.prefetcher.scrollPage(.forward))
        rig.step(to: 560)
        #expect(rig.surface.announced.last == "Seite 2 von 179")
    }

    @Test func batchUpdatesBetweenFramesReplanOnTheNextFrame() {
        // Two pages arrive between two frames: content size changes twice, then the app calls dataChanged
        let rig = UIKitRig(surface: ScriptedSurface(rows: 10))
        rig.step(to: 0)
        let before = Set(rig.target.requested.keys)
        #expect(before.allSatisfy { $0[1] < 10 })
        rig.contentSizeChanged(rows: 20)
        rig.contentSizeChanged(rows: 30)
        rig.prefetcher.dataChanged()
        #expect(rig.state?.contentLength == 3_000)
        rig.step(to: 400)
        #expect(rig.target.requested.keys.contains { $0[1] >= 10 }, "rows of the new pages are planned")
        #expect(rig.problems.isEmpty)
    }

    @Test func aStaleIndexPathIsReportedAndAnsweredAsVisible() {
        let rig = UIKitRig(surface: ScriptedSurface(rows: 10))
        rig.step(to: 0)
        let lookup = ItemLookup<Int>(identifiers: [7, 8, 9])
        let ids = ScrollViewPrefetcher<Int>(surface: rig.surface, lookup: lookup,
                                            adapter: ScrollAdapter(controller: PrefetchController<Int>()),
                                            axis: .vertical, now: { 0 })
        var problems: [String] = []
        ids.onProblem = { problems.append($0.message) }
        #expect(ids.priority(at: IndexPath(indexes: [0, 5])) == .visible)
        #expect(problems == ["index path [0, 5] names no item: it is stale after an update, or out of range"])
    }

    @Test func aScrollViewThatIsNotOnScreenSendsNothing() {
        let rig = UIKitRig()
        rig.surface.reading = nil
        rig.step(to: 100)
        #expect(rig.state == nil)
        #expect(!rig.prefetcher.scrollPage(.forward))
        #expect(rig.problems == ["ScrollViewPrefetcher.scrollPage: the scroll view is gone or not on screen"])
    }

    @Test func attachingTakesOverDataPrefetchingAndDetachStopsTheObserversAndWithdrawsEveryRequest() {
        let rig = UIKitRig()
        #expect(rig.surface.dataPrefetchingStopped)
        #expect(rig.surface.events != nil)
        rig.step(to: 0)
        #expect(!rig.target.requested.isEmpty)
        rig.prefetcher.detach()
        #expect(rig.surface.unregistered == 1)
        #expect(rig.surface.events == nil)
        #expect(rig.target.requested.isEmpty)
        rig.prefetcher.surfaceChanged()
        #expect(rig.target.requested.isEmpty, "a detached prefetcher plans nothing")
        rig.prefetcher.detach()
        #expect(rig.surface.unregistered == 1, "observers are unregistered once")
    }

    @Test func aPrefetcherDroppedWithoutDetachLeavesNoPrefetchInTheFetcher() async throws {
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4),
                                                 clock: ManualClock(), loader: loader)
        let surface = ScriptedSurface(rows: 100)
        do {
            let prefetcher = ScrollViewPrefetcher<IndexPath>(
                surface: surface, lookup: .indexPaths,
                adapter: ScrollAdapter(fetcher: fetcher) { (path: IndexPath) in path[1] },
                axis: .vertical, now: { 1 })
            surface.events?.changed(false)
            await loader.waitForCalls(4)
            #expect(prefetcher.controller.requestedCount > 4, "the viewport and the rows ahead are requested")
        }
        // The view controller went away without calling detach(): every running prefetch is cancelled
        // at once (the fetcher counts a cancellation when it cancels the load's task)
        let cancelled = fetcher.statistics.loadsCancelled
        #expect(cancelled == 4)
        if cancelled == 4 {   // (otherwise the loads run on, and waiting for their cancellation would hang)
            await loader.waitForCancellations(4)
            #expect(Set(loader.cancelledIDs).count == 4)
        }
        fetcher.shutdown()
    }
}
