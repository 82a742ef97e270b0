import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// Self-sizing cells (`estimatedRowHeight`, Auto Layout), replayed as UIKit reports them: rows are
// laid out at the estimate until they come on screen; in the layout pass of the step that brings
// one on screen, the table measures it and sets `contentSize` (heard with the offset of that
// step). A row measured below the top of the screen moves nothing else; a row measured above it
// (scrolling up over rows never shown) also moves `contentOffset` by its change, in the same pass,
// so what is on screen stays put. Neither change is the user's motion.

@MainActor
@Suite("UIKit: self-sizing rows")
struct SelfSizingCallbackTests {
    /// A row of the estimate's 206 pt measured at `height`, in the layout pass of the step just sent.
    private func measured(_ rig: UIKitRig, height: Double, aboveBy shift: Double = 0) {
        rig.clock.now += 0.000_02
        rig.surface.reading?.contentLength += height - 206
        rig.surface.events?.changed(true)
        guard shift != 0 else { return }
        rig.clock.now += 0.000_01
        rig.surface.reading?.offset += shift
        rig.surface.events?.changed(false)
    }

    /// `reportsTarget`: the lift comes through the delegate's `scrollViewWillEndDragging` with
    /// UIKit's target; otherwise through the pan gesture's end, and the fling is projected.
    @Test(arguments: [true, false])
    func rowsMeasuredBelowTheScreenDuringAFlingKeepItsSpeed(reportsTarget: Bool) {
        // A fling at 12,000 pt/s: a frame travels 200 pt at first, less as it slows. Every third
        // step brings a row on screen that measures 420 pt (214 more than estimated), or 60 (146
        // less): growths close to one frame's travel, which must not read as an offset keeping a place.
        let rig = UIKitRig()
        for step in 0...10 { rig.step(to: Double(step) * 200, dragging: true) }
        let fling = uikitFling(from: 2_000, velocity: 12_000)
        if reportsTarget {
            rig.prefetcher.willEndDragging(velocityPerMillisecond: 12, target: fling.rest)
        } else {
            rig.prefetcher.dragEnded(fingerVelocity: CGPoint(x: 0, y: -12_000))
        }
        var previous = 2_000.0
        for step in 1...90 {
            let offset = fling.at(Double(step) / 60)
            rig.step(to: offset, decelerating: true)
            let speed = (offset - previous) * 60
            previous = offset
            if step > 1 {
                #expect(abs((rig.state?.velocity ?? 0) - speed) <= max(0.05 * speed, 30), "step \(step): read \(rig.state?.velocity ?? 0), moving \(speed)")
            }
            if step % 3 == 0 { measured(rig, height: step % 6 == 0 ? 420 : 60) }
        }
        #expect(rig.problems.isEmpty)
    }

    @Test(arguments: [false, true])
    func rowsMeasuredAboveTheScreenDuringADragUpKeepTheFingersSpeed(alsoBelow: Bool) {
        // A drag up at 900 pt/s over rows never shown: every fourth step a row above the top is
        // measured at 300 pt (94 more than estimated) and the offset moves 94 pt in the same pass;
        // `alsoBelow`: a row at the bottom is measured at 60 pt in the same pass, so the content
        // changes by less than the offset moves.
        let rig = UIKitRig()
        for step in 0...10 { rig.step(to: 50_000 - Double(step) * 15, dragging: true) }
        var offset = 50_000 - 150.0
        for step in 1...60 {
            offset -= 15
            rig.step(to: offset, dragging: true)
            #expect(within5Percent(rig.state?.velocity, -900), "step \(step): read \(rig.state?.velocity ?? 0)")
            if step % 4 == 0 {
                rig.surface.reading?.contentLength += alsoBelow ? -146 : 0
                measured(rig, height: 300, aboveBy: 94)
                offset += 94
            }
        }
        #expect(rig.problems.isEmpty)
    }
}
