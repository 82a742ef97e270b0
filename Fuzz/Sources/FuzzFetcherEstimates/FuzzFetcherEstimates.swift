import Dispatch
import FuzzSupport
import PrefetchKit
import Synchronization

/// libFuzzer entry point: the bytes are a script of loads and questions for one `AsyncFetcher`.
///
/// Each load runs on the fetcher's clock, a `ScriptClock` the loader moves by any duration
/// (zero, a few milliseconds, backwards, or up to 2⁶⁰ seconds), and reports any byte counts
/// through `FetchLoadContext.recordTransferred(bytes:)` (negative, 0, `Int.max`, several that add
/// past it), or fails. Between loads the script asks for estimates the way a frame does: a
/// prefetch target's `typicalLatency(of:)` for sizes an app's `expectedBytes` might give (any
/// `Int`), `PrefetchController.update` with those sizes and a scroll state of any numbers (NaN,
/// ±infinity, huge), and the statistics. Nothing may trap; every estimate is finite or `nil`,
/// at most 10¹⁸ s, `nil` for a negative size, and never shorter for more bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFetcherEstimates(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: start, count: count))
    FetcherScript.run(&input)
    return 0
}

/// The script's readings of the fuzzer's bytes.
extension FuzzInput {
    /// A byte count as an app or a loader might give one: often a value at an edge.
    mutating func byteCount() -> Int {
        switch byte() % 8 {
        case 0: return Self.edges[Int(byte()) % Self.edges.count]
        case 1: return Int(bitPattern: UInt(uint64()))
        case 2: return -Int(byte())
        case 3: return Int(byte()) << (byte() % 63)
        default: return Int(UInt16(byte()) << 8 | UInt16(byte())) * 16
        }
    }

    /// How far a load moves the clock: zero, a little, backwards, or very far.
    mutating func duration() -> Duration {
        switch byte() % 8 {
        case 0: return .zero
        case 1: return .milliseconds(Int(byte()))
        case 2: return .milliseconds(-Int(byte()))
        case 3: return .seconds(Int64(byte()) << (byte() % 55))
        case 4: return .seconds(-(Int64(byte()) << (byte() % 55)))
        case 5: return Duration(secondsComponent: Int64(bitPattern: uint64()) >> 4, attosecondsComponent: Int64(byte()) * 3_000_000_000_000_000)
        default: return .milliseconds(Int(UInt16(byte()) << 8 | UInt16(byte())))
        }
    }

    /// A number that is often one of those that break arithmetic.
    mutating func double() -> Double {
        switch byte() % 8 {
        case 0: return Self.specials[Int(byte()) % Self.specials.count]
        case 1: return Double(bitPattern: uint64())
        case 2: return -Double(byte()) * 10
        default: return Double(UInt16(byte()) << 8 | UInt16(byte()))
        }
    }

    static let edges = [Int.max, Int.min, Int.max - 1, Int.min + 1, 0, -1, 1, 1 << 53, 1 << 62, Int(Int32.max), 10, 100_000]
    static let specials: [Double] = [
        .nan, -.nan, .signalingNaN, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, 1e300, -1e300, 1e-300, 1e18, 9.223372036854775807e18, 0.5, 1, 300, 10_000,
    ]
}

/// The fetcher's clock: a reading the script moves, to any time within 2⁶⁰ seconds of its start
/// either way (a clock that reads further is beyond what the fetcher's `Duration` arithmetic
/// promises: differences of readings must fit `Int64` seconds). Sleeping (a retry's back-off)
/// moves it to the deadline at once.
final class ScriptClock: Clock, Sendable {
    struct Instant: InstantProtocol, Sendable, Hashable {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: ScriptClock.clamped(offset, plus: duration)) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    static let limit = Duration.seconds(Int64(1) << 60)
    private let reading = Mutex(Instant(offset: .zero))

    var now: Instant { reading.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    func move(by duration: Duration) {
        reading.withLock { $0 = $0.advanced(by: duration) }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        reading.withLock { if $0 < deadline { $0 = deadline } }
    }

    /// `offset + duration`, kept within ±``limit``; both are within about 2⁶⁶ s, so the sum fits.
    static func clamped(_ offset: Duration, plus duration: Duration) -> Duration {
        let bounded = max(min(duration, limit * 4), .zero - limit * 4)
        return max(min(offset + bounded, limit), .zero - limit)
    }
}

/// The controller's layout: items `0..<itemCount` in rows of `columns`, each row `rowLength`
/// long with `spacing` between rows, from offset 0.
struct UniformRows: ItemGeometry {
    /// The number of items.
    let itemCount: Int
    /// A row's length along the axis, in points (positive).
    let rowLength: Double
    /// Items per row, from 1 to `itemCount`.
    let columns: Int
    /// The gap between rows, in points (at least 0).
    let spacing: Double

    /// Creates rows; a length that is not positive and finite counts as 1 point, a spacing that is
    /// not finite or is negative as 0, and `columns` is clamped to 1...max(1, itemCount).
    init(itemCount: Int, rowLength: Double, columns: Int = 1, spacing: Double = 0) {
        self.itemCount = max(0, itemCount)
        self.rowLength = rowLength.isFinite && rowLength > 0 ? rowLength : 1
        self.columns = min(max(1, columns), max(1, itemCount))
        self.spacing = spacing.isFinite && spacing > 0 ? spacing : 0
    }

    /// The number of rows.
    var rowCount: Int { itemCount / columns + (itemCount % columns == 0 ? 0 : 1) }

    /// The content's length: the rows and the gaps between them.
    var contentLength: Double { rowCount == 0 ? 0 : Double(rowCount) * rowLength + Double(rowCount - 1) * spacing }

    /// The extent of `row`.
    private func extent(ofRow row: Int) -> Range<Double> {
        let start = Double(row) * (rowLength + spacing)
        return start..<(start + rowLength)
    }

    /// The row that `position` falls in, rounded by `rule` and clamped to the rows (an infinite
    /// position gives the first or the last; a NaN one, the widest answer).
    private func row(at position: Double, _ rule: FloatingPointRoundingRule) -> Int {
        let row = (position / (rowLength + spacing)).rounded(rule)
        guard !row.isNaN else { return rule == .down ? 0 : rowCount - 1 }
        return Int(min(max(row, 0), Double(rowCount - 1)))
    }

    /// Calls `body` with each item whose row meets `range`, row by row (ascending along the axis).
    func forEachItem(meeting range: Range<Double>, _ body: (Int, Range<Double>) -> Void) {
        guard itemCount > 0 else { return }
        let first = row(at: range.lowerBound, .down), last = row(at: range.upperBound, .up)
        guard first <= last else { return }
        for row in first...last {
            let extent = extent(ofRow: row)
            guard extent.lowerBound < range.upperBound, range.lowerBound < extent.upperBound else { continue }
            for item in (row * columns)..<min(itemCount, row * columns + columns) { body(item, extent) }
        }
    }

    /// The extent of `item`'s row, or `nil` when it is not one of the items.
    func extent(of item: Int) -> Range<Double>? {
        (0..<itemCount).contains(item) ? extent(ofRow: item / columns) : nil
    }
}

/// What one scripted load does: moves the clock, reports bytes, and succeeds or fails.
struct LoadPlan: Sendable {
    var duration: Duration
    var reports: [Int]
    var fails: Bool
}

struct ScriptError: Error {}

/// Loads what the script planned for each id; an id without a plan (a controller's request)
/// fails at once, reporting nothing and leaving the clock alone, so it changes no transfer
/// estimate (a controller's withdrawal may still record a cancelled load's running time).
final class ScriptLoader: DataLoader, Sendable {
    let clock: ScriptClock
    private let plans = Mutex<[Int: LoadPlan]>([:])

    init(clock: ScriptClock) { self.clock = clock }

    func plan(_ id: Int, _ plan: LoadPlan) { plans.withLock { $0[id] = plan } }

    func load(_ id: Int) async throws -> Int {
        guard let plan = plans.withLock({ $0.removeValue(forKey: id) }) else { throw ScriptError() }
        clock.move(by: plan.duration)
        for bytes in plan.reports { FetchLoadContext.recordTransferred(bytes: bytes) }
        if plan.fails { throw ScriptError() }
        return id
    }
}

/// The sizes an app's `expectedBytes` gives the controller's items.
final class Sizes: Sendable {
    private let sizes = Mutex<[Int]>([])
    func set(_ new: [Int]) { sizes.withLock { $0 = new } }
    func size(of item: Int) -> Int? {
        sizes.withLock { $0.isEmpty ? nil : $0[item % $0.count] }
    }
}

enum FetcherScript {
    /// The longest estimate the fetcher answers (PrefetchKit's `ThroughputWindow.longestEstimate`).
    static let longest = Duration.seconds(Int64(1_000_000_000_000_000_000))
    /// The controller's items' ids start here: no plan names them.
    static let controllerIDs = 1 << 40
    /// The most loads one input runs: past the fetcher's window of 64, so that it wraps (each
    /// load refits the window, O(n² log n), some 2 ms in this instrumented debug build: more
    /// would slow every input down).
    static let maximumLoads = 72

    static func run(_ input: inout FuzzInput) {
        let clock = ScriptClock()
        let loader = ScriptLoader(clock: clock)
        guard let configuration = try? FetcherConfiguration(maxConcurrentLoads: 1 + Int(input.byte() % 2)),
              let fetcher = try? AsyncFetcher<Int, Int>(configuration: configuration, clock: clock, loader: loader)
        else { return }
        defer { fetcher.shutdown() }
        let sizes = Sizes()
        let target = fetcher.prefetchTarget(identifier: { (item: Int) in controllerIDs + item },
                                            expectedBytes: { sizes.size(of: $0) })
        // Each item its own size: asks the fetcher's estimate for any size directly.
        let sized = fetcher.prefetchTarget(identifier: { (bytes: Int) in bytes }, expectedBytes: { $0 })
        let policy: any PrefetchPolicy = input.bool() ? PrefetchPolicies.adaptive : PrefetchPolicies.uikitLike
        let controller = PrefetchController<Int>(policy: policy, target: target)
        let rows = UniformRows(itemCount: 512, rowLength: 80 + Double(input.byte()))
        var nextID = 0
        var time = 0.0
        var steps = 0
        while !input.isAtEnd, steps < 128 {
            steps += 1
            switch input.byte() % 8 {
            case 0, 1, 2, 3:
                guard nextID < maximumLoads else { continue }
                var reports: [Int] = []
                for _ in 0..<(1 + Int(input.byte() % 3)) { reports.append(input.byteCount()) }
                loader.plan(nextID, LoadPlan(duration: input.duration(), reports: reports, fails: input.byte() % 8 == 0))
                load(nextID, on: fetcher)
                nextID += 1
            case 4:
                var asked: [Int] = []
                for _ in 0..<(1 + Int(input.byte() % 6)) { asked.append(input.byteCount()) }
                checkEstimates(for: asked, target: sized)
            case 5:
                var given: [Int] = []
                for _ in 0..<(1 + Int(input.byte() % 4)) { given.append(input.byteCount()) }
                sizes.set(given)
                // Any time reaches the controller as far as a `Duration` holds it; the script goes on from a finite one.
                let frameTime = time + (input.bool() ? input.double() : 1.0 / 60)
                if frameTime.isFinite { time = frameTime }
                update(controller, rows: rows, time: frameTime, &input)
            case 6:
                checkStatistics(fetcher)
            default:
                // Nine loads of sizes 8x apart at 1 ns to 2⁵⁹ ns (18 years) a byte: a fitted slope of any size
                let secondsPerByte = Duration.nanoseconds(1) * (Int64(1) << (input.byte() % 60))
                for step in 0..<9 where nextID < maximumLoads {
                    let bytes = 1 << (step * 3)
                    loader.plan(nextID, LoadPlan(duration: secondsPerByte * bytes, reports: [bytes], fails: false))
                    load(nextID, on: fetcher)
                    nextID += 1
                }
            }
        }
        checkEstimates(for: FuzzInput.edges + [Int.max / 2, Int.max / 3, 1 << 30], target: sized)
        checkStatistics(fetcher)
        sizes.set([Int.max, 0, -1, Int.min, 1 << 62])
        update(controller, rows: rows, time: time + 1, &input)
    }

    /// Runs load `id` to its end (one at a time: the clock moves only inside the loader).
    static func load(_ id: Int, on fetcher: AsyncFetcher<Int, Int>) {
        let done = DispatchSemaphore(value: 0)
        if fetcher.fetchAsync(id, completion: { _ in done.signal() }) != nil { done.wait() }
    }

    /// Every size's estimate is finite or nil, nil when negative, at most `longest`, and never
    /// smaller for more bytes.
    static func checkEstimates(for sizes: [Int], target: some PrefetchTarget<Int>) {
        var known: [(bytes: Int, latency: Duration)] = []
        for bytes in sizes {
            guard let latency = target.typicalLatency(of: bytes) else { continue }
            precondition(bytes >= 0, "an estimate \(latency) for a negative size \(bytes)")
            precondition(latency >= .zero && latency <= longest, "the estimate for \(bytes) B is \(latency)")
            precondition(seconds(latency).isFinite)
            known.append((bytes, latency))
        }
        known.sort { $0.bytes < $1.bytes }
        for (smaller, larger) in zip(known, known.dropFirst()) {
            precondition(smaller.latency <= larger.latency,
                         "\(smaller.bytes) B takes \(smaller.latency), more than \(larger.bytes) B: \(larger.latency)")
        }
    }

    static func checkStatistics(_ fetcher: AsyncFetcher<Int, Int>) {
        let statistics = fetcher.statistics
        if let rate = statistics.transferBytesPerSecond { precondition(rate.isFinite && rate > 0, "transfer rate \(rate)") }
        if let rate = statistics.linkBytesPerSecond { precondition(rate.isFinite && rate >= 0, "link rate \(rate)") }
        for latency in [statistics.latency.median, statistics.latency.p90, fetcher.typicalLatency, fetcher.expectedLatency] {
            if let latency { precondition(latency >= .zero && seconds(latency).isFinite) }
        }
    }

    /// One frame of the controller, with a scroll state of any numbers.
    static func update(_ controller: PrefetchController<Int>, rows: UniformRows, time: Double,
                       _ input: inout FuzzInput) {
        let lower = input.bool() ? Double(input.byte()) * 100 : input.double()
        let upper = input.bool() ? lower + 800 : input.double()
        let viewport = lower.isNaN || upper.isNaN ? 0..<800 : (lower <= upper ? lower..<upper : upper..<lower)
        let phase: MotionPhase
        switch input.byte() % 4 {
        case 0: phase = .idle
        case 1: phase = .dragging
        case 2: phase = .decelerating(restingOffset: input.double(), rate: input.bool() ? 0.998 : input.double())
        default: phase = .programmatic(targetOffset: input.double(), duration: .seconds(Double(input.byte()) / 100))
        }
        // A `Duration` holds any finite time up to about 9e18 s; beyond, the frame is at time zero (earlier than the last: taken as the last).
        let state = ScrollState(time: time.isFinite && abs(time) < 9e18 ? .seconds(time) : .zero, viewport: viewport, contentLength: input.bool() ? rows.contentLength : input.double(),
                                velocity: input.bool() ? Double(input.byte()) * 50 : input.double(), phase: phase)
        let update = controller.update(state, geometry: rows)
        for request in update.requests {
            precondition(!request.priority.order.isNaN, "request for \(request.item) at \(request.priority)")
        }
    }

    /// A `Duration` in seconds, as the package reads one (`components`, which must not trap).
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
