import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// What a phone's display does to the callbacks the other suites replay at an even 60 Hz: ProMotion
// screens step at 120 Hz, UIKit keeps offsets on the pixel grid (a third of a point on a 3x
// screen), and the main thread calls `scrollViewDidScroll` a few milliseconds after the frame it
// belongs to, more or less late each time, so the time the prefetcher reads for a step is not the
// frame's. Replayed in UIKit's order through `ScrollViewPrefetcher`.

@MainActor
@Suite("UIKit: display rates and callback delays")
struct FrameRateTests {
    /// An offset as UIKit keeps it: on a 3x screen's pixel grid.
    static func onPixelGrid(_ value: Double) -> Double { (value * 3).rounded() / 3 }

    /// How late each callback comes after its frame, in seconds: a fixed cycle of 0-3 ms, the
    /// main-thread work of a list that decodes and lays out cells.
    static let delays = [0.0, 0.003, 0.001, 0.0025, 0.0005, 0.003, 0.0, 0.002, 0.0015, 0.0028]

    /// A steady drag at `speed` from rest at 20,000 pt, `seconds` long: each frame's offset on the
    /// pixel grid, its callback `delays` late; a frame whose offset did not move calls nothing.
    /// Returns the speed read after each callback and the ids requested after each.
    static func drag(_ rig: UIKitRig, speed: Double, hz: Double, seconds: Double = 1,
                     delayed: Bool) -> (speeds: [Double], held: [Set<IndexPath>]) {
        rig.surface.events?.dragBegan()
        var speeds: [Double] = [], held: [Set<IndexPath>] = []
        var called = rig.clock.now, shown = 20_000.0
        let start = rig.clock.now
        for frame in 1...Int(seconds * hz) {
            let offset = onPixelGrid(20_000 + speed * Double(frame) / hz)
            if offset == shown { continue }
            shown = offset
            let time = start + Double(frame) / hz + (delayed ? delays[frame % delays.count] : 0)
            rig.step(to: offset, after: time - called, dragging: true)
            called = time
            speeds.append(rig.state?.velocity ?? .nan)
            held.append(Set(rig.target.requested.keys))
        }
        return (speeds, held)
    }

    static func atRest(at offset: Double = 20_000) -> UIKitRig {
        let rig = UIKitRig()
        rig.step(to: offset)
        rig.step(to: offset, after: 0.5)
        rig.prefetcher.refresh()
        return rig
    }

    @Test(arguments: [60.0, 120.0])
    func aDragOnThePixelGridReadsTheFingersSpeedOnEveryFrame(hz: Double) {
        // At 120 Hz a 300 pt/s drag moves 2.5 pt a frame, kept as 2⅓ and 2⅔ pt: one frame's step
        // alone reads 280 or 320 pt/s
        for speed in [300.0, 500.0, -500.0, 1_000.0] {
            let rig = Self.atRest()
            let rested = Set(rig.target.requested.keys)
            let lookAhead = Set(rig.target.requested.filter { $0.value.level < .visible }.keys)
            let (speeds, held) = Self.drag(rig, speed: speed, hz: hz, delayed: false)
            let off = speeds.dropFirst(3).filter { !within5Percent($0, speed) }
            #expect(off.isEmpty, "\(hz) Hz, \(speed) pt/s: \(off.count) frames read \(off.prefix(4).map { Int($0) })")
            let churn = churned([rested] + held).intersection(lookAhead)
            #expect(churn.isEmpty, "\(hz) Hz, \(speed) pt/s: look-ahead churned \(churn.map { $0[1] }.sorted())")
        }
    }

    @Test(arguments: [60.0, 120.0])
    func aDragWhoseCallbacksComeLateReadsItsSpeedWithinATenth(hz: Double) {
        // One display interval with the callbacks 0-3 ms late reads up to a fifth off at 60 Hz and
        // half off at 120 Hz; the slope through the drag's last two 60 Hz intervals stays within 10 %
        for speed in [300.0, 1_000.0, 3_000.0, -1_000.0] {
            let rig = Self.atRest()
            let (speeds, _) = Self.drag(rig, speed: speed, hz: hz, delayed: true)
            let worst = speeds.dropFirst(3).map { abs($0 - speed) / abs(speed) }.max() ?? .infinity
            #expect(worst <= 0.1, "\(hz) Hz, \(speed) pt/s: off by up to \(Int(worst * 100)) %")
        }
    }

    @Test(arguments: [60.0, 120.0])
    func aFlingReadsTheLiftsRestingPoint(hz: Double) {
        let rig = Self.atRest(at: 10_000)
        rig.surface.events?.dragBegan()
        var offset = 10_000.0
        for _ in 1...Int(0.2 * hz) {
            offset += 2_000 / hz
            rig.step(to: Self.onPixelGrid(offset), after: 1 / hz, dragging: true)
        }
        #expect(within5Percent(rig.state?.velocity, 2_000))
        rig.surface.events?.dragEnded(CGPoint(x: 0, y: -2_000))
        let fling = uikitFling(from: offset, velocity: 2_000)
        for step in 1...Int(hz) { rig.step(to: Self.onPixelGrid(fling.at(Double(step) / hz)), after: 1 / hz, decelerating: true) }
        guard case let .decelerating(resting, _)? = rig.state?.phase else { Issue.record("\(String(describing: rig.state?.phase))"); return }
        #expect(abs(resting - fling.rest) < 1, "rests at \(resting), UIKit's \(fling.rest)")
    }

    @Test(arguments: [60.0, 120.0])
    func anAnimatedScrollNobodyAnnouncedRequestsOneScreenOnTheWay(hz: Double) {
        // setContentOffset(_:animated: true) from 1,000 to 90,000, untold: 0.3 s of frames with
        // neither flag, easing out. Its first frame cannot be told from a jump; it adds its screen
        // to what the view held and leaves the look-ahead for when the view rests
        let rig = Self.atRest(at: 1_000)
        var requestedEver = Set(rig.target.requested.keys)
        let frames = Int(0.3 * hz)
        for step in 1...frames {
            let t = Double(step) / Double(frames)
            rig.step(to: Self.onPixelGrid(1_000 + 89_000 * (1 - pow(1 - t, 3))), after: 1 / hz)
            requestedEver.formUnion(rig.target.requested.keys)
        }
        rig.clock.now += 0.1
        rig.timer.fire()
        requestedEver.formUnion(rig.target.requested.keys)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 90_000)
        // Rows 10-33 are the start's screen and look-ahead; the destination's plan reaches back to row 870
        let flownPast = requestedEver.filter { (34..<870).contains($0[1]) }
        #expect(flownPast.count <= 7, "one screen is 6-7 rows of 100 pt; requested \(flownPast.map { $0[1] }.sorted())")
        #expect((900..<906).allSatisfy { rig.target.requested[IndexPath(indexes: [0, $0])]?.level == .visible })
        #expect(rig.problems.isEmpty)
    }

    @Test(arguments: [60.0, 120.0])
    func aCellAnAnimationShowsForAMomentAsksAtSpeculativePriority(hz: Double) {
        // scrollToItem(at: row 900, at: .top, animated: true) from 1,000, announced: 0.3 s of frames.
        // At 120 Hz a frame moves half as far as at 60 Hz, but its cells are gone as soon: what
        // counts is moving a screen per sixtieth of a second
        let rig = Self.atRest(at: 1_000)
        rig.prefetcher.willScroll(to: [0, 900], animated: true)
        let frames = Int(0.3 * hz)
        var asked: [(progress: Double, level: FetchPriority.Level)] = []
        for step in 1...frames {
            let t = Double(step) / Double(frames)
            let offset = Self.onPixelGrid(1_000 + 89_000 * (1 - pow(1 - t, 3)))
            rig.step(to: offset, after: 1 / hz)
            asked.append((t, rig.prefetcher.priority(at: [0, Int(offset / 100)]).level))
        }
        // The curve moves 890,000 × (1 − t)² pt/s: a screen (600 pt) per sixtieth of a second until
        // t = 0.8. Counted per frame (a screen per frame at 120 Hz is t ≤ 0.72), the cells of t = 0.72-0.8
        // would ask at visible and pre-empt the destination's loads
        let fast = asked.filter { $0.progress > 0.05 && $0.progress <= 0.78 }, slow = asked.filter { $0.progress >= 0.85 }
        #expect(!fast.isEmpty && fast.allSatisfy { $0.level == .speculative }, "\(hz) Hz: \(asked.map { $0.level.rawValue })")
        #expect(!slow.isEmpty && slow.allSatisfy { $0.level == .visible }, "\(hz) Hz: \(asked.map { $0.level.rawValue })")
    }

    @Test func aJumpRequestsItsScreenAtOnceAndItsLookAheadWhenItRests() {
        // setContentOffset(_:animated: false) to 50,000: one step with neither flag. It may be an
        // animation's first frame, so only its screen is requested; what the view held far behind goes
        let rig = Self.atRest(at: 1_000)
        let before = Set(rig.target.requested.keys)
        rig.step(to: 50_000)
        #expect(Set(rig.target.requested.keys) == Set((500..<506).map { IndexPath(indexes: [0, $0]) }))
        #expect((500..<506).allSatisfy { rig.target.requested[IndexPath(indexes: [0, $0])]?.level == .visible })
        // No frame follows: the quiet time later the view rests and plans its look-ahead
        rig.clock.now += 0.1
        rig.timer.fire()
        #expect(rig.state?.phase == .idle)
        #expect(rig.target.requested.keys.contains { $0[1] >= 506 }, "the look-ahead below the new screen")
        #expect(before.isDisjoint(with: Set(rig.target.requested.keys)))
    }

    @Test func aNudgeWithoutFlagsKeepsWhatTheViewHeld() {
        // A text field scrolled into view above the keyboard: 240 pt with neither flag, at rest.
        // The first step keeps the plan near the new screen; the view at rest plans the rest
        let rig = Self.atRest(at: 20_000)
        let before = Set(rig.target.requested.keys)
        rig.step(to: 20_240)
        #expect(before.isSubset(of: Set(rig.target.requested.keys)))
        #expect(rig.target.updates.last?.withdrawals.isEmpty == true)
        rig.clock.now += 0.1
        rig.timer.fire()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 20_240)
        #expect((202..<209).allSatisfy { rig.target.requested[IndexPath(indexes: [0, $0])]?.level == .visible })
    }
}
