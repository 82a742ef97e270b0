import Foundation
import PrefetchKit
import PrefetchToolSupport

/// Measures what a user would see: the one readiness meter of the simulator, the demo and the tests.
///
/// A ``SampleApp`` tells it when cells appear, leave and receive their data; give it the
/// fetcher's events (``record(_:item:)``). It counts appearances only after ``startCounting()``
/// (call it once the first screen is laid out: no policy can change the first screen). Safe to
/// call from any thread; times come from `now`.
///
/// ```swift
/// import PrefetchKit
/// import PrefetchSimulation
///
/// let clock = ContinuousClock(), start = clock.now
/// let meter = ReadinessMeter(now: { (clock.now - start) / .seconds(1) })
/// let fetcher = try AsyncFetcher<Int, String>(onEvent: { meter.record($0, item: { $0 }) }) { id in "item \(id)" }
/// let app = try SampleApp(layout: .list(), viewport: .phoneList, fetcher: fetcher, meter: meter, identifier: { $0 })
/// app.step(to: 0)
/// meter.startCounting()         // then a frame driver plays frames
/// app.finish()
/// print(meter.result(scenario: "my-session", policy: "uikitLike").displayReadyRate)
/// ```
public final class ReadinessMeter: Sendable {
    private struct State: Sendable {
        var isCounting = false
        var appearances = 0
        var ready = 0
        /// Appearances that showed at least a preview.
        var previewReady = 0
        /// Counted cells on screen without their full data (blank, or showing a preview).
        var notFull: Set<Int> = []
        /// Whether the app shows previews: the result then reports ``SimulationResult/previewReadyRate``.
        var countsPreviews = false
        var waits: [Double] = []
        var blankSince: [Int: (start: Double, wait: Int)] = [:]
        var onScreen: Set<Int> = []
        var everDisplayed: Set<Int> = []
        /// Items whose data a cell on screen showed: appeared ready, or received it while displayed.
        var shown: Set<Int> = []
        var started = 0, completed = 0, cancelled = 0, failed = 0, inFlight = 0, peak = 0
        var completedItems: [Int] = []
        var running: [Int: Int] = [:]
        var timeline: SimulationTimeline?
        var finished = false
        /// The items still in the prefetch window at ``finish(stillPlanned:)``.
        var plannedAtEnd: Set<Int> = []
        var moving = false
        /// When scrolling last stopped with blank visible cells, until they all show data.
        var settlingSince: Double?
        var settleTimes: [Double] = []
    }

    private let state: Locked<State>
    private let now: @Sendable () -> Double

    /// Creates a meter reading the time from `now` (seconds).
    public init(now: @escaping @Sendable () -> Double) {
        state = Locked(State())
        self.now = now
    }

    /// From now on, keeps every load, blank period and sampled frame for a report.
    func recordTimeline() {
        state.withLock { $0.timeline = SimulationTimeline() }
    }

    /// Whether the meter keeps a timeline (``recordTimeline()``): without one, sampled frames are dropped.
    var isRecordingTimeline: Bool { state.withLock { $0.timeline != nil } }

    /// Counts appearances from now on.
    public func startCounting() {
        state.withLock { $0.isCounting = true }
    }

    /// Reports how many appearances showed at least a preview (``SimulationResult/previewReadyRate``).
    func countPreviews() {
        state.withLock { $0.countsPreviews = true }
    }

    /// An item's cell came on screen, with (`ready`) or without its full data; without it, showing
    /// a preview (`preview`) or nothing.
    func cellAppeared(item: Int, ready: Bool, preview: Bool = false) {
        let t = now()
        state.withLock { s in
            s.onScreen.insert(item)
            s.everDisplayed.insert(item)
            if ready { s.shown.insert(item) }
            guard s.isCounting else { return }
            s.appearances += 1
            s.waits.append(0)
            if ready {
                s.ready += 1
                s.previewReady += 1
            } else {
                s.notFull.insert(item)
                if preview { s.previewReady += 1 } else { s.blankSince[item] = (t, s.waits.count - 1) }
            }
        }
    }

    /// An item's cell left the screen: a blank wait ends there.
    func cellDisappeared(item: Int) {
        let t = now()
        state.withLock { s in
            s.onScreen.remove(item)
            Self.endBlank(item, at: t, &s)
            Self.endNotFull(item, at: t, &s)
        }
    }

    /// An item's displayed cell received its (full) data.
    func dataShown(item: Int) {
        let t = now()
        state.withLock { s in
            s.shown.insert(item)
            Self.endBlank(item, at: t, &s)
            Self.endNotFull(item, at: t, &s)
        }
    }

    /// An item's displayed blank cell received a preview: it shows something, not yet its full data.
    func previewShown(item: Int) {
        let t = now()
        state.withLock { s in Self.endBlank(item, at: t, &s) }
    }

    /// Tells the meter whether the content is moving (a drag, a fling, an animation, or a jump
    /// since the last frame): call once a frame, after the view laid out.
    ///
    /// When scrolling stops (moving, then not), a settle time starts: it ends when every visible
    /// counted cell shows its full data (0 if all do), or, cut short, when scrolling starts again
    /// or the run ends.
    func scrolling(_ moving: Bool) {
        let t = now()
        state.withLock { s in
            defer { s.moving = moving }
            if moving, let since = s.settlingSince {
                s.settleTimes.append(t - since)
                s.settlingSince = nil
            }
            guard s.moving, !moving, s.isCounting else { return }
            if s.notFull.isEmpty { s.settleTimes.append(0) } else { s.settlingSince = t }
        }
    }

    /// Records one of the fetcher's events; `item` gives the item index of the event's id.
    public func record<ID: Hashable & Sendable>(_ event: FetchEvent<ID>, item: (ID) -> Int) {
        let id: ID
        switch event {
        case .loadStarted(let x), .loadCompleted(let x, _), .loadCancelled(let x), .loadFailed(let x, _, _): id = x
        default: return
        }
        let item = item(id)
        let t = now()
        state.withLock { s in
            switch event {
            case .loadStarted:
                s.started += 1
                s.inFlight += 1
                s.peak = max(s.peak, s.inFlight)
                if s.timeline != nil {
                    s.running[item] = s.timeline!.loads.count
                    s.timeline!.loads.append(.init(item: item, start: t, end: t, outcome: .running))
                }
            case .loadCompleted:
                s.completed += 1
                s.completedItems.append(item)
                Self.endLoad(item, at: t, .completed, &s)
            case .loadCancelled:
                s.cancelled += 1
                Self.endLoad(item, at: t, .cancelled, &s)
            case .loadFailed(_, _, let willRetry):
                guard !willRetry else { return }
                s.failed += 1
                Self.endLoad(item, at: t, .failed, &s)
            default:
                break
            }
        }
    }

    /// Samples the viewport and the prefetch window for the timeline (a no-op without one).
    func sampleFrame(visible: ClosedRange<Int>?, prefetch: ClosedRange<Int>?) {
        let t = now()
        state.withLock { s in
            s.timeline?.frames.append(.init(time: t, visible: visible, prefetch: prefetch))
        }
    }

    /// The first and last items on screen now.
    var visibleItems: ClosedRange<Int>? {
        state.withLock { s in s.onScreen.min().flatMap { lo in s.onScreen.max().map { lo...$0 } } }
    }

    /// Ends the run: closes every open wait and load at the time now.
    ///
    /// - Parameter stillPlanned: The items the view still wanted prefetched (its prefetch
    ///   window) at the end; their wasted loads count as `SimulationResult.loadsWastedAtEnd`.
    func finish(stillPlanned: some Sequence<Int> = [Int]()) {
        let t = now()
        state.withLock { s in
            guard !s.finished else { return }
            s.finished = true
            s.plannedAtEnd = Set(stillPlanned)
            if let since = s.settlingSince {
                s.settleTimes.append(t - since)
                s.settlingSince = nil
            }
            for item in s.blankSince.keys.sorted() { Self.endBlank(item, at: t, &s) }
            s.notFull.removeAll()
            if s.timeline != nil {
                for index in s.running.values { s.timeline!.loads[index].end = t }
                s.timeline!.duration = t
            }
        }
    }

    /// The figures so far (open waits count up to now) as the result of a run of `scenario`
    /// under `policy` lasting `duration` seconds (now, by default), with no byte figures.
    public func result(scenario: String = "", policy: String = "", duration: Double? = nil) -> SimulationResult {
        result(scenario: scenario, policy: policy, duration: duration, bytes: ByteUsage())
    }

    /// The figures so far, with the bytes the network moved; `frameTimes` are the real
    /// microseconds each frame took.
    func result(
        scenario: String, policy: String, duration: Double?, bytes: ByteUsage, frameTimes: [Double] = []
    ) -> SimulationResult {
        let t = now()
        let duration = duration ?? t
        return state.withLock { s in
            var waits = s.waits
            for blank in s.blankSince.values { waits[blank.wait] = t - blank.start }
            let sorted = waits.sorted()
            var r = SimulationResult(scenario: scenario, policy: policy)
            r.displayed = s.appearances
            r.displayReadyRate = s.appearances == 0 ? 1 : Double(s.ready) / Double(s.appearances)
            if s.countsPreviews { r.previewReadyRate = s.appearances == 0 ? 1 : Double(s.previewReady) / Double(s.appearances) }
            r.blankCellSeconds = waits.reduce(0, +)
            r.visibleWaitMeanMs = waits.isEmpty ? 0 : r.blankCellSeconds / Double(waits.count) * 1000
            r.visibleWaitP95Ms = percentile(sorted, 0.95) * 1000
            r.loadsStarted = s.started
            r.loadsCompleted = s.completed
            r.loadsCancelled = s.cancelled
            r.loadsFailed = s.failed
            let wasted = s.completedItems.filter { !s.everDisplayed.contains($0) }
            r.loadsWasted = wasted.count
            r.loadsWastedAtEnd = wasted.filter { s.plannedAtEnd.contains($0) }.count
            // A wasted load's payload, once per item (as loads are counted), and every stopped transfer's bytes so far.
            r.bytesWasted = wasted.reduce(0) { $0 + bytes.size($1) } + Int(bytes.stopped.rounded())
            r.bytesOnWire = Int(bytes.onWire.rounded())
            if let capacity = bytes.capacityBytesPerSecond, bytes.duration > 0 {
                r.linkUtilisation = bytes.onWire / (capacity * bytes.duration)
            }
            // Shown only counts for an item that was displayed, so never-shown includes every wasted load.
            r.loadsNeverShown = s.completedItems.filter { !(s.shown.contains($0) && s.everDisplayed.contains($0)) }.count
            r.peakInFlight = s.peak
            var settles = s.settleTimes
            if let since = s.settlingSince { settles.append(t - since) }
            r.settles = settles.count
            r.settleMeanMs = settles.isEmpty ? 0 : settles.reduce(0, +) / Double(settles.count) * 1000
            r.settleP95Ms = percentile(settles.sorted(), 0.95) * 1000
            r.requestsPerSecond = duration > 0 ? Double(r.loadsStarted) / duration : 0
            r.duration = duration
            r.frameTime.meanMicroseconds = frameTimes.isEmpty ? 0 : frameTimes.reduce(0, +) / Double(frameTimes.count)
            r.frameTime.p95Microseconds = percentile(frameTimes.sorted(), 0.95)
            return r
        }
    }

    /// What happened over time (empty unless the meter records a timeline).
    var timeline: SimulationTimeline {
        state.withLock { $0.timeline ?? SimulationTimeline() }
    }

    private static func endBlank(_ item: Int, at t: Double, _ s: inout State) {
        guard let blank = s.blankSince.removeValue(forKey: item) else { return }
        s.waits[blank.wait] = t - blank.start
        s.timeline?.blanks.append(.init(item: item, start: blank.start, end: t))
    }

    /// The item's cell shows its full data or left: a settle time ends when no visible cell lacks it.
    private static func endNotFull(_ item: Int, at t: Double, _ s: inout State) {
        guard s.notFull.remove(item) != nil else { return }
        if s.notFull.isEmpty, let since = s.settlingSince {
            s.settleTimes.append(t - since)
            s.settlingSince = nil
        }
    }

    private static func endLoad(_ item: Int, at t: Double, _ outcome: SimulationTimeline.Load.Outcome, _ s: inout State) {
        s.inFlight -= 1
        guard let index = s.running.removeValue(forKey: item), s.timeline != nil else { return }
        s.timeline!.loads[index].end = t
        s.timeline!.loads[index].outcome = outcome
    }
}

/// The `p` quantile of sorted values (nearest rank), or 0 when there are none.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((Double(sorted.count) * p).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
