import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchSwiftUI

// SwiftUI's callback order (iOS 18: onScrollGeometryChange, onScrollPhaseChange), replayed
// through the portable half of PrefetchSwiftUI:
// - a scroll gesture goes idle → tracking (a finger touched, nothing moves yet) → interacting
//   (the finger drags) → decelerating (coasting after the lift) → idle (ScrollPhase);
// - geometry changes come once per frame while the offset moves; a phase change is its own
//   callback and can arrive between two geometry frames, with no new geometry;
// - SwiftUI reports no resting offset: the fling's end is where UIKit's deceleration takes the
//   velocity the frames measured.

@MainActor
@Suite("SwiftUI callback order")
struct SwiftUICallbackOrderTests {
    private final class Rig {
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, Int>()
        let fetcher: AsyncFetcher<Int, Int>
        let prefetcher: ListPrefetcher<Int, Int>
        var problems: [String] = []
        var time = 50.0

        @MainActor init(autoRespond: Bool = false) throws {
            let loader = autoRespond ? ScriptedLoader<Int, Int>(autoRespond: { $0 * 10 }) : self.loader
            fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: clock, loader: loader)
            let clock = self.clock
            var box: Rig?
            prefetcher = ListPrefetcher(fetcher: fetcher, policy: PrefetchPolicies.adaptive, admission: RowAdmission(),
                                        now: { box?.time ?? 0 },
                                        // Virtual time: a row's wait ends only when the test advances the clock
                                        sleep: { try await clock.sleep(until: clock.now.advanced(by: $0)) })
            box = self
            prefetcher.onProblem = { [unowned self] in self.problems.append($0.message) }
            prefetcher.use(RowsLayout(items: Array(0..<1_000), rowLength: 100, columns: 1, spacing: 0, padding: 0))
        }

        @MainActor var state: ScrollState? { prefetcher.adapter.lastState }

        /// One geometry callback, `seconds` after the last.
        @MainActor func geometry(_ offset: Double, after seconds: Double = 1.0 / 60) {
            time += seconds
            prefetcher.scrolled(ScrollValues(offset: offset, viewportLength: 800, contentLength: 100_000))
        }
    }

    @Test func aGestureFromTouchToRestIsReadFrameByFrame() throws {
        let rig = try Rig()
        rig.geometry(0)
        // tracking: the finger is down, nothing moves
        rig.time += 0.05
        rig.prefetcher.phaseChanged(to: .tracking)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.velocity == 0)
        // interacting: a 1,800 pt/s drag, one geometry frame per display frame
        rig.prefetcher.phaseChanged(to: .interacting)
        for frame in 1...30 {
            rig.geometry(Double(frame) * 30)
            #expect(rig.state?.phase == .dragging)
            #expect(within5Percent(rig.state?.velocity, 1_800), "frame \(frame): \(String(describing: rig.state?.velocity))")
        }
        // decelerating arrives between two geometry frames: the fling keeps the drag's speed
        rig.time += 0.004
        rig.prefetcher.phaseChanged(to: .decelerating)
        let fling = uikitFling(from: 900, velocity: 1_800)
        guard case let .decelerating(rest, rate)? = rig.state?.phase else {
            Issue.record("the fling was lost: \(String(describing: rig.state?.phase))")
            return
        }
        #expect(rate == 0.998)
        #expect(abs(rest - fling.rest) < 1e-6, "rest \(rest), the toolkit's \(fling.rest)")
        #expect(within5Percent(rig.state?.velocity, 1_800))
        // The coasting frames keep that resting offset
        for frame in 1...90 {
            rig.geometry(fling.at(Double(frame) / 60))
            #expect(rig.state?.phase == .decelerating(restingOffset: rest, rate: 0.998), "frame \(frame)")
        }
        // idle: at rest
        rig.prefetcher.phaseChanged(to: .idle)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.velocity == 0)
        #expect(rig.problems.isEmpty)
        rig.fetcher.shutdown()
    }

    @Test(arguments: [60.0, 120.0])
    func aFlickWhoseGeometryComesLateRestsNearWhereSwiftUIsFlingDoes(hz: Double) throws {
        // SwiftUI gives no resting offset: the fling is projected from the speed the geometry
        // frames measured. A 2,400 pt/s flick at `hz`, each onScrollGeometryChange 0-3 ms after
        // its frame (the delays of FrameRateTests) and its offset on the pixel grid
        let rig = try Rig()
        rig.geometry(10_000)
        rig.time += 0.5
        rig.prefetcher.phaseChanged(to: .interacting)
        var frameTime = rig.time, offset = 10_000.0
        for frame in 1...Int(0.25 * hz) {
            frameTime += 1 / hz
            offset += 2_400 / hz
            let called = frameTime + FrameRateTests.delays[frame % FrameRateTests.delays.count]
            rig.geometry(FrameRateTests.onPixelGrid(offset), after: called - rig.time)
        }
        rig.time += 0.004
        rig.prefetcher.phaseChanged(to: .decelerating)
        guard case let .decelerating(rest, _)? = rig.state?.phase else {
            Issue.record("the fling was lost: \(String(describing: rig.state?.phase))")
            return
        }
        let fling = uikitFling(from: offset, velocity: 2_400)
        // The toolkit's fling travels 1,199 pt; the projection misses its end by at most a tenth of that
        #expect(abs(rest - fling.rest) <= 0.1 * (fling.rest - offset), "rests at \(rest), SwiftUI's fling at \(fling.rest)")
        rig.fetcher.shutdown()
    }

    @Test func aTouchThatCatchesAFlingStopsIt() throws {
        let rig = try Rig()
        rig.prefetcher.phaseChanged(to: .interacting)
        for frame in 0...10 { rig.geometry(Double(frame) * 30) }
        rig.prefetcher.phaseChanged(to: .decelerating)
        rig.geometry(330)
        rig.time += 0.01
        rig.prefetcher.phaseChanged(to: .tracking)
        #expect(rig.state?.phase == .idle)
        rig.fetcher.shutdown()
    }

    @Test func aProgrammaticScrollIsPlannedWhereItIsThenHeldUntilItStops() throws {
        // ScrollViewReader.scrollTo with animation: `.animating`, the destination untold
        let rig = try Rig()
        rig.geometry(0)
        rig.prefetcher.phaseChanged(to: .animating)
        rig.geometry(100)
        // Its first frame: where it is, at rest (not a drag that outlives the animation)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.velocity == 0)
        let held = rig.state
        rig.geometry(2_000)
        #expect(rig.state == held, "a frame a display frame later flies past: the plan is held")
        rig.time += 0.01
        rig.prefetcher.phaseChanged(to: .idle)
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 2_000)
        rig.fetcher.shutdown()
    }

    @Test func anAnimatingPhaseThatEndsWithoutAnIdlePhaseRestsAQuietTimeAfterItsLastFrame() throws {
        // ScrollViewReader.scrollTo(900, anchor: .top) with animation; SwiftUI sends no `.idle` after it
        let rig = try Rig()
        let timer = ManualTimer()
        rig.prefetcher.quietCheck.schedule = { timer.schedule($0, $1) }
        rig.geometry(0)
        rig.prefetcher.phaseChanged(to: .animating)
        for frame in 1...18 { rig.geometry(90_000 * (1 - pow(1 - Double(frame) / 18, 3))) }
        #expect(rig.state?.viewport.lowerBound != 90_000, "the frames it flies past hold the first frame's plan")
        #expect(timer.pending.count == 1)
        #expect(timer.pending.allSatisfy { $0.delay > .zero && $0.delay <= .milliseconds(200) })
        // A check that finds a later frame ends nothing: the plan is still held
        let held = rig.state
        rig.time += 0.05
        timer.fire()
        #expect(rig.state == held)
        // Then the quiet time passes with no frame: at rest at the destination, its rows at visible priority
        rig.time += 0.1
        timer.fire()
        #expect(rig.state?.phase == .idle)
        #expect(rig.state?.viewport.lowerBound == 90_000)
        let visible = Set(rig.prefetcher.adapter.controller.requestedItems.filter { $0.priority.level == .visible }.map(\.item))
        #expect(visible == Set(900..<908), "\(visible.sorted())")
        #expect(timer.pending.isEmpty)
        #expect(rig.problems.isEmpty)
        rig.fetcher.shutdown()
    }

    @Test func aNewRowLengthColumnCountOrSpacingReplans() throws {
        let rig = try Rig()
        rig.geometry(2_000)
        let rows = Set(rig.prefetcher.adapter.controller.requestedItems.map(\.item))
        // Rows four times as tall: the same viewport shows other items
        rig.prefetcher.use(RowsLayout(items: Array(0..<1_000), rowLength: 400, columns: 1, spacing: 0, padding: 0))
        let taller = Set(rig.prefetcher.adapter.controller.requestedItems.map(\.item))
        #expect(taller != rows)
        #expect(taller.contains(5))   // 2,000 pt is row 5 at 400 pt
        // Three columns
        rig.prefetcher.use(RowsLayout(items: Array(0..<1_000), rowLength: 400, columns: 3, spacing: 0, padding: 0))
        #expect(Set(rig.prefetcher.adapter.controller.requestedItems.map(\.item)).contains(15))
        // Spacing
        rig.prefetcher.use(RowsLayout(items: Array(0..<1_000), rowLength: 400, columns: 3, spacing: 100, padding: 0))
        #expect(Set(rig.prefetcher.adapter.controller.requestedItems.map(\.item)).contains(12))   // 2,000 pt is row 4 at 500 pt pitch
        rig.fetcher.shutdown()
    }

    @Test func withoutScrollGeometryARowStartsAfterItsDwell() async throws {
        // iOS 16 and 17: the modifier does nothing, no frame ever comes
        let rig = try Rig(autoRespond: true)
        let prefetcher = rig.prefetcher
        let row = Task { @MainActor in try await prefetcher.value(for: 42) }
        // 0.1 s of dwell at one check per 16 ms: nothing starts before
        for _ in 0..<6 {
            await rig.clock.waitForSleepers(1)
            #expect(rig.fetcher.statistics.loadsStarted == 0)
            rig.time += 0.016
            rig.clock.advance(by: .milliseconds(16))
        }
        await rig.clock.waitForSleepers(1)
        rig.time += 0.016
        rig.clock.advance(by: .milliseconds(16))
        #expect(try await row.value == 420)
        #expect(rig.fetcher.statistics.loadsStarted == 1)
        rig.fetcher.shutdown()
    }

    @Test func aRowThatLeavesBeforeItsDwellStartsNothing() async throws {
        let rig = try Rig(autoRespond: true)
        let prefetcher = rig.prefetcher
        let row = Task { @MainActor in try await prefetcher.value(for: 7) }
        await rig.clock.waitForSleepers(1)
        row.cancel()
        await #expect(throws: CancellationError.self) { try await row.value }
        #expect(rig.fetcher.statistics.loadsStarted == 0)
        rig.fetcher.shutdown()
    }

    @Test func aShutDownFetcherIsReportedNotTrapped() throws {
        let rig = try Rig()
        rig.fetcher.shutdown()
        rig.geometry(100)
        #expect(rig.problems.count == 1)
        #expect(rig.problems.first?.contains("shut down") == true)
    }
}
