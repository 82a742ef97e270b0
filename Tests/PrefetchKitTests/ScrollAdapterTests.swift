import Foundation
import PrefetchTesting
import Testing
@testable import PrefetchKit

// The portable half of the Apple adapters: every translation and decision `PrefetchUIKit` and
// `PrefetchSwiftUI` make, checked here with hand-computed values (those modules are not compiled
// on Linux).

private func message(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch { return (error as? PrefetchError)?.message }
}

@Suite("ScrollTranslation")
struct ScrollTranslationTests {
    @Test func uikitsVelocityIsPointsPerMillisecond() throws {
        // scrollViewWillEndDragging reports points per millisecond: 2.5 pt/ms is 2,500 pt/s
        #expect(try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: 2.5) == 2_500)
        #expect(try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: -0.75) == -750)
        #expect(try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: 0) == 0)
        // A gesture's velocity is already points per second
        #expect(try ScrollTranslation.checkedPointsPerSecond(-3_000) == -3_000)
    }

    @Test func velocitiesInTheWrongUnitAreRefusedWithTheValueNamed() {
        // 3,000 pt/s handed over as pt/ms would be 3,000,000 pt/s: no finger does that
        #expect(message { _ = try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: 3_000) }
            == "scroll velocity 3000.0 points per millisecond is 3000000.0 points per second, faster than 100000.0: was a velocity in points per second passed as points per millisecond?")
        // 100 pt/ms is the limit, taken at face value
        #expect(message { _ = try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: 100) } == nil)
        #expect(message { _ = try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: .nan) }
            == "scroll velocity nan points per millisecond must be finite")
        #expect(message { _ = try ScrollTranslation.checkedPointsPerSecond(.infinity) }
            == "scroll velocity inf points per second must be finite and at most 100000.0 in size")
        #expect(message { _ = try ScrollTranslation.checkedPointsPerSecond(250_000) } != nil)
    }

    @Test func theScrollableRangeIncludesTheInsets() {
        // 10,000 pt of content, a 600 pt viewport, 20 pt inset above and 34 below: −20 … 9,434
        #expect(ScrollTranslation.scrollableRange(contentLength: 10_000, viewportLength: 600, leadingInset: 20, trailingInset: 34)
            == -20...9_434)
        // Content shorter than the viewport cannot scroll
        #expect(ScrollTranslation.scrollableRange(contentLength: 300, viewportLength: 600) == 0...0)
    }

    @Test func theTargetOffsetIsTheRestingOffsetClampedToTheContent() throws {
        let range = 0.0...9_400
        #expect(try ScrollTranslation.decelerationPhase(offset: 1_000, velocity: 2_000, targetOffset: 2_400, rate: 0.998, range: range)
            == .decelerating(restingOffset: 2_400, rate: 0.998))
        // A target past the end rests at the end, one before the start at the start (with its inset)
        #expect(try ScrollTranslation.decelerationPhase(offset: 9_000, velocity: 5_000, targetOffset: 12_000, rate: 0.99, range: range)
            == .decelerating(restingOffset: 9_400, rate: 0.99))
        #expect(try ScrollTranslation.decelerationPhase(offset: 100, velocity: -900, targetOffset: -50, rate: 0.998, range: -20...9_400)
            == .decelerating(restingOffset: -20, rate: 0.998))
        // A target where the view is: it does not move
        #expect(try ScrollTranslation.decelerationPhase(offset: 700, velocity: 0, targetOffset: 700, rate: 0.998, range: range) == .idle)
    }

    @Test(arguments: [nil, Double.nan, .infinity, -.infinity])
    func aMissingTargetIsProjectedFromTheVelocity(target: Double?) throws {
        // 6,006 pt/s at 0.998: 6.006 / −ln(0.998) = 6.006 / 0.00200200267 = 2,999.996 pt further on
        let phase = try ScrollTranslation.decelerationPhase(offset: 0, velocity: 6_006, targetOffset: target, rate: 0.998, range: 0...50_000)
        guard case let .decelerating(rest, rate) = phase else { Issue.record("\(phase)"); return }
        #expect(abs(rest - 2_999.996) < 1e-3)
        #expect(rate == 0.998)
        // 1,000 pt/s upward at the fast rate 0.99: 1 / −ln(0.99) = 99.499 pt back, from 500 to 400.501
        let up = try ScrollTranslation.decelerationPhase(offset: 500, velocity: -1_000, targetOffset: target, rate: 0.99, range: 0...50_000)
        guard case let .decelerating(upRest, _) = up else { Issue.record("\(up)"); return }
        #expect(abs(upRest - 400.501) < 1e-3)
        // No velocity, no target: the view rests
        #expect(try ScrollTranslation.decelerationPhase(offset: 0, velocity: 0, targetOffset: target, rate: 0.998, range: 0...50_000) == .idle)
    }

    @Test func badRatesAndValuesAreRefusedWithTheValueNamed() {
        for rate in [0, 1, 1.5, -0.2, .nan] {
            #expect(message { _ = try ScrollTranslation.decelerationPhase(offset: 0, velocity: 10, targetOffset: 5, rate: rate, range: 0...100) }
                == "deceleration rate \(rate) must lie strictly between 0 and 1 (UIKit's normal rate is 0.998)")
        }
        #expect(message { _ = try ScrollTranslation.decelerationPhase(offset: .nan, velocity: 10, targetOffset: 5, rate: 0.998, range: 0...100) }
            == "content offset nan must be finite")
        #expect(message { _ = try ScrollTranslation.decelerationPhase(offset: 0, velocity: .infinity, targetOffset: nil, rate: 0.998, range: 0...100) }
            == "scroll velocity inf must be finite")
    }

    @Test func aPageScrollGoesOneViewportLessTheOverlapAndStopsAtTheEnds() {
        let range = 0.0...9_400
        // 600 pt viewport, 40 pt kept in view: 560 pt a page
        #expect(ScrollTranslation.pageDestination(from: 1_000, direction: .forward, viewportLength: 600, overlap: 40, range: range) == 1_560)
        #expect(ScrollTranslation.pageDestination(from: 1_000, direction: .backward, viewportLength: 600, overlap: 40, range: range) == 440)
        #expect(ScrollTranslation.pageDestination(from: 9_200, direction: .forward, viewportLength: 600, range: range) == 9_400)
        #expect(ScrollTranslation.pageDestination(from: 100, direction: .backward, viewportLength: 600, range: range) == 0)
        // An overlap larger than the viewport does not scroll backwards
        #expect(ScrollTranslation.pageDestination(from: 1_000, direction: .forward, viewportLength: 600, overlap: 900, range: range) == 1_000)
    }
}

@Suite("ScrollTracker")
struct ScrollTrackerTests {
    private func frame(_ time: Double, _ offset: Double, _ motion: ScrollTracker.Motion, viewport: Double = 600) -> ScrollTracker.Frame {
        ScrollTracker.Frame(time: time, offset: offset, viewportLength: viewport, contentLength: 10_000, motion: motion)
    }

    @Test func uikitsFlagsBecomeAMotion() {
        #expect(ScrollTracker.Motion(isDragging: true, isDecelerating: false) == .dragging)
        #expect(ScrollTracker.Motion(isDragging: true, isDecelerating: true) == .dragging)
        #expect(ScrollTracker.Motion(isDragging: false, isDecelerating: true) == .decelerating)
        #expect(ScrollTracker.Motion(isDragging: false, isDecelerating: false) == .idle)
    }

    @Test func aDragsVelocityComesFromTheFrames() throws {
        var tracker = ScrollTracker()
        let first = try tracker.frame(frame(0, 0, .dragging))
        #expect(first.velocity == 0)
        #expect(first.phase == .dragging)
        // 50 pt in 0.1 s: 500 pt/s
        let second = try tracker.frame(frame(0.1, 50, .dragging))
        #expect(abs(second.velocity - 500) < 1e-9)
        #expect(second.viewport == 50..<650)
        // A second report in the same instant keeps the velocity
        #expect(abs(try tracker.frame(frame(0.1, 50, .dragging)).velocity - 500) < 1e-9)
    }

    @Test func aLiftedFingerCoastsToTheTargetThenRests() throws {
        var tracker = ScrollTracker()
        _ = try tracker.frame(frame(0, 0, .dragging))
        try tracker.fingerLifted(at: 0.05, offset: 100, velocity: 2_000, targetOffset: 1_800, rate: 0.998, range: 0...9_400)
        let coasting = try tracker.frame(frame(0.1, 180, .decelerating))
        #expect(coasting.phase == .decelerating(restingOffset: 1_800, rate: 0.998))
        #expect(try tracker.frame(frame(0.2, 600, .decelerating)).phase == .decelerating(restingOffset: 1_800, rate: 0.998))
        let rest = try tracker.frame(frame(2, 1_800, .idle))
        #expect(rest.phase == .idle)
        #expect(rest.velocity == 0)
    }

    @Test func coastingWithoutALiftReportIsProjectedFromTheMeasuredVelocity() throws {
        // The toolkit says "decelerating" but gives no target, and the content coasted 96.096 pt in
        // the 0.016 s since the last drag frame. On UIKit's curve x(t) = rest·(1 − e^(kt)),
        // k = 1000·ln 0.998, that puts the rest at 96.096 / (1 − e^(0.016k)) ≈ 3,048.3 (a constant
        // 6,006 pt/s would say 3,096.1: the mean speed over a coasting interval is faster than its
        // end), and the fling keeps that resting offset while it coasts
        var tracker = ScrollTracker()
        _ = try tracker.frame(frame(0, 0, .dragging))
        let first = try tracker.frame(frame(0.016, 96.096, .decelerating))
        guard case let .decelerating(rest, rate) = first.phase else { Issue.record("\(first.phase)"); return }
        #expect(abs(rest - 96.096 / (1 - exp(1_000 * log(0.998) * 0.016))) < 1e-6)
        #expect(abs(rest - 3_048.3) < 0.1)
        #expect(rate == ScrollTranslation.normalDecelerationRate)
        #expect(try tracker.frame(frame(0.032, 180, .decelerating)).phase == first.phase)
    }

    @Test func anAnimationTheAdapterStartedIsProgrammaticUntilItEnds() throws {
        var tracker = ScrollTracker()
        _ = try tracker.frame(frame(1, 1_000, .idle))
        tracker.animating(to: 5_000, at: 1, duration: 0.3)
        // UIKit reports neither dragging nor decelerating during setContentOffset(_:animated:)
        let during = try tracker.frame(frame(1.1, 2_000, .idle))
        guard case let .programmatic(target, remaining) = during.phase else { Issue.record("\(during.phase)"); return }
        #expect(target == 5_000)
        #expect(abs(remaining / .seconds(1) - 0.2) < 1e-9)
        // After its end: at rest
        #expect(try tracker.frame(frame(1.35, 5_000, .idle)).phase == .idle)
    }

    @Test func anAnimationWithoutAKnownDestinationIsAJumpThenHoldsUntilItStops() throws {
        // SwiftUI's scrollTo: "animating", destination unknown; frames 16 ms apart
        var tracker = ScrollTracker()
        _ = try tracker.frame(frame(0, 0, .idle))
        let first = try tracker.frame(frame(0.1, 300, .animating))
        #expect(first.phase == .idle && first.velocity == 0 && !tracker.holdsPlan)
        _ = try tracker.frame(frame(0.116, 900, .animating))
        #expect(tracker.holdsPlan)
        #expect(!tracker.unannouncedAnimationEnded(at: 0.2))
        #expect(tracker.unannouncedAnimationEnded(at: 0.25))
        let rest = try tracker.frame(frame(0.3, 1_200, .idle))
        #expect(rest.phase == .idle && !tracker.holdsPlan)
    }

    @Test func aFingerThatTouchesAgainCancelsTheFlingAndTheAnimation() throws {
        var tracker = ScrollTracker()
        try tracker.fingerLifted(at: 0, offset: 0, velocity: 2_000, targetOffset: 1_800, rate: 0.998, range: 0...9_400)
        #expect(try tracker.frame(frame(0.1, 150, .dragging)).phase == .dragging)
        // The fling is forgotten: coasting again without a lift is projected anew (150 → 150 pt in 0.1 s: rest)
        #expect(try tracker.frame(frame(0.2, 150, .decelerating)).phase == .idle)
        tracker.animating(to: 4_000, at: 0.2)
        #expect(try tracker.frame(frame(0.25, 300, .dragging)).phase == .dragging)
        #expect(try tracker.frame(frame(0.3, 300, .idle)).phase == .idle)
    }

    @Test func badFramesAreRefusedAndLeaveTheTrackerAsItWas() throws {
        var tracker = ScrollTracker()
        _ = try tracker.frame(frame(1, 100, .dragging))
        // A detached scroll view has no size
        #expect(message { _ = try tracker.frame(frame(1.1, 100, .dragging, viewport: 0)) }
            == "scroll frame viewport length 0.0 must be finite and greater than 0 (is the scroll view detached or not laid out yet?)")
        #expect(message { _ = try tracker.frame(frame(0.5, 100, .dragging)) } == "scroll frame time 0.5 is earlier than the previous frame's 1.0")
        #expect(message { _ = try tracker.frame(frame(1.2, .nan, .dragging)) } == "scroll frame offset nan must be finite")
        #expect(message {
            _ = try tracker.frame(ScrollTracker.Frame(time: 1.2, offset: 0, viewportLength: 600, contentLength: -1, motion: .idle))
        } == "scroll frame content length -1.0 must be finite and at least 0")
        // The next good frame measures from the last good one: 100 pt in 0.2 s
        #expect(abs(try tracker.frame(frame(1.2, 200, .dragging)).velocity - 500) < 1e-9)
    }
}

/// A grid of two columns, rows 100 pt high, reported the way UIKit's layout reports it: not in
/// order, one cell twice, and a supplementary-like empty frame.
private struct FakeLayout {
    var count: Int

    func extent(_ path: IndexPath) -> Range<Double>? {
        guard path.count == 2, path[0] == 0, (0..<count).contains(path[1]) else { return nil }
        let top = Double(path[1] / 2) * 100
        return top..<(top + 100)
    }

    func frames(in range: Range<Double>) -> [(IndexPath, Range<Double>)] {
        var result: [(IndexPath, Range<Double>)] = []
        for item in 0..<count {
            let path = IndexPath(indexes: [0, item])
            let extent = extent(path)!
            if extent.lowerBound <= range.upperBound && range.lowerBound <= extent.upperBound { result.append((path, extent)) }
        }
        result.reverse()
        if let first = result.last { result.append(first) }
        result.append((IndexPath(indexes: [0, 0]), 50..<50))
        return result
    }

    func geometry<Item>(_ lookup: ItemLookup<Item>) -> LayoutScrollGeometry<Item> {
        LayoutScrollGeometry(lookup: lookup, frames: frames(in:), frame: extent)
    }
}

@Suite("LayoutScrollGeometry and ItemLookup")
struct LayoutScrollGeometryTests {
    @Test func itemsComeInAxisOrderOnceEachAndOnlyWhenTheyMeetTheRange() {
        let ids = ["a", "b", "c", "d", "e", "f", "g", "h"]
        let geometry = FakeLayout(count: 8).geometry(ItemLookup(identifiers: ids))
        // 100..<300 meets rows 1 and 2 (items 2–5); rows 0 and 3 only touch it
        #expect(geometry.items(meeting: 100..<300) == ["c", "d", "e", "f"])
        #expect(geometry.extent(of: "e") == 200..<300)
        #expect(geometry.extent(of: "z") == nil)
    }

    @Test func indexPathsThatNoLongerNameAnItemAreSkipped() {
        // Item "f" was removed mid-scroll; the layout still has 8 cells, the data 7 ids
        let ids = ["a", "b", "c", "d", "e", "g", "h"]
        let geometry = FakeLayout(count: 8).geometry(ItemLookup(identifiers: ids))
        // Row 3 holds [0, 6] and [0, 7]: [0, 6] names "h" now, [0, 7] names nothing and is skipped
        #expect(geometry.items(meeting: 300..<400) == ["h"])
        #expect(geometry.extent(of: "f") == nil)
    }

    @Test func uniformRowsPlaceAGridsItemsRowByRow() {
        // 7 items, 3 to a row, rows 88 pt with 8 pt gaps after a 20 pt header: row k spans
        // 20 + 96k ..< 108 + 96k, so rows 0–2 are 20..<108, 116..<204, 212..<300
        let grid = UniformRowsGeometry(items: Array(0..<7), rowLength: 88, columns: 3, spacing: 8, leadingPadding: 20)
        #expect(grid.contentLength == 300)
        #expect(grid.extent(of: 4) == 116..<204)
        #expect(grid.extent(of: 6) == 212..<300)
        #expect(grid.extent(of: 9) == nil)
        // The gap between rows 0 and 1 holds nothing; a range across it meets both rows
        #expect(grid.items(meeting: 108..<116).isEmpty)
        #expect(grid.items(meeting: 100..<120) == [0, 1, 2, 3, 4, 5])
        #expect(grid.items(meeting: 250..<1_000) == [6])
        #expect(grid.items(meeting: -50..<20).isEmpty)
        // Unusable lengths place nothing
        #expect(UniformRowsGeometry(items: [1, 2], rowLength: .nan).items(meeting: 0..<100).isEmpty)
        #expect(UniformRowsGeometry(items: [1, 2], rowLength: .nan).extent(of: 1) == nil)
        #expect(UniformRowsGeometry<Int>(items: [], rowLength: 50, leadingPadding: 10).contentLength == 10)
    }

    @Test func lookupsAnswerBothWays() {
        let lookup = ItemLookup(identifiers: [10, 20, 10, 30], section: 1)
        #expect(lookup.item(IndexPath(indexes: [1, 3])) == 30)
        #expect(lookup.item(IndexPath(indexes: [0, 3])) == nil)       // another section
        #expect(lookup.item(IndexPath(indexes: [1, 4])) == nil)       // past the end
        #expect(lookup.item(IndexPath(indexes: [1])) == nil)          // not an item's index path
        #expect(lookup.indexPath(10) == IndexPath(indexes: [1, 0]))   // the first of two
        #expect(lookup.indexPath(40) == nil)
        let paths = ItemLookup<IndexPath>.indexPaths
        #expect(paths.item(IndexPath(indexes: [2, 5])) == IndexPath(indexes: [2, 5]))
    }
}

@Suite("RowAdmission")
struct RowAdmissionTests {
    @Test func aRowStartsAtTheControllersPriorityOrAfterItsDwell() {
        let admission = RowAdmission(dwell: 0.1)
        let held = FetchPriority(level: .prefetch, order: 0.66)
        #expect(admission.decision(requested: held, appearedAt: 5, now: 5) == .start(held))
        #expect(admission.decision(requested: .visible, appearedAt: 5, now: 5) == .start(.visible))
        // A fly-past waits for the next frame, however long it has been on screen
        let flyPast = FetchPriority(level: .speculative, order: 0.6)
        #expect(admission.decision(requested: flyPast, appearedAt: 5, now: 5) == .wait(until: nil))
        #expect(admission.decision(requested: flyPast, appearedAt: 5, now: 9) == .wait(until: nil))
        // Not held: it waits 0.1 s, then starts as visible
        #expect(admission.decision(requested: nil, appearedAt: 5, now: 5.016) == .wait(until: 5.1))
        #expect(admission.decision(requested: nil, appearedAt: 5, now: 5.1) == .start(.visible))
        #expect(RowAdmission(dwell: -3).dwell == 0)
        #expect(RowAdmission(dwell: .nan).dwell == 0)
    }

    @Test func aRowThatAFlingCarriesPastStartsNoWorkOfItsOwn() {
        // Given the controller's fling from 0 to 3,000 (rows 100 pt, viewport 300): row 24 is on
        // screen from 0.601 s to 0.895 s, less than a 300 ms load (a fly-past); row 25 stays
        let target = RecordingTarget<Int>()
        let adapter = ScrollAdapter(controller: PrefetchController<Int>(policy: FixedPolicy(regions: [300..<3_300]), target: target))
        let start = ScrollTracker.Frame(time: 0, offset: 0, viewportLength: 300, contentLength: 10_000, motion: .decelerating)
        #expect(adapter.fingerLifted(at: start, velocity: 6_006, targetOffset: 3_000) == nil)
        #expect(adapter.frame(start, geometry: Rows(count: 100, height: 100)) == nil)
        // When row 24 appears for a frame, it waits; row 25 starts at the controller's priority
        #expect(adapter.rowDecision(for: 24, appearedAt: 0.61, now: 0.61) == .wait(until: nil))
        guard case let .start(priority) = adapter.rowDecision(for: 25, appearedAt: 0.67, now: 0.67) else {
            Issue.record("row 25 should start"); return
        }
        #expect(priority.level == .prefetch)
        #expect(abs(priority.order - 0.6602) < 1e-3)
        // A row far outside the plan (row 90) waits its dwell
        #expect(adapter.rowDecision(for: 90, appearedAt: 0.5, now: 0.5) == .wait(until: 0.6))
    }
}

@Suite("ScrollAdapter")
struct ScrollAdapterTests {
    private func makeFetcher(cap: Int = 6) throws -> (AsyncFetcher<Int, Int>, ScriptedLoader<Int, Int>) {
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(
            configuration: FetcherConfiguration(maxConcurrentLoads: cap), clock: ManualClock(), loader: loader)
        return (fetcher, loader)
    }

    /// A list of rows 100 pt high whose items are model ids.
    private func geometry(_ ids: [Int]) -> LayoutScrollGeometry<Int> {
        let lookup = ItemLookup(identifiers: ids)
        return LayoutScrollGeometry(
            lookup: lookup,
            frames: { range in
                let first = max(0, Int((range.lowerBound / 100).rounded(.down)))
                let last = min(ids.count - 1, Int((range.upperBound / 100).rounded(.up)))
                guard first <= last else { return [] }
                return (first...last).map { (IndexPath(indexes: [0, $0]), Double($0) * 100..<Double($0 + 1) * 100) }
            },
            frame: { path in ids.indices.contains(path[1]) ? Double(path[1]) * 100..<Double(path[1] + 1) * 100 : nil })
    }

    private func frame(_ time: Double, at offset: Double, count: Int) -> ScrollTracker.Frame {
        ScrollTracker.Frame(time: time, offset: offset, viewportLength: 300, contentLength: Double(count) * 100, motion: .idle)
    }

    @Test func anItemRemovedMidScrollIsWithdrawnAndItsLoadCancelled() async throws {
        // Given rows 0–5 planned (the viewport and 300 pt past it), ids 100–111
        let (fetcher, loader) = try makeFetcher()
        let adapter = ScrollAdapter<Int>(fetcher: fetcher, policy: FixedPolicy(regions: [300..<600])) { $0 }
        var ids = Array(100...111)
        #expect(adapter.frame(frame(0, at: 0, count: ids.count), geometry: geometry(ids)) == nil)
        await loader.waitForCalls(6)
        #expect(Set(loader.calledIDs) == Set(100...105))
        // When id 102 is deleted while the list scrolls (a diffable snapshot applied)
        ids.removeAll { $0 == 102 }
        adapter.dataChanged()
        #expect(adapter.frame(frame(0.1, at: 0, count: ids.count), geometry: geometry(ids)) == nil)
        // Then its load is cancelled, the others go on, and 106 (now row 5) is asked for
        await loader.waitForCancellations(1)
        #expect(loader.cancelledIDs == [102])
        #expect(Set(adapter.controller.requestedItems.map(\.item)) == [100, 101, 103, 104, 105, 106])
        fetcher.shutdown()
    }

    @Test func aStaleIndexPathIsReportedAndAnsweredAsVisible() {
        let target = RecordingTarget<Int>()
        let adapter = ScrollAdapter(controller: PrefetchController<Int>(policy: FixedPolicy(regions: [300..<600]), target: target))
        let ids = Array(100...105)
        adapter.frame(frame(0, at: 0, count: ids.count), geometry: geometry(ids))
        let lookup = ItemLookup(identifiers: ids)
        // Row 1 is on screen and stays: the controller's visible priority, no problem
        let fresh = adapter.priority(at: IndexPath(indexes: [0, 1]), lookup: lookup)
        #expect(fresh.priority.level == .visible)
        #expect(fresh.problem == nil)
        // Row 9 no longer exists after an update
        let stale = adapter.priority(at: IndexPath(indexes: [0, 9]), lookup: lookup)
        #expect(stale.priority == .visible)
        #expect(stale.problem?.message == "index path [0, 9] names no item: it is stale after an update, or out of range")
    }

    @Test func aShutDownFetcherIsReportedAndNothingElseHappens() async throws {
        let (fetcher, loader) = try makeFetcher()
        let adapter = ScrollAdapter<Int>(fetcher: fetcher, policy: FixedPolicy(regions: [300..<600])) { $0 }
        let ids = Array(100...111)
        adapter.frame(frame(0, at: 0, count: ids.count), geometry: geometry(ids))
        await loader.waitForCalls(6)
        // When the app shuts the fetcher down and the view keeps scrolling
        fetcher.shutdown()
        let problem = adapter.frame(frame(0.1, at: 500, count: ids.count), geometry: geometry(ids))
        // Then the adapter says so and changes nothing
        #expect(problem?.code == .shutdown)
        #expect(problem?.message == "the fetcher behind this scroll adapter was shut down; detach the adapter before shutting the fetcher down")
        #expect(Set(adapter.controller.requestedItems.map(\.item)) == Set(100...105))
        #expect(adapter.fingerLifted(at: frame(0.2, at: 500, count: ids.count), velocity: 100, targetOffset: 600)?.code == .shutdown)
        #expect(loader.callCount == 6)
    }

    @Test func badInputIsReportedNotTrapped() {
        let adapter = ScrollAdapter(controller: PrefetchController<Int>(target: RecordingTarget<Int>()))
        let rows = Rows(count: 100, height: 100)
        #expect(adapter.frame(frame(1, at: 0, count: 100), geometry: rows) == nil)
        // A frame from the past would trip the controller's precondition; the adapter refuses it
        #expect(adapter.frame(frame(0.5, at: 0, count: 100), geometry: rows)?.message == "scroll frame time 0.5 is earlier than the previous frame's 1.0")
        #expect(adapter.fingerLifted(at: frame(1.1, at: 0, count: 100), velocity: 100, targetOffset: 600, rate: 1.2)?.message
            == "deceleration rate 1.2 must lie strictly between 0 and 1 (UIKit's normal rate is 0.998)")
    }

    @Test func aPageScrollPlansForItsDestination() {
        // Given a list at rest at 1,000 (rows 10–12 on screen) with uikitLike
        let target = RecordingTarget<Int>()
        let adapter = ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.uikitLike, target: target))
        let rows = Rows(count: 100, height: 100)
        let start = frame(0, at: 1_000, count: 100)
        adapter.frame(start, geometry: rows)
        // At rest, the rows ahead are speculative: the forecast never reaches them
        #expect(target.requested[14]?.level == .speculative)
        // When VoiceOver pages forward: the destination is one viewport on
        #expect(adapter.pageScroll(.forward, from: start) == 1_300)
        adapter.frame(frame(0.05, at: 1_100, count: 100), geometry: rows)
        // Then the rows of the destination (13–15) are what the user asked to see: visible
        #expect(target.requested[14]?.level == .visible)
        #expect(target.requested[15]?.level == .visible)
        #expect(target.requested[13].map { $0.level >= .prefetch } == true)
    }
}
