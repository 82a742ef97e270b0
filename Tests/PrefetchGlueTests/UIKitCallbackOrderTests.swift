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

    @Test func anUnannouncedAnimationHoldsItsFirstFramesPlanAndAJumpIsPlannedWhereItLands() {
        let rig = UIKitRig()
        rig.step(to: 0)
        // setContentOffset(_:animated: true), untold: 1,500 pt over 0.3 s, neither dragging nor decelerating
        rig.step(to: 1_500 * (1 - pow(1 - 1.0 / 18, 2)))
        // Its first frame is planned as a jump to where it is (one screen, at rest)
        #expect(rig.state?.phase == .idle)
        let firstPlan = rig.state
        let updates = rig.target.updates.count
        for step in 2...18 {
            rig.step(to: 1_500 * (1 - pow(1 - Double(step) / 18, 2)))
            // The frames a display frame apart fly past: the plan is held, nothing is requested
            #expect(rig.state == firstPlan, "frame \(step)")
        }
        #expect(rig.target.updates.count == updates, "no screen the animation flies past is requested")
        // A cell on screen while the plan is held asks at visible priority
        #expect(rig.prefetcher.priority(at: [0, 16]) == .visible)
        // UIKit sends nothing after the last step: 0.1 s later the next question ends the animation
        rig.clock.now += 0.15
        _ = rig.prefetcher.priority(at: [0, 15])
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 1_500)
        // setContentOffset(_:animated: false) to 80,000, one second later: one step, a jump
        rig.clock.now += 1
        rig.step(to: 80_000)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 80_000)
        #expect(rig.state?.velocity == 0)
    }

    @Test func anAnimatedScrollThatNobodyEndsRestsAQuietTimeAfterItsLastFrame() {
        // setContentOffset(CGPoint(x: 0, y: 30_000), animated: true) from 1,000, untold, and the app
        // does not forward scrollViewDidEndScrollingAnimation: 18 steps with neither flag, then nothing
        let rig = UIKitRig()
        rig.step(to: 1_000)
        for step in 1...18 { rig.step(to: 1_000 + 29_000 * (1 - pow(1 - Double(step) / 18, 3))) }
        #expect(rig.state?.viewport.lowerBound != 30_000, "the animation's frames hold its first frame's plan")
        let destination = Set((300..<306).map { IndexPath(indexes: [0, $0]) })
        #expect(!destination.allSatisfy { rig.target.requested[$0]?.level == .visible })
        // One check is pending, at most the quiet time (0.1 s) away
        #expect(rig.timer.pending.count == 1)
        #expect(rig.timer.pending.allSatisfy { $0.delay > .zero && $0.delay <= .milliseconds(200) })
        // When it fires with no frame since: at rest where the animation landed, its rows at visible priority
        rig.clock.now += 0.1
        rig.timer.fire()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.velocity == 0)
        #expect(rig.state?.viewport.lowerBound == 30_000)
        #expect(destination.allSatisfy { rig.target.requested[$0]?.level == .visible },
                "\(rig.target.requested.filter { destination.contains($0.key) })")
        #expect(rig.timer.pending.isEmpty, "a view at rest waits for nothing")
        #expect(rig.problems.isEmpty)
    }

    @Test func anAnnouncedAnimationWhoseEndIsNotForwardedRestsAQuietTimeAfterItsLastFrame() {
        // willScroll(to:animated:) was called, scrollViewDidEndScrollingAnimation is not forwarded,
        // and the last step stops short of the target (an interrupted animation)
        let rig = UIKitRig()
        rig.step(to: 1_000)
        rig.prefetcher.willScroll(to: 20_000, animated: true)
        for step in 1...10 { rig.step(to: 1_000 + 1_500 * Double(step)) }
        guard case .programmatic? = rig.state?.phase else { Issue.record("\(String(describing: rig.state?.phase))"); return }
        rig.clock.now += 0.1
        rig.timer.fire()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 16_000)
    }

    @Test func aQuietCheckThatFindsALaterFrameEndsNothing() {
        let rig = UIKitRig()
        rig.step(to: 0)
        for step in 1...3 { rig.step(to: 500 * Double(step)) }   // an animation, untold
        #expect(rig.timer.pending.count == 1)
        let held = rig.state
        // 0.09 s later one more frame; the check fires 0.01 s after it: the animation still runs
        rig.step(to: 1_700, after: 0.09)
        rig.clock.now += 0.01
        rig.timer.fire()
        #expect(rig.state == held, "the plan is still held: the check changed nothing")
        #expect(rig.state?.viewport.lowerBound != 1_700)
        // It waits again, for the rest of the quiet time after that frame
        #expect(rig.timer.pending.count == 1)
        #expect(rig.timer.pending.allSatisfy { $0.delay > .zero && $0.delay < .milliseconds(100) })
        // A drag takes over before that wait ends: the check then ends nothing either
        rig.step(to: 1_720, dragging: true)
        let dragging = rig.state
        #expect(dragging?.phase == .dragging)
        rig.clock.now += 0.2
        rig.timer.fire()
        #expect(rig.state == dragging)
        #expect(rig.timer.pending.isEmpty)
    }

    @Test func aCellAnAnimationShowsForOneFrameAsksAtSpeculativePriority() {
        // scrollToItem(at: row 900, at: .top, animated: true) from 1,000, announced, and
        // setContentOffset(CGPoint(x: 0, y: 30_000), animated: true), untold (its first frame is a jump
        // to where it is, planned as such): 18 steps each
        for announced in [true, false] {
            let rig = UIKitRig()
            rig.step(to: 1_000)
            let target = announced ? 90_000.0 : 30_000
            if announced { rig.prefetcher.willScroll(to: [0, 900], animated: true) }
            var asked: [(step: Int, level: FetchPriority.Level)] = []
            for step in 1...18 {
                let offset = 1_000 + (target - 1_000) * (1 - pow(1 - Double(step) / 18, 3))
                rig.step(to: offset)
                // cellForItemAt for the row at the top of the screen this frame shows
                asked.append((step, rig.prefetcher.priority(at: [0, Int(offset / 100)]).level))
            }
            // While a frame moves the content a screen (600 pt) or more, the cells it shows are gone at
            // the next: they ask at speculative priority, below every prefetch, so they pre-empt none
            // of the destination's loads; the last frames move less and their cells ask as visible
            let fast = asked.filter { (2...10).contains($0.step) }, slow = asked.filter { $0.step >= 16 }
            #expect(fast.allSatisfy { $0.level == .speculative }, "announced \(announced): \(asked)")
            #expect(slow.allSatisfy { $0.level == .visible }, "announced \(announced): \(asked)")
            #expect(FetchPriority.Level.speculative < .prefetch)
            #expect(rig.problems.isEmpty)
        }
    }

    @Test func anAnnouncedAnimatedScrollToAFarItemPlansTheDestinationFirstAndRestsAfterIt() {
        // scrollToItem(at: row 900, at: .top, animated: true) from 1,000: 89,000 pt in 0.3 s
        let rig = UIKitRig()
        rig.step(to: 1_000)
        rig.prefetcher.willScroll(to: [0, 900], animated: true)
        guard case let .programmatic(target, _)? = rig.state?.phase else { Issue.record("\(String(describing: rig.state?.phase))"); return }
        #expect(target == 90_000)
        // The destination's rows are requested at visible priority from the first frame
        let destination = Set((900..<906).map { IndexPath(indexes: [0, $0]) })
        let first = rig.target.requested
        #expect(destination.allSatisfy { first[$0]?.level == .visible }, "\(first.filter { destination.contains($0.key) })")
        var flownPast = Set<IndexPath>()
        for step in 1...18 {
            let progress = 1 - pow(1 - Double(step) / 18, 3)
            rig.step(to: 1_000 + 89_000 * progress)
            // Only flown past: between the screen it left (rows 10-15) and the destination's window
            for request in rig.target.lastUpdate.requests where (16..<890).contains(request.item[1]) { flownPast.insert(request.item) }
        }
        // What the animation only flies past: at most a screen's worth (6 rows of 100 pt in 600)
        #expect(flownPast.count <= 6, "\(flownPast.sorted())")
        // scrollViewDidEndScrollingAnimation: at rest where it landed
        rig.prefetcher.didEndScrollingAnimation()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 90_000)
    }

    @Test func theStatusBarTapEndsAtRestAtTheTop() {
        // scrollsToTop: an animation UIKit starts itself (no flag), then scrollViewDidScrollToTop
        let rig = UIKitRig()
        rig.step(to: 50_000)
        for step in 1...18 { rig.step(to: 50_000 * pow(1 - Double(step) / 18, 3)) }
        rig.prefetcher.didEndScrollingAnimation()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 0)
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

/// Items inserted above the screen while the user drags (a feed's new posts, a chat's older
/// messages), as a diffable data source applies them: the content size grows (its observer is
/// called with the old offset), then the app moves the offset by the inserted length to keep the
/// user's place (the offset observer), in the same run-loop turn; then the drag goes on.
@MainActor
@Suite("UIKit: inserts above during a drag")
struct InsertAboveTests {
    /// `foldedStep`: the offset that keeps the place comes a frame later with the drag's step in
    /// it (5,020 pt in one callback): 5,000 of it is the insert's, 20 the finger's.
    @Test(arguments: [false, true])
    func insertsAboveKeepTheOnScreenAndLookAheadRowsAndTheFingersSpeed(foldedStep: Bool) {
        let surface = ScriptedSurface(offset: 20_000, viewport: 600, rows: 1_000)
        let clock = FrameClock()
        var inserted = 0
        // Stable ids, as a diffable data source names its items: id = row - rows inserted above
        let lookup = ItemLookup<Int>(item: { path in path[1] - inserted }, indexPath: { id in IndexPath(indexes: [0, id + inserted]) })
        let target = RecordingPrefetchTarget<Int>()
        let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: lookup,
                                              adapter: ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)),
                                              axis: .vertical, now: { clock.now })
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        func step(by delta: Double) {
            clock.now += 1.0 / 60
            surface.reading?.offset += delta
            surface.reading?.isDragging = true
            surface.events?.changed(false)
        }
        // Given a steady drag at 1,200 pt/s (20 pt a frame)
        prefetcher.dragBegan()
        for _ in 0..<30 { step(by: 20) }
        let speed = prefetcher.adapter.lastState?.velocity ?? 0
        #expect(abs(speed - 1_200) < 60)
        let heldBefore = Set(target.requested.keys)
        let updatesBefore = target.updates.count
        // When 50 rows of 100 pt are inserted above, then the offset moves 5,000 pt to keep the place
        inserted = 50
        surface.rowCount += 50
        surface.reading?.contentLength += 5_000
        surface.events?.changed(true)
        var speeds: [Double] = []
        if foldedStep {
            clock.now += 1.0 / 60
            surface.reading?.offset += 5_020
            surface.events?.changed(false)
            speeds.append(prefetcher.adapter.lastState?.velocity ?? 0)
        } else {
            clock.now += 0.000_01
            surface.reading?.offset += 5_000
            surface.events?.changed(false)
        }
        // Then the insert itself withdraws nothing (ids are stable: the rows only moved) and asks
        // for nothing off screen
        let atInsert = target.updates.dropFirst(updatesBefore)
        #expect(atInsert.flatMap(\.withdrawals).isEmpty, "\(atInsert.flatMap(\.withdrawals))")
        #expect(Set(atInsert.flatMap(\.requests).map(\.item)).isSubset(of: Set(200...260)), "\(atInsert.flatMap(\.requests).map(\.item))")
        _ = heldBefore
        // and the drag goes on: every frame after the insert measures the finger's speed, within 5 %,
        // and only rows the drag passed (before id 208, the top of the screen at the end) are withdrawn
        let updatesAtInsert = target.updates.count
        for _ in 0..<10 {
            step(by: 20)
            speeds.append(prefetcher.adapter.lastState?.velocity ?? 0)
        }
        #expect(speeds.allSatisfy { abs($0 - 1_200) <= 60 }, "\(speeds)")
        let withdrawn = Set(target.updates.dropFirst(updatesAtInsert).flatMap(\.withdrawals))
        #expect(withdrawn.allSatisfy { $0 < 208 }, "withdrawn \(withdrawn.sorted())")
        #expect(problems.isEmpty, "\(problems)")
    }
}

@MainActor
@Suite("UIKit: inserts at rest")
struct InsertAtRestTests {
    /// A view resting at row 200 of 1,000 (100 pt rows, 600 pt viewport) whose ids are stable
    /// (id = row − rows inserted above), as a diffable data source names them.
    @MainActor
    final class Rig {
        let surface = ScriptedSurface(offset: 20_000, viewport: 600, rows: 1_000)
        let clock = FrameClock()
        let timer = ManualTimer()
        let target = RecordingPrefetchTarget<Int>()
        var inserted = 0
        var prefetcher: ScrollViewPrefetcher<Int>?

        init() {
            let clock = clock, timer = timer
            let lookup = ItemLookup<Int>(item: { [unowned self] path in path[1] - self.inserted },
                                         indexPath: { [unowned self] id in IndexPath(indexes: [0, id + self.inserted]) })
            let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: lookup,
                                                  adapter: ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)),
                                                  axis: .vertical, now: { clock.now }, schedule: { timer.schedule($0, $1) })
            self.prefetcher = prefetcher
            // At rest, planned.
            surface.events?.changed(false)
            clock.now += 0.5
            surface.events?.changed(false)
            prefetcher.refresh()
        }
    }

    @Test func anInsertAboveWhoseOffsetFollowsIsOneEvent() {
        // Given a resting view with its plan
        let rig = Rig()
        let held = Set(rig.target.requested.keys)
        #expect(held.isSuperset(of: 200...205))
        let before = rig.target.updates.count
        // When 30 rows are inserted above and, in the same turn, the offset moves 3,000 pt to keep the place
        rig.inserted = 30
        rig.surface.rowCount += 30
        rig.surface.reading?.contentLength += 3_000
        rig.surface.events?.changed(true)
        rig.clock.now += 0.000_01
        rig.surface.reading?.offset += 3_000
        rig.surface.events?.changed(false)
        rig.clock.now += 0.02
        rig.timer.fire()
        // Then nothing held is withdrawn and nothing new is asked for: the rows only moved
        let after = rig.target.updates.dropFirst(before)
        #expect(after.flatMap(\.withdrawals).isEmpty, "withdrawn \(after.flatMap(\.withdrawals).sorted())")
        #expect(Set(after.flatMap(\.requests).map(\.item)).isSubset(of: held), "\(after.flatMap(\.requests).map(\.item))")
        #expect(rig.prefetcher?.adapter.lastState?.velocity == 0)
    }

    @Test func contentThatGrowsAtRestWithNoOffsetChangeIsPlannedAMomentLater() {
        // Given a resting view with its plan
        let rig = Rig()
        let before = rig.target.updates.count
        // When 30 rows are inserted above and the app does not keep the place (the offset stays)
        rig.inserted = 30
        rig.surface.rowCount += 30
        rig.surface.reading?.contentLength += 3_000
        rig.surface.events?.changed(true)
        // Then nothing is planned in that turn; a moment later the check plans the new layout:
        // the rows now on screen (ids 170-175) are asked for
        #expect(rig.target.updates.count == before)
        #expect(rig.timer.pending.count == 1)
        rig.clock.now += 0.02
        rig.timer.fire()
        let requested = Set(rig.target.updates.dropFirst(before).flatMap(\.requests).map(\.item))
        #expect(requested.isSuperset(of: 170...175), "\(requested.sorted())")
    }
}
