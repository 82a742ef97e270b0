import Foundation
import PrefetchKit
import PrefetchSwiftUI
import PrefetchTesting
import Testing

// ListPrefetcher driven through its public feeding API only (no @testable import): what an app
// feeding it from its own scroll container, or testing its list on Linux, can call.

@MainActor
@Suite("ListPrefetcher fed without SwiftUI")
struct ListPrefetcherFeedingTests {
    /// The test's clock, in seconds: moving `seconds` forward advances the clock the prefetcher reads.
    @MainActor private final class Timeline {
        let clock = ManualClock()
        var seconds: Double {
            get { clock.now.offset / .seconds(1) }
            set { clock.advance(to: ManualClock.Instant(offset: .seconds(newValue))) }
        }
    }

    private func makePrefetcher(_ timeline: Timeline, scheduled: @escaping @MainActor (@escaping @MainActor () -> Void) -> Void = { _ in })
        throws -> (AsyncFetcher<Int, Int>, ListPrefetcher<Int, Int>)
    {
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(),
                                                 loader: ScriptedLoader<Int, Int>())
        let prefetcher = ListPrefetcher(fetcher: fetcher, clock: timeline.clock, schedule: { _, action in scheduled(action) })
        return (fetcher, prefetcher)
    }

    @Test func aDragThenAFlingIsPlannedAheadAndTheScreenAtRest() throws {
        let timeline = Timeline()
        let (fetcher, prefetcher) = try makePrefetcher(timeline)
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        prefetcher.layoutChanged(items: Array(0..<1_000), rowLength: 92, spacing: 8)
        prefetcher.scrollGeometryChanged(offset: 0, viewportLength: 800, contentLength: 100_000)
        let controller = prefetcher.adapter.controller
        // At rest: the screen's rows (0–7) are held at visible priority.
        #expect(controller.priority(for: 0).level == FetchPriority.visible.level)
        #expect(controller.priority(for: 7).level == FetchPriority.visible.level)
        prefetcher.scrollPhaseChanged(to: .dragging)
        for frame in 1...20 {
            timeline.seconds += 1.0 / 60
            prefetcher.scrollGeometryChanged(offset: Double(frame) * 40, viewportLength: 800, contentLength: 100_000)
        }
        prefetcher.scrollPhaseChanged(to: .decelerating)
        // The fling coasts down: rows below the screen (rows 8–15 show at 800 pt) are requested.
        let requested = Set(controller.requestedItems.map(\.item))
        #expect(requested.contains { $0 > 20 }, "requested \(requested.sorted())")
        prefetcher.scrollPhaseChanged(to: .idle)
        #expect(controller.priority(for: 8).level == FetchPriority.visible.level)
        #expect(problems.isEmpty)
        fetcher.shutdown()
    }

    @Test func aFlickFromRestIsPlannedToWhereItLandsFromItsFirstCoastingFrame() throws {
        // Given a list at rest, row 0 at the top (rows of 100 pt, a 800 pt screen)
        let timeline = Timeline()
        let (fetcher, prefetcher) = try makePrefetcher(timeline)
        prefetcher.layoutChanged(items: Array(0..<1_000), rowLength: 100)
        prefetcher.scrollGeometryChanged(offset: 0, viewportLength: 800, contentLength: 100_000)
        let controller = prefetcher.adapter.controller
        // When a flick starts with no drag frame: SwiftUI reports `.decelerating` with the resting
        // geometry, then coasting frames at about 6,000 pt/s
        prefetcher.scrollPhaseChanged(to: .decelerating)
        for frame in 1...2 {
            timeline.seconds += 1.0 / 60
            prefetcher.scrollGeometryChanged(offset: Double(frame) * 100, viewportLength: 800, contentLength: 100_000)
        }
        // Then the coast is read as a fling to where that speed takes it (thousands of points on),
        // and rows near that landing are requested, not only the rows just below the screen
        let state = try #require(prefetcher.adapter.lastState)
        guard case let .decelerating(resting, _) = state.phase else {
            Issue.record("phase \(state.phase), not a fling")
            return fetcher.shutdown()
        }
        #expect(resting > 3_000, "rests at \(resting)")
        let landing = Int(resting / 100)
        let requested = Set(controller.requestedItems.map(\.item))
        #expect(requested.contains(landing), "landing row \(landing); requested \(requested.sorted())")
        fetcher.shutdown()
    }

    @Test func badLayoutValuesAreReportedAndTheLastLayoutStays() throws {
        let timeline = Timeline()
        let (fetcher, prefetcher) = try makePrefetcher(timeline)
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        prefetcher.layoutChanged(items: Array(0..<100), rowLength: 100)
        prefetcher.scrollGeometryChanged(offset: 0, viewportLength: 400, contentLength: 10_000)
        prefetcher.layoutChanged(items: Array(0..<100), rowLength: -1)
        prefetcher.layoutChanged(items: Array(0..<100), rowLength: 100, columns: 0)
        prefetcher.layoutChanged(items: Array(0..<100), rowLength: 100, spacing: .nan)
        #expect(problems.count == 3)
        #expect(problems.first?.contains("rowLength -1") == true)
        #expect(problems.dropFirst().first?.contains("columns 0") == true)
        // The 100-pt rows stand: row 3 is on the 400-pt screen, row 4 is not.
        #expect(prefetcher.adapter.controller.priority(for: 3).level == FetchPriority.visible.level)
        #expect(prefetcher.adapter.controller.priority(for: 4).level != FetchPriority.visible.level)
        fetcher.shutdown()
    }

    /// 100-pt rows on an 800-pt screen, then ten frames of an animated scroll (SwiftUI's
    /// `.animating`) down to row 50, with nothing saying when it ends.
    private func animateWithNoEnd(_ prefetcher: ListPrefetcher<Int, Int>, _ timeline: Timeline) {
        prefetcher.layoutChanged(items: Array(0..<1_000), rowLength: 100)
        prefetcher.scrollGeometryChanged(offset: 0, viewportLength: 800, contentLength: 100_000)
        prefetcher.scrollPhaseChanged(to: .animating)
        for frame in 1...10 {
            timeline.seconds += 1.0 / 60
            prefetcher.scrollGeometryChanged(offset: Double(frame) * 500, viewportLength: 800, contentLength: 100_000)
        }
    }

    @Test func anAnimationNobodyEndsEndsOnTheGivenSchedule() throws {
        let timeline = Timeline()
        var pending: [@MainActor () -> Void] = []
        let (fetcher, prefetcher) = try makePrefetcher(timeline, scheduled: { pending.append($0) })
        animateWithNoEnd(prefetcher, timeline)
        #expect(pending.count == 1, "the quiet check runs on the schedule the app gave, not on a task of its own")
        // Later than the quiet time with no frame: the check ends the animation and plans the landing at rest.
        timeline.seconds += 0.2
        pending.removeFirst()()
        #expect(prefetcher.adapter.controller.priority(for: 50).level == FetchPriority.visible.level)
        fetcher.shutdown()
    }

    /// With no `schedule:`, the quiet check sleeps on the clock the prefetcher was given: a test on a
    /// `ManualClock` ends an animation nobody ended by advancing that clock past the quiet time.
    @Test func withoutAScheduleTheQuietCheckSleepsOnTheGivenClock() async throws {
        let timeline = Timeline()
        let fetcher = try AsyncFetcher<Int, Int>(clock: ManualClock(), loader: ScriptedLoader<Int, Int>())
        let prefetcher = ListPrefetcher(fetcher: fetcher, clock: timeline.clock)
        animateWithNoEnd(prefetcher, timeline)
        await timeline.clock.waitForSleepers(1)
        let lastFrame = prefetcher.adapter.lastState?.time
        // Less than the quiet time: the check still sleeps, and nothing is planned.
        timeline.seconds += 0.05
        #expect(timeline.clock.sleeperCount == 1)
        #expect(prefetcher.adapter.lastState?.time == lastFrame)
        // Past it: the sleeper wakes, and the prefetcher plans the view at rest where it is, at
        // the clock's time (the check's own frame).
        timeline.seconds += 0.1
        for _ in 0..<1_000 where prefetcher.adapter.lastState?.time == lastFrame { await Task.yield() }
        #expect(prefetcher.adapter.lastState?.time == .seconds(timeline.seconds))
        #expect(prefetcher.adapter.lastState?.phase == .idle)
        #expect(prefetcher.adapter.controller.priority(for: 50).level == FetchPriority.visible.level)
        fetcher.shutdown()
    }

    /// New rows arriving above the screen (a feed's new posts, a chat's older messages): SwiftUI
    /// gives the modifier the new rows, then reports the geometry that goes with them, the content
    /// longer by the rows and the offset moved by as much to keep the user's place.
    @Test func rowsInsertedAboveDuringADragKeepTheRowsOnScreenAndTheFingersSpeed() throws {
        let timeline = Timeline()
        let (fetcher, prefetcher) = try makePrefetcher(timeline)
        let controller = prefetcher.adapter.controller
        prefetcher.layoutChanged(items: Array(0..<1_000), rowLength: 100)
        var (offset, content) = (20_000.0, 100_000.0)
        prefetcher.scrollGeometryChanged(offset: offset, viewportLength: 600, contentLength: content)
        // Given a steady drag at 1,200 pt/s (20 pt a frame)
        prefetcher.scrollPhaseChanged(to: .dragging)
        func frame(by delta: Double) {
            timeline.seconds += 1.0 / 60
            offset += delta
            prefetcher.scrollGeometryChanged(offset: offset, viewportLength: 600, contentLength: content)
        }
        for _ in 0..<30 { frame(by: 20) }
        #expect(abs((prefetcher.adapter.lastState?.velocity ?? 0) - 1_200) < 60)
        let held = Set(controller.requestedItems.map(\.item))
        #expect(held.isSuperset(of: 206...211), "\(held.sorted())")
        // When 50 rows (ids -50 to -1) arrive above: first the rows...
        prefetcher.layoutChanged(items: Array(-50..<1_000), rowLength: 100)
        // ...then nothing is planned at the old offset, where the new rows put other ids...
        #expect(Set(controller.requestedItems.map(\.item)) == held)
        // ...and the frame's geometry, the content 5,000 pt longer and the offset moved with it
        // (and by the finger's 20 pt)
        content += 5_000
        offset += 5_000
        frame(by: 20)
        // Then the rows on screen and ahead are still asked for, nothing above the screen is, and
        // the finger's speed is read on that frame and every one after it, within 5 %
        let after = Set(controller.requestedItems.map(\.item))
        #expect(after.isSuperset(of: held.filter { $0 >= 207 }), "\(held.subtracting(after).sorted())")
        #expect(after.allSatisfy { $0 >= 200 }, "\(after.sorted())")
        var speeds = [prefetcher.adapter.lastState?.velocity ?? 0]
        for _ in 0..<10 {
            frame(by: 20)
            speeds.append(prefetcher.adapter.lastState?.velocity ?? 0)
        }
        #expect(speeds.allSatisfy { abs($0 - 1_200) <= 60 }, "\(speeds)")
        fetcher.shutdown()
    }

    @Test func rowsChangedAtRestArePlannedWithTheGeometryThatFollowsOrAMomentLater() throws {
        let timeline = Timeline()
        var pending: [@MainActor () -> Void] = []
        let (fetcher, prefetcher) = try makePrefetcher(timeline, scheduled: { pending.append($0) })
        let controller = prefetcher.adapter.controller
        prefetcher.layoutChanged(items: Array(0..<1_000), rowLength: 100)
        prefetcher.scrollGeometryChanged(offset: 20_000, viewportLength: 600, contentLength: 100_000)
        timeline.seconds += 0.5
        let held = Set(controller.requestedItems.map(\.item))
        #expect(held.isSuperset(of: 200...205))
        // When 30 rows arrive above and the geometry follows, the offset keeping the place
        prefetcher.layoutChanged(items: Array(-30..<1_000), rowLength: 100)
        prefetcher.scrollGeometryChanged(offset: 23_000, viewportLength: 600, contentLength: 103_000)
        // Then the rows only moved: nothing new is asked for, and the list is still at rest
        #expect(Set(controller.requestedItems.map(\.item)).isSubset(of: held))
        #expect(prefetcher.adapter.lastState?.velocity == 0)
        // When the rows are replaced and the content keeps its length (no geometry follows)
        timeline.seconds += 0.5
        pending.removeAll()
        prefetcher.layoutChanged(items: Array(5_000..<6_030), rowLength: 100)
        // Then nothing is planned at once; a moment later the rows on screen (230-235 of the list) are
        #expect(!controller.requestedItems.contains { $0.item >= 5_000 })
        #expect(pending.count == 1)
        timeline.seconds += 0.02
        pending.removeFirst()()
        #expect(controller.priority(for: 5_230).level == FetchPriority.visible.level)
        fetcher.shutdown()
    }
}
