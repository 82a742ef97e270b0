import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// UIKit's animated scrolls, replayed as UIKitCallbackOrderTests does: `setContentOffset(_:animated:
// true)`, `scrollToItem(at:at:animated: true)` and the status-bar tap move the offset over several
// steps a display frame apart with neither `isDragging` nor `isDecelerating` set, and UIKit sends
// nothing after the last step unless the app forwards `scrollViewDidEndScrollingAnimation`.
// `willScroll(to:animated:)` is the app telling the prefetcher where an animation goes.

@MainActor
@Suite("UIKit: animated scrolls")
struct UIKitAnimationCallbackTests {
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
}
