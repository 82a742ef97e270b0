import Foundation
import PrefetchKit
import PrefetchSwiftUI
import PrefetchTesting
import Testing

// Moments a SwiftUI list produces every day that the other suites do not replay: pull to
// refresh, the keyboard covering the list, a jump to a saved position, a swipe to delete, a
// rotation with rows of different heights, and a drag that catches a programmatic scroll. Each
// is written as SwiftUI reports it (`onScrollGeometryChange` for the offset, container and
// content lengths; `onScrollPhaseChange` for the phase; the modifier's new rows first, then the
// geometry that goes with them) and fed through `ListPrefetcher`'s public API, as an app on
// Linux or the SwiftUI binding does. What is checked is what the controller holds frame by frame.

@MainActor
@Suite("SwiftUI: everyday sequences")
struct SwiftUIEverydaySequenceTests {
    /// A list of 1,000 rows of 100 pt under a 800 pt container, and what the controller held
    /// after each call.
    /// The quiet checks the prefetcher scheduled, run when the test says.
    @MainActor final class Timers {
        var pending: [@MainActor () -> Void] = []
    }

    @MainActor final class Probe {
        let clock = ManualClock()
        let timers = Timers()
        let fetcher: AsyncFetcher<Int, Int>
        let prefetcher: ListPrefetcher<Int, Int>
        var problems: [String] = []
        var offset = 0.0, viewport = 800.0, content = 100_000.0
        /// The ids requested after each call, in order.
        var held: [Set<Int>] = []

        init(rows: Range<Int> = 0..<1_000) throws {
            fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(),
                                                 loader: ScriptedLoader<Int, Int>())
            let timers = timers
            prefetcher = ListPrefetcher(fetcher: fetcher, clock: clock, schedule: { _, action in timers.pending.append(action) })
            prefetcher.onProblem = { [unowned self] in self.problems.append($0.message) }
            prefetcher.layoutChanged(items: Array(rows), rowLength: 100)
            content = Double(rows.count) * 100
            geometry()
        }

        var controller: PrefetchController<Int> { prefetcher.controller }
        var requested: Set<Int> { Set(controller.requestedItems.map(\.item)) }
        var state: ScrollState? { prefetcher.adapter.lastState }

        func advance(_ seconds: Double) { clock.advance(by: .seconds(seconds)) }

        /// `onScrollGeometryChange` with the probe's values, a display frame after the last one.
        func geometry(after seconds: Double = 1.0 / 60) {
            advance(seconds)
            prefetcher.scrollGeometryChanged(offset: offset, viewportLength: viewport, contentLength: content)
            held.append(requested)
        }

        /// The list comes to rest at `offset` and stays there a second.
        func rest(at offset: Double) {
            self.offset = offset
            geometry(after: 1)
            advance(1)
        }

        func phase(_ motion: ScrollMotion) {
            prefetcher.scrollPhaseChanged(to: motion)
            held.append(requested)
        }

        /// Runs the quiet checks that were scheduled, a quiet time later.
        func quiet() {
            advance(0.05)
            let due = timers.pending
            timers.pending.removeAll()
            for action in due { action() }
            held.append(requested)
        }

        /// Ids that were requested, then not, then requested again, from call `start` on.
        func churned(from start: Int = 0) -> Set<Int> { PrefetchGlueTests.churned(held.dropFirst(start)) }

        /// Whether the controller requested `id` at visible priority (`priority(for:)` answers a
        /// cell that asks, and a cell that asks is on screen, so it says visible for any id it
        /// does not hold).
        func isVisible(_ id: Int) -> Bool { controller.requestedPriority(of: id)?.level == FetchPriority.visible.level }
    }

    /// `.refreshable`: at the top, the finger pulls the list down past its start (the offset goes
    /// below 0), SwiftUI holds it while the app refreshes, ten new rows arrive above row 0 with
    /// the list still at its top (a refresh shows them: the offset stays), and the list rests.
    @Test func pullToRefreshKeepsTheLookAheadAndShowsTheNewRows() throws {
        let probe = try Probe()
        probe.advance(1)
        let before = probe.requested
        #expect(before.isSuperset(of: 0...7))
        let start = probe.held.count
        probe.phase(.dragging)
        for pull in 1...12 {
            probe.offset = -Double(pull) * 10
            probe.geometry()
        }
        probe.phase(.idle)   // released: the refresh control holds the list at -60 while the app loads
        probe.offset = -60
        for _ in 0..<30 { probe.geometry(after: 0.05) }
        // No row requested at rest was let go during the pull or the hold, and the heading did not turn.
        #expect(probe.requested.isSuperset(of: before), "\(before.subtracting(probe.requested).sorted())")
        #expect(probe.churned(from: start).isEmpty, "\(probe.churned(from: start).sorted())")
        // When ten rows arrive above, then the geometry: 1,000 pt more content, the list back at its top
        probe.prefetcher.layoutChanged(items: Array(-10..<1_000), rowLength: 100)
        probe.content += 1_000
        probe.offset = 0
        probe.geometry()
        // Then the new rows on screen are held at visible priority, and the list is at rest
        #expect((-10 ..< -2).allSatisfy(probe.isVisible), "\(probe.controller.requestedItems.prefix(12))")
        #expect(probe.state?.velocity == 0)
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }

    /// The keyboard rises over a resting list (the container 800 → 460 pt, offset and content as
    /// they were), stays, and goes. The rows it covers are just ahead of the screen: kept, not
    /// let go and asked for again.
    @Test func theKeyboardCoveringAndUncoveringTheListChurnsNothing() throws {
        let probe = try Probe()
        probe.rest(at: 20_000)
        let before = probe.requested
        #expect(before.isSuperset(of: 200...207))
        let start = probe.held.count
        for step in 1...10 {   // the keyboard's animation, 0.25 s
            probe.viewport = 800 - 34 * Double(step)
            probe.geometry()
        }
        probe.advance(2)
        #expect(probe.isVisible(203) && !probe.isVisible(206), "the screen is rows 200-204 while the keyboard is up")
        for step in 1...10 {
            probe.viewport = 460 + 34 * Double(step)
            probe.geometry()
        }
        probe.advance(1)
        probe.geometry()
        #expect(probe.churned(from: start).isEmpty, "\(probe.churned(from: start).sorted())")
        #expect(probe.requested.isSuperset(of: 200...207))
        #expect(probe.state?.velocity == 0, "a change of the container's length is no motion")
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }

    /// `scrollPosition(id:)` set without animation (a "back to where you were" restore): one
    /// geometry change from row 0 to row 500, nothing in between.
    @Test func aJumpToASavedPositionPlansTheDestinationOnly() throws {
        let probe = try Probe()
        probe.advance(3)
        probe.offset = 50_000
        probe.geometry()
        #expect((500...507).allSatisfy(probe.isVisible))
        #expect(probe.requested.allSatisfy { $0 < 8 || $0 >= 490 }, "only the destination and around it: \(probe.requested.sorted())")
        #expect(probe.state?.velocity == 0, "a jump is no motion: \(String(describing: probe.state))")
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }

    /// A swipe deletes row 203 of the screen (rows 200-207) at rest: the modifier's rows lose it,
    /// then the geometry follows with the content 100 pt shorter and the offset where it was.
    @Test func aRowDeletedOnScreenBringsTheNextOneOnScreenAndMovesNothingElse() throws {
        let probe = try Probe()
        probe.rest(at: 20_000)
        #expect(!probe.isVisible(208))
        let start = probe.held.count
        probe.prefetcher.layoutChanged(items: (0..<1_000).filter { $0 != 203 }, rowLength: 100)
        probe.content -= 100
        probe.geometry()
        #expect(probe.isVisible(208), "row 208 moved up onto the screen")
        #expect(!probe.requested.contains(203))
        #expect(probe.state?.velocity == 0)
        #expect(probe.churned(from: start).isEmpty, "\(probe.churned(from: start).sorted())")
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }

    /// Rows of different heights, measured, and the device turns: the container goes from 800 to
    /// 390 pt, every row's height changes (text rewraps), SwiftUI reports the new heights, the new
    /// content length and an offset that keeps the top row in place.
    @Test func aRotationWithMeasuredRowsPlansTheRowsThatAreOnScreenAfterIt() throws {
        let probe = try Probe(rows: 0..<200)
        // Portrait: row i is 100 + (i % 3) * 50 pt tall
        func portrait(_ i: Int) -> Double { 100 + Double(i % 3) * 50 }
        func landscape(_ i: Int) -> Double { 60 + Double(i % 3) * 20 }
        for i in 0..<200 { probe.prefetcher.rowMeasured(i, length: portrait(i)) }
        probe.content = (0..<200).map(portrait).reduce(0, +)
        probe.offset = (0..<60).map(portrait).reduce(0, +)   // row 60 at the top
        probe.geometry(after: 1)
        #expect(probe.isVisible(60))
        // When it turns: new heights, then the geometry
        for i in 0..<200 { probe.prefetcher.rowMeasured(i, length: landscape(i)) }
        probe.viewport = 390
        probe.content = (0..<200).map(landscape).reduce(0, +)
        probe.offset = (0..<60).map(landscape).reduce(0, +)
        probe.geometry()
        // Then the controller's visible rows are the rows on screen now: 60 to the last that starts
        // above 390 pt below row 60's top
        var onScreen: [Int] = [], y = 0.0
        for i in 60..<200 where y < 390 { onScreen.append(i); y += landscape(i) }
        let visible = (40..<120).filter(probe.isVisible)
        #expect(visible == onScreen, "visible \(visible), on screen \(onScreen)")
        #expect(probe.state?.velocity == 0, "a rotation is no motion")
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }

    /// `ScrollViewReader.scrollTo` with animation, caught by the finger half-way: the phase goes
    /// from `.animating` to `.interacting` (dragging), and the drag is read from the finger.
    @Test func aDragThatCatchesAProgrammaticScrollIsReadFromTheFinger() throws {
        let probe = try Probe()
        probe.advance(1)
        probe.phase(.animating)
        for step in 1...8 {   // the animation's frames, 1,500 pt each
            probe.offset = Double(step) * 1_500
            probe.geometry()
        }
        probe.phase(.dragging)
        for _ in 0..<20 {   // the finger drags on at 600 pt/s
            probe.offset += 10
            probe.geometry()
        }
        let state = try #require(probe.state)
        #expect(state.phase == .dragging)
        #expect(abs(state.velocity - 600) <= 30, "the finger's speed, not the animation's: \(state.velocity)")
        #expect((122...129).allSatisfy(probe.isVisible), "the screen where the finger holds it (12,200 pt: rows 122-129)")
        probe.phase(.idle)
        #expect(probe.state?.phase == .idle)
        #expect(probe.problems.isEmpty, "\(probe.problems)")
        probe.fetcher.shutdown()
    }
}
