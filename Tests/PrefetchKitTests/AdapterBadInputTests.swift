import Foundation
import PrefetchTesting
import Testing
@testable import PrefetchKit

/// Bad numbers at the adapter's inputs (issue #24): a row length of 1e-300, offsets of 1e300,
/// NaN and infinite values, negative lengths, a column count of `Int.max`. None may trap; where the
/// call returns errors, the error names the value. The tests marked "fuzz" replay what
/// `Fuzz/run 60 FuzzScrollAdapter` found, as calls.
@Suite("Adapter bad input")
struct AdapterBadInputTests {
    private func adapter() -> (ScrollAdapter<Int>, RecordingPrefetchTarget<Int>) {
        let target = RecordingPrefetchTarget<Int>()
        return (ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.uikitLike, target: target)), target)
    }

    private func frame(_ time: Double, at offset: Double, viewport: Double = 800, content: Double,
                       leadingInset: Double = 0, trailingInset: Double = 0,
                       motion: ScrollTracker.Motion = .idle) -> ScrollTracker.Frame {
        ScrollTracker.Frame(time: time, offset: offset, viewportLength: viewport, contentLength: content,
                            leadingInset: leadingInset, trailingInset: trailingInset, motion: motion)
    }

    private func items(meeting range: Range<Double>, in geometry: UniformRowsGeometry<Int>) -> [Int] {
        var found: [Int] = []
        geometry.forEachItem(meeting: range) { item, _ in found.append(item) }
        return found
    }

    // MARK: UniformRowsGeometry

    @Test func aTinyRowLengthPutsEveryRowOnScreenInsteadOfTrapping() {
        // 1,000 rows of 1e-300 pt: a range of 800 pt is 8e302 rows, far past Int.max
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 1e-300)
        #expect(items(meeting: 0..<800, in: rows) == Array(0..<1_000))
        #expect(items(meeting: 1..<800, in: rows).isEmpty)
        // and through the adapter, on content the toolkit says is 10,000 pt long
        let (adapter, target) = adapter()
        #expect(adapter.frame(frame(0, at: 0, content: 10_000), geometry: rows) == nil)
        #expect(target.requested.count == 1_000)
        #expect(target.requested.values.allSatisfy { $0.level == .visible })
    }

    @Test(arguments: [1e300, -1e300, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude])
    func aHugeFiniteRangeFindsNoRowsInsteadOfTrapping(far: Double) {
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 100, spacing: 8, leadingPadding: 20)
        let range = far > 0 ? far..<Double.greatestFiniteMagnitude : -Double.greatestFiniteMagnitude..<far
        #expect(items(meeting: range, in: rows).isEmpty)
        // A range from far before the content to just past row 1 finds rows 0 and 1
        #expect(items(meeting: -Double.greatestFiniteMagnitude..<130, in: rows) == [0, 1])
        #expect(items(meeting: 900..<Double.greatestFiniteMagnitude, in: rows).count == 1_000 - 8)
    }

    @Test func aViewportFarPastTheRowsPlansNothingInsteadOfTrapping() {
        // 1e21 / 100 pt is 1e19 rows, past Int.max (a viewport of a million points, so that
        // 1e21 + its length is another number)
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 100)
        let (adapter, target) = adapter()
        #expect(adapter.frame(frame(0, at: 0, viewport: 1e6, content: 2e21), geometry: rows) == nil)
        #expect(target.requested.count == 1_000)
        // The content says it is 2e21 long; the viewport jumps to 1e21, past every row
        #expect(adapter.frame(frame(1, at: 1e21, viewport: 1e6, content: 2e21), geometry: rows) == nil)
        #expect(target.requested.isEmpty)
        #expect(adapter.frame(frame(2, at: 1e21, viewport: 1e6, content: 2e21, motion: .dragging), geometry: rows) == nil)
        #expect(adapter.frame(frame(3, at: 0, viewport: 1e6, content: 2e21, motion: .dragging), geometry: rows) == nil)
        #expect(target.requested.count == 1_000)
    }

    @Test(arguments: [Int.max, Int.max - 1, 1 << 62])
    func anEnormousColumnCountIsOneRow(columns: Int) {
        let rows = UniformRowsGeometry(items: Array(0..<10), rowLength: 100, columns: columns, leadingPadding: 20)
        #expect(rows.contentLength == 120)
        #expect(items(meeting: 0..<50, in: rows) == Array(0..<10))
        #expect(rows.extent(of: 9) == 20..<120)
        let (adapter, target) = adapter()
        #expect(adapter.frame(frame(0, at: 0, content: rows.contentLength), geometry: rows) == nil)
        #expect(Set(target.requested.keys) == Set(0..<10))
    }

    @Test func rowsWhosePitchOverflowsLieAtInfinityAndTheFirstRowStaysPut() {
        // rowLength + spacing is infinite: row 0 starts at the padding, row 1 at infinity
        let rows = UniformRowsGeometry(items: [7, 8], rowLength: .greatestFiniteMagnitude, spacing: .greatestFiniteMagnitude,
                                       leadingPadding: 10)
        #expect(rows.extent(of: 7) == 10..<Double.greatestFiniteMagnitude)
        #expect(rows.extent(of: 8) == nil)
        #expect(items(meeting: 0..<100, in: rows) == [7])
        #expect(items(meeting: -Double.greatestFiniteMagnitude..<Double.greatestFiniteMagnitude, in: rows) == [7])
        let (adapter, target) = adapter()
        #expect(adapter.frame(frame(0, at: 0, content: 1_000), geometry: rows) == nil)
        #expect(Set(target.requested.keys) == [7])
    }

    @Test(arguments: [Double.nan, -.nan, .infinity, -.infinity, -100, -0.0, -.leastNonzeroMagnitude])
    func unusableLengthsCountAsZero(value: Double) {
        let rows = UniformRowsGeometry(items: Array(0..<10), rowLength: value, columns: -3, spacing: value, leadingPadding: value)
        #expect(rows.rowLength == 0 && rows.spacing == 0 && rows.leadingPadding == 0 && rows.columns == 1)
        #expect(rows.extent(of: 3) == nil)
        #expect(items(meeting: 0..<1_000, in: rows).isEmpty)
        let spaced = UniformRowsGeometry(items: Array(0..<10), rowLength: 100, spacing: value, leadingPadding: value)
        #expect(spaced.extent(of: 3) == 300..<400)
        #expect(spaced.contentLength == 1_000)
    }

    // MARK: PrefetchController

    /// fuzz: a state at time -infinity after one at 4.25 tripped the time-order precondition
    /// before the state was validated; an invalid state plans nothing instead.
    @Test func aStateAtMinusInfinityPlansNothingInsteadOfTrapping() {
        let target = RecordingPrefetchTarget<Int>()
        let controller = PrefetchController<Int>(policy: PrefetchPolicies.uikitLike, target: target)
        let rows = Rows(count: 100, height: 100)
        controller.update(PrefetchKitTests.frame(4.25, at: 0), geometry: rows)
        #expect(!target.requested.isEmpty)
        for time in [-Double.infinity, .nan, .infinity] {
            var state = PrefetchKitTests.frame(4.25, at: 0)
            state.seconds = time
            #expect((try? state.validate()) == nil)
            controller.update(state, geometry: rows)
            #expect(target.requested.isEmpty)
        }
        controller.update(PrefetchKitTests.frame(4.5, at: 0), geometry: rows)
        #expect(!target.requested.isEmpty)
    }

    @Test(arguments: [PrefetchPolicies.uikitLike as any PrefetchPolicy, PrefetchPolicies.textureLike, PrefetchPolicies.adaptive])
    func extremeViewportsAndContentLengthsPlanWithoutTrapping(policy: any PrefetchPolicy) {
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 100, columns: 3, spacing: 4)
        let big = Double.greatestFiniteMagnitude
        let viewports: [Range<Double>] = [0..<1e-300, 0..<Double.leastNonzeroMagnitude, -big..<big, -1e308..<1e308, 0..<big,
                                          1e300..<2e300, -1e300..<(-1e299), 50..<(50 + 1e-13), 0..<800]
        let contents: [Double] = [.leastNonzeroMagnitude, 1e-300, 1, 1e300, big, rows.contentLength]
        let phases: [MotionPhase] = [.idle, .dragging, .decelerating(restingOffset: 1e300, rate: 0.998),
                                     .decelerating(restingOffset: -big, rate: .leastNonzeroMagnitude),
                                     .decelerating(restingOffset: 5_000, rate: 1 - .ulpOfOne / 2),
                                     .programmatic(targetOffset: big, duration: .seconds(Int64.max)), .programmatic(targetOffset: 300, duration: .zero)]
        let target = RecordingPrefetchTarget<Int>()
        target.expectedLatency = .seconds(Int64.max)
        let controller = PrefetchController<Int>(policy: policy, target: target)
        var time = 0.0
        for viewport in viewports {
            for content in contents {
                for phase in phases {
                    for velocity in [0, 1e-300, -1e300, big] {
                        time += 1
                        controller.update(ScrollState(seconds: time, viewport: viewport, contentLength: content, velocity: velocity,
                                                      phase: phase), geometry: rows)
                        #expect(target.requested.values.allSatisfy { !$0.order.isNaN })
                        _ = controller.priority(for: 5, extent: -big..<big)
                    }
                }
            }
        }
        controller.update(ScrollState(seconds: time + 1, viewport: 0..<800, contentLength: rows.contentLength), geometry: rows)
        #expect(target.requested[0]?.level == .visible)
    }

    // MARK: ScrollTranslation and the adapter's gesture calls

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteInsetOrLengthGivesAScrollableRangeWithoutNaN(value: Double) {
        for range in [
            ScrollTranslation.scrollableRange(contentLength: 1_000, viewportLength: 300, leadingInset: value, trailingInset: 0),
            ScrollTranslation.scrollableRange(contentLength: 1_000, viewportLength: 300, leadingInset: 0, trailingInset: value),
            ScrollTranslation.scrollableRange(contentLength: value, viewportLength: value, leadingInset: value, trailingInset: value),
        ] {
            #expect(range.lowerBound.isFinite)
            #expect(!range.upperBound.isNaN)
        }
        #expect(ScrollTranslation.scrollableRange(contentLength: 1_000, viewportLength: 300, leadingInset: value) == 0...700)
    }

    /// fuzz: `pageScroll` from a frame whose leading inset is NaN built the range NaN...NaN and trapped.
    @Test func aPageScrollFromAFrameWithANaNInsetDoesNotTrap() {
        let (adapter, _) = adapter()
        let destination = adapter.pageScroll(.forward, from: frame(0, at: 100, viewport: 300, content: 1_000, leadingInset: .nan))
        #expect(destination == 400)
        #expect(adapter.pageScroll(.backward, from: frame(0, at: 100, viewport: 300, content: 1_000, trailingInset: -.nan)) == 0)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aLiftFromAFrameWithABadInsetOrLengthIsReportedByName(value: Double) {
        let (adapter, _) = adapter()
        let inset = adapter.fingerLifted(at: frame(0, at: 100, viewport: 300, content: 1_000, leadingInset: value),
                                         velocity: 500, targetOffset: nil)
        #expect(inset?.code == .invalidArgument)
        #expect(inset?.message == "scroll frame insets \(value), 0.0 must be finite")
        let content = adapter.fingerLifted(at: frame(0, at: 100, viewport: 300, content: value), velocity: 500, targetOffset: nil)
        #expect(content?.message == "scroll frame content length \(value) must be finite and at least 0")
        let viewport = adapter.fingerLifted(at: frame(0, at: 100, viewport: value, content: 1_000), velocity: 500, targetOffset: nil)
        #expect(viewport?.message.hasPrefix("scroll frame viewport length \(value) must be finite and greater than 0") == true)
    }

    /// An animation to NaN or infinity, or one that never ends, made every frame a state the
    /// controller refuses: nothing was planned until a finger touched down. It is ignored now (a
    /// duration that never ends counts as the default).
    @Test(arguments: [(Double.nan, 0.3), (.infinity, 0.3), (-.infinity, 0.3), (500, .infinity), (500, .nan), (500, 1e308)])
    func anAnimationToNowhereOrForeverLeavesThePlanAlone(target: Double, duration: Double) {
        let (adapter, target_) = adapter()
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 100)
        #expect(adapter.frame(frame(0, at: 0, content: 100_000), geometry: rows) == nil)
        adapter.willAnimate(to: target, at: 0.5, duration: duration)
        #expect(adapter.frame(frame(0.6, at: 0, content: 100_000), geometry: rows) == nil)
        #expect(target_.requested[0] != nil)
        #expect(adapter.frame(frame(10, at: 0, content: 100_000), geometry: rows) == nil)
        #expect(target_.requested[0] != nil)
    }

    @Test func aFlingThatWouldRestAtInfinityIsRefusedByName() throws {
        // The content and its trailing inset add up to infinity, and the velocity projects past it
        // (at a rate just below 1, 1e308 points per second coast 1e320 points)
        let rate = 0.999999999999999
        #expect(throws: PrefetchError.self) {
            try ScrollTranslation.decelerationPhase(offset: 0, velocity: 1e308, targetOffset: nil, rate: rate,
                                                    range: 0...Double.infinity)
        }
        let (adapter, target) = adapter()
        let rows = UniformRowsGeometry(items: Array(0..<1_000), rowLength: 100)
        let start = frame(0, at: 0, content: 1e308, trailingInset: 1e308, motion: .decelerating)
        #expect(adapter.frame(start, geometry: rows) == nil)
        let problem = adapter.fingerLifted(at: start, velocity: 1e308, targetOffset: nil, rate: rate)
        #expect(problem?.message == "the fling from offset 0.0 at 1e+308 points per second and rate 0.999999999999999 comes to rest at inf, which is not finite (scrollable range 0.0...inf)")
        // The frames go on as before: the rows on screen stay requested
        #expect(adapter.frame(frame(0.016, at: 10, content: 1e308, trailingInset: 1e308, motion: .decelerating), geometry: rows) == nil)
        #expect(target.requested[0] != nil)
    }
}
