import Foundation
import PrefetchKit
import PrefetchTesting
@testable import PrefetchUIKit

/// A scroll view that replays UIKit's callback order: rows `rowLength` high, the reading a test
/// sets, and the observers UIKit would call (offset, then bounds, both for one step; content size
/// when the layout grows).
@MainActor
final class ScriptedSurface: ScrollSurface {
    var reading: SurfaceReading?
    var rowLength = 100.0
    var rowCount: Int
    private(set) var animatedTo: [Double] = []
    /// What VoiceOver was told, in order.
    private(set) var announced: [String] = []
    /// The observers' events while registered, and how often they were unregistered.
    private(set) var events: SurfaceEvents?
    private(set) var unregistered = 0
    private(set) var dataPrefetchingStopped = false

    init(offset: Double = 0, viewport: Double = 600, rows: Int = 1_000) {
        rowCount = rows
        reading = SurfaceReading(offset: offset, viewportLength: viewport, contentLength: Double(rows) * 100)
    }

    func reading(along axis: ScrollAxis) -> SurfaceReading? { reading }

    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        guard rowCount > 0 else { return [] }
        let first = max(0, Int((range.lowerBound / rowLength).rounded(.down)))
        let last = min(rowCount - 1, Int((range.upperBound / rowLength).rounded(.up)))
        guard first <= last else { return [] }
        return (first...last).reversed().map { (IndexPath(indexes: [0, $0]), extent(ofRow: $0)) }   // UIKit does not sort
    }

    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        indexPath.count == 2 && (0..<rowCount).contains(indexPath[1]) ? extent(ofRow: indexPath[1]) : nil
    }

    func animateScroll(to offset: Double, along axis: ScrollAxis) { animatedTo.append(offset) }
    func stopDataPrefetching() { dataPrefetchingStopped = true }
    func announcePageScrolled(_ status: String) { announced.append(status) }
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        self.events = events
        return { [weak self] in
            self?.events = nil
            self?.unregistered += 1
        }
    }

    private func extent(ofRow row: Int) -> Range<Double> { Double(row) * rowLength..<Double(row + 1) * rowLength }
}

/// A clock the test moves by hand, in seconds.
@MainActor
final class FrameClock {
    var now = 100.0
}

/// A timer the test fires by hand: it records what a prefetcher schedules (its quiet-time check)
/// and runs it when the test says, after the test moved its clock.
@MainActor
final class ManualTimer {
    private(set) var pending: [(delay: Duration, action: @MainActor () -> Void)] = []

    /// The prefetcher's `schedule` hook.
    func schedule(_ delay: Duration, _ action: @escaping @MainActor () -> Void) { pending.append((delay, action)) }

    /// Runs what is scheduled now (what it schedules in turn waits for the next call).
    func fire() {
        let due = pending
        pending = []
        for entry in due { entry.action() }
    }
}

/// A prefetcher on a scripted surface over a recording target, with everything a test reads.
@MainActor
struct UIKitRig {
    let surface: ScriptedSurface
    let clock = FrameClock()
    let timer = ManualTimer()
    let target = RecordingPrefetchTarget<IndexPath>()
    let prefetcher: ScrollViewPrefetcher<IndexPath>
    var problems: [String] { problemLog.messages }
    private let problemLog = ProblemLog()

    init(surface: ScriptedSurface = ScriptedSurface(), policy: any PrefetchPolicy = PrefetchPolicies.adaptive) {
        self.surface = surface
        let clock = self.clock
        let controller = PrefetchController<IndexPath>(policy: policy, target: target)
        let timer = self.timer
        prefetcher = ScrollViewPrefetcher(surface: surface, lookup: .indexPaths, adapter: ScrollAdapter(controller: controller),
                                          axis: .vertical, now: { clock.now }, schedule: { timer.schedule($0, $1) })
        let log = problemLog
        prefetcher.onProblem = { log.messages.append($0.message) }
    }

    /// What the controller saw at the last frame.
    var state: ScrollState? { prefetcher.adapter.lastState }

    /// One display step of UIKit: the offset moves, then the offset and the bounds observers are
    /// called (the bounds' origin is the offset), a few microseconds apart.
    func step(to offset: Double, after seconds: Double = 1.0 / 60, dragging: Bool = false, decelerating: Bool = false) {
        clock.now += seconds
        surface.reading?.offset = offset
        surface.reading?.isDragging = dragging
        surface.reading?.isDecelerating = decelerating
        surface.events?.changed(false)
        clock.now += 0.000_004
        surface.events?.changed(false)
    }

    /// The content size changed (a batch update, a snapshot applied): its observer is called.
    func contentSizeChanged(rows: Int) {
        surface.rowCount = rows
        surface.reading?.contentLength = Double(rows) * surface.rowLength
        surface.events?.changed(true)
    }
}

@MainActor
final class ProblemLog {
    var messages: [String] = []
}

/// UIKit's deceleration curve: where a fling that leaves `offset` at `velocity` (points per
/// second) is `t` seconds later, at `rate` per millisecond, and where it rests.
func uikitFling(from offset: Double, velocity: Double, rate: Double = 0.998) -> (rest: Double, at: (Double) -> Double) {
    let k = 1_000 * log(rate)
    let rest = offset - velocity / k
    return (rest, { t in rest + (offset - rest) * exp(k * t) })
}

/// The ids that were held, then not, then held again, in a sequence of what a controller held
/// after each callback: the churn a prefetcher should spare the network.
func churned<ID: Hashable>(_ held: some Sequence<Set<ID>>) -> Set<ID> {
    var seen = Set<ID>(), left = Set<ID>(), churn = Set<ID>()
    for set in held {
        churn.formUnion(left.intersection(set))
        left.formUnion(seen.subtracting(set))
        seen.formUnion(set)
    }
    return churn
}

/// Whether `measured` is within 5 % of `expected` (false when nothing was measured): how close
/// the speed a prefetcher reads must be to the content's.
func within5Percent(_ measured: Double?, _ expected: Double) -> Bool {
    guard let measured else { return false }
    return abs(measured - expected) <= 0.05 * abs(expected)
}
