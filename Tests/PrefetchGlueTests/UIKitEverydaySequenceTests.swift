import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// Moments a UIKit list produces every day that the other suites do not replay, written down as
// UIKit sends them: `UIRefreshControl`'s pull, hold and release, and a navigation bar's large
// title collapsing as the user starts to scroll (the adjusted content inset shrinks under the
// finger). Fed through `ScrollViewPrefetcher` on a scripted surface; what is checked is what the
// controller holds frame by frame.

@MainActor
@Suite("UIKit: everyday sequences")
struct UIKitEverydaySequenceTests {
    /// A collection view of 1,000 rows of 100 pt, 600 pt tall, whose ids are stable (id = row −
    /// rows inserted above, as a diffable data source names them), and what the target held after
    /// each callback.
    @MainActor final class Rig {
        let surface = ScriptedSurface(offset: 0, viewport: 600, rows: 1_000)
        let clock = FrameClock()
        let timer = ManualTimer()
        let target = RecordingPrefetchTarget<Int>()
        let prefetcher: ScrollViewPrefetcher<Int>
        let problems = ProblemLog()
        var inserted = 0
        /// The ids requested after each callback, in order.
        var held: [Set<Int>] = []

        init() {
            let clock = clock, timer = timer, problems = problems
            let box = InsertedBox()
            let lookup = ItemLookup<Int>(item: { path in path[1] - box.count }, indexPath: { id in IndexPath(indexes: [0, id + box.count]) })
            self.box = box
            prefetcher = ScrollViewPrefetcher(surface: surface, lookup: lookup,
                                              adapter: ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)),
                                              axis: .vertical, now: { clock.now }, schedule: { timer.schedule($0, $1) })
            prefetcher.onProblem = { problems.messages.append($0.message) }
        }

        private let box: InsertedBox
        var requested: Set<Int> { Set(target.requested.keys) }
        var state: ScrollState? { prefetcher.adapter.lastState }

        /// One display step: the offset (and the leading inset, when given) change, then the
        /// offset's and the bounds' observers are called.
        func step(to offset: Double, after seconds: Double = 1.0 / 60, dragging: Bool = false, decelerating: Bool = false,
                  leadingInset: Double? = nil) {
            clock.now += seconds
            surface.reading?.offset = offset
            if let leadingInset { surface.reading?.leadingInset = leadingInset }
            surface.reading?.isDragging = dragging
            surface.reading?.isDecelerating = decelerating
            surface.events?.changed(false)
            held.append(requested)
        }

        /// `count` rows inserted above row 0 by a snapshot: the content size's observer.
        func insertAbove(_ count: Int) {
            box.count += count
            surface.rowCount += count
            surface.reading?.contentLength += Double(count) * surface.rowLength
            surface.events?.changed(true)
            held.append(requested)
        }

        /// Ids that were requested, then not, then requested again, from callback `start` on.
        func churned(from start: Int = 0) -> Set<Int> { PrefetchGlueTests.churned(held.dropFirst(start)) }

        func isVisible(_ id: Int) -> Bool { target.requested[id]?.level == FetchPriority.visible.level }
    }

    @MainActor final class InsertedBox {
        var count = 0
    }

    /// `UIRefreshControl`: at the top, the finger pulls the list 120 pt past its start, lets go;
    /// the control takes 60 pt of inset and holds the list at -60 while the app refreshes; ten
    /// rows arrive above row 0 (the offset stays: UIKit keeps the offset, so the new rows show);
    /// `endRefreshing()` gives the inset back and the list animates to 0.
    @Test func pullToRefreshKeepsTheLookAheadAndShowsTheNewRows() {
        let rig = Rig()
        rig.step(to: 0, after: 1)
        rig.step(to: 0, after: 1)
        let before = rig.requested
        #expect(before.isSuperset(of: 0...5))
        let start = rig.held.count
        rig.prefetcher.dragBegan()
        for pull in 1...12 { rig.step(to: -Double(pull) * 10, dragging: true) }
        rig.prefetcher.willEndDragging(velocityPerMillisecond: 0, target: -120)
        // The control begins refreshing: 60 pt of inset, the list springs back to -60 and holds
        for frame in 1...6 { rig.step(to: -120 + Double(frame) * 10, leadingInset: 60) }
        for _ in 0..<40 { rig.step(to: -60, after: 0.05, leadingInset: 60) }
        rig.timer.fire()
        #expect(rig.requested.isSuperset(of: before), "let go: \(before.subtracting(rig.requested).sorted())")
        // The new rows arrive, then endRefreshing() animates the inset away and the list to 0
        rig.insertAbove(10)
        for frame in 1...18 { rig.step(to: -60 + Double(frame) * 60 / 18, leadingInset: 60 - Double(frame) * 60 / 18) }
        rig.clock.now += 0.05
        rig.timer.fire()
        rig.step(to: 0, after: 0.05)
        #expect((-10 ..< -4).allSatisfy(rig.isVisible), "the new rows on screen: \(rig.target.requested.filter { $0.key < 0 })")
        #expect(rig.churned(from: start).isEmpty, "\(rig.churned(from: start).sorted())")
        #expect(rig.state?.velocity == 0)
        #expect(rig.problems.messages.isEmpty, "\(rig.problems.messages)")
    }

    /// A large title collapses as the user drags up from the top: the adjusted content inset goes
    /// from 140 to 96 pt over the first 44 pt of scrolling, the offset from -140 up, at 600 pt/s.
    @Test func aLargeTitleCollapsingUnderTheFingerReadsTheFingersSpeed() {
        let rig = Rig()
        rig.step(to: -140, after: 1, leadingInset: 140)
        rig.step(to: -140, after: 1, leadingInset: 140)
        let start = rig.held.count
        rig.prefetcher.dragBegan()
        var speeds: [Double] = []
        for frame in 1...40 {
            let offset = -140 + Double(frame) * 10
            rig.step(to: offset, dragging: true, leadingInset: max(96, 140 - Double(frame) * 10))
            speeds.append(rig.state?.velocity ?? 0)
        }
        // From the fourth frame on (the speed is measured over a few frames), the finger's 600 pt/s
        #expect(speeds.dropFirst(3).allSatisfy { abs($0 - 600) <= 30 }, "\(speeds)")
        #expect(rig.churned(from: start).isEmpty, "\(rig.churned(from: start).sorted())")
        #expect(rig.problems.messages.isEmpty, "\(rig.problems.messages)")
    }
}
