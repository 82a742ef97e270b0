import Testing
import PrefetchTesting
@testable import PrefetchKit

/// Any size an app gives (`expectedBytes`: negative, 0, `Int.max`), any fitted transfer rate and
/// any latency a target reports give the planner a finite estimate or none, never a trap: the
/// estimates are read under the fetcher's lock on every frame of a `PrefetchController`.
@Suite("Estimate bounds")
struct EstimateBoundsTests {
    /// Ten sizes of 10 to 100 bytes: pairs that differ by more than a tenth, as the slope needs.
    static let sizes = Array(stride(from: 10, through: 100, by: 10))
    static let awkwardSizes = [Int.min, -1, 0, 1, 1_000, 1 << 40, Int.max / 2, Int.max - 1, Int.max]
    /// The longest estimate (`ThroughputWindow.longestEstimate`, `PlanningLatency.longest`): 10¹⁸ s.
    static let longest = Duration.seconds(1_000_000_000_000_000_000 as Int64)

    /// Given a fetcher whose ten loads took a 0.1 s round trip plus 100 s a byte (a stalled link),
    /// when a target sized every item `Int.max` bytes ("size unknown") plans a frame, then the
    /// controller's update returns (it trapped with "Overflow in multiplication" converting
    /// 9.2 × 10²⁰ s to a `Duration`, under the fetcher's lock), and the items plan with the
    /// longest estimate.
    @Test func anIntMaxSizeOnASlowLinkPlansThroughTheControllerWithoutTrapping() async throws {
        let (fetcher, _, _) = try await Self.fetcher(trainedAt: 100)
        defer { fetcher.shutdown() }
        let target = fetcher.prefetchTarget(identifier: { (row: Int) in 1_000 + row }, expectedBytes: { _ in Int.max })
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<2_000]), target: target)
        let update = controller.update(frame(0, at: 0), geometry: Rows(count: 100, height: 100))
        #expect(target.typicalLatency(of: 0) == Self.longest)
        // The rows on screen at rest are shown for ever: still worth their slot
        #expect(update.requests.count == 20)
        #expect(update.requests.allSatisfy { !$0.priority.order.isNaN })
        #expect((0..<3).allSatisfy { controller.requestedPriority(of: $0)?.level == .visible })
        // Moving, a row ahead is shown for a moment its load cannot fill: not worth a slot
        let moving = controller.update(frame(1, at: 50, velocity: 1_000, .dragging), geometry: Rows(count: 100, height: 100))
        #expect(moving.requests.allSatisfy { !$0.priority.order.isNaN })
        #expect(controller.requestedPriority(of: 10).map { $0.level < .prefetch } ?? true)
    }

    /// The fetcher's estimate for every awkward size, on a slow, an ordinary and a fast link.
    @Test(arguments: [1e-9, 5e-6, 100, 1e15])
    func everySizeGivesTheFetchersTargetAFiniteEstimateOrNone(secondsPerByte: Double) async throws {
        let (fetcher, _, _) = try await Self.fetcher(trainedAt: secondsPerByte)
        defer { fetcher.shutdown() }
        let target = fetcher.prefetchTarget(identifier: { (bytes: Int) in bytes }, expectedBytes: { $0 })
        var previous = Duration.zero
        for bytes in Self.awkwardSizes {
            let estimate = target.typicalLatency(of: bytes)
            if bytes < 0 {
                #expect(estimate == nil, "a negative size is unknown")
                continue
            }
            let latency = try #require(estimate, "\(bytes) B at \(secondsPerByte) s/B")
            #expect(latency >= previous && latency <= Self.longest, "\(bytes) B at \(secondsPerByte) s/B: \(latency)")
            #expect(latency.seconds.isFinite)
            previous = latency
        }
        // 0 bytes take the round trip alone
        let roundTrip = try #require(target.typicalLatency(of: 0)).seconds
        #expect(abs(roundTrip - 0.1) < max(1e-6, secondsPerByte * 1e-3))
    }

    /// The window itself: any size, any fitted slope (from 10⁻³⁰⁰ s a byte to 10²⁸⁰), finite or nil.
    @Test(arguments: [1e-300, 1e-12, 5e-6, 1, 1e15, 1e280])
    func theWindowsEstimateIsFiniteCappedAndNeverSmallerForMoreBytes(secondsPerByte: Double) throws {
        var window = ThroughputWindow()
        for (index, bytes) in Self.sizes.enumerated() {
            let start = Double(index) * 10
            window.record(bytes: bytes, start: start, end: start + 0.1 + Double(bytes) * secondsPerByte)
        }
        var previous = 0.0
        for bytes in Self.awkwardSizes {
            guard let seconds = window.seconds(forBytes: bytes) else {
                // No slope (a rate too slow for a Double to hold the loads' times), or a negative size
                #expect(bytes < 0 || window.secondsPerByte == nil)
                continue
            }
            #expect(bytes >= 0)
            #expect(seconds.isFinite && seconds >= previous && seconds <= 1e18)
            // It converts to a `Duration` and back
            #expect(Duration.seconds(seconds).seconds.isFinite)
            previous = seconds
        }
        if let slope = window.secondsPerByte { #expect((1 / slope).isFinite) }
        #expect(window.linkBytesPerSecond.map(\.isFinite) ?? true)
    }

    /// Loads of `Int.max` bytes, and loads that took no time: the statistics stay finite or nil.
    @Test func loadsOfIntMaxBytesOrOfNoTimeKeepTheRatesFiniteAndTheEstimatesBounded() async throws {
        let clock = ManualClock()
        let scripted = ScriptedLoader<Int, String>()
        let fetcher = try AsyncFetcher<Int, String>(configuration: FetcherConfiguration(maxConcurrentLoads: 1), clock: clock,
                                                    loader: SizeReportingLoader(scripted: scripted))
        defer { fetcher.shutdown() }
        // Ids name their sizes: Int.max, and small ones; every other load takes no time at all
        let ids = [Int.max, 1, Int.max - 1, 2, Int.max / 2, 3, 4, Int.max / 4, 5, Int.max / 8, 6, 7]
        for (index, bytes) in ids.enumerated() {
            let load = Task { try await fetcher.value(for: bytes) }
            await scripted.waitForCalls(index + 1)
            if index % 2 == 0 { clock.advance(by: .milliseconds(index)) }
            #expect(scripted.succeed(bytes, with: "\(bytes)"))
            _ = try await load.value
        }
        let statistics = fetcher.statistics
        #expect(statistics.transferBytesPerSecond.map { $0.isFinite && $0 > 0 } ?? true)
        #expect(statistics.linkBytesPerSecond.map(\.isFinite) ?? true)
        let target = fetcher.prefetchTarget(identifier: { (bytes: Int) in bytes }, expectedBytes: { $0 })
        for bytes in Self.awkwardSizes {
            if let latency = target.typicalLatency(of: bytes) { #expect(latency >= .zero && latency <= Self.longest) }
        }
    }

    /// A target of the app's own may report any `Duration`, and the controller may be configured
    /// with any non-negative fallback: past `Int64.max` seconds (where `Duration.components`
    /// traps) they plan as the longest latency.
    @Test func latenciesPastWhatSecondsCanHoldPlanAsTheLongest() throws {
        let huge = Duration.seconds(1.5e20)
        let target = HugeLatencyTarget(latency: huge)
        let configuration = try PrefetchController<Int>.Configuration(fallbackLatency: huge)
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<2_000]), target: target,
                                                 configuration: configuration)
        let rows = Rows(count: 100, height: 100)
        let first = controller.update(frame(0, at: 0), geometry: rows)
        #expect(first.requests.allSatisfy { !$0.priority.order.isNaN })
        target.reportsLatencies = false   // the fallback, for every latency
        let second = controller.update(frame(1, at: 40, velocity: 400, .dragging), geometry: rows)
        #expect(second.requests.allSatisfy { !$0.priority.order.isNaN })
        #expect(PlanningLatency.usable(huge)?.duration == Self.longest)
        #expect(PlanningLatency.usable(.seconds(-1)) == nil)
    }

    /// The mean of the latency summary never overflows `Duration`'s arithmetic.
    @Test func theMeanOfLongLatenciesDoesNotOverflow() {
        let long = Duration.seconds(Int64.max)
        let summary = LatencySummary(samples: Array(repeating: long, count: 64))
        #expect(summary.mean == long)
        #expect(LatencySummary(samples: [Duration.seconds(1.5e20), .seconds(1.5e20), .zero]).mean == .seconds(1e20))
        // Ordinary latencies keep the exact mean
        #expect(LatencySummary(samples: [.milliseconds(100), .milliseconds(200), .milliseconds(400)]).mean
            == Duration(secondsComponent: 0, attosecondsComponent: 233_333_333_333_333_333))
    }

    /// A fetcher whose ten loads, one at a time, each took 0.1 s plus `secondsPerByte` a byte on
    /// its manual clock, their loader reporting their sizes (10 to 100 bytes).
    static func fetcher(trainedAt secondsPerByte: Double)
        async throws -> (AsyncFetcher<Int, String>, ScriptedLoader<Int, String>, ManualClock) {
        let clock = ManualClock()
        let scripted = ScriptedLoader<Int, String>()
        let fetcher = try AsyncFetcher<Int, String>(configuration: FetcherConfiguration(maxConcurrentLoads: 1), clock: clock,
                                                    loader: SizeReportingLoader(scripted: scripted))
        for (index, bytes) in sizes.enumerated() {
            let load = Task { try await fetcher.value(for: bytes) }
            await scripted.waitForCalls(index + 1)
            clock.advance(by: .seconds(0.1 + Double(bytes) * secondsPerByte))
            #expect(scripted.succeed(bytes, with: "\(bytes) B"))
            _ = try await load.value
        }
        return (fetcher, scripted, clock)
    }
}

/// A loader that reports each id as its size in bytes, after the scripted loader answers.
private struct SizeReportingLoader: DataLoader {
    let scripted: ScriptedLoader<Int, String>

    func load(_ id: Int) async throws -> String {
        let value = try await scripted.load(id)
        FetchLoadContext.recordTransferred(bytes: id)
        return value
    }
}

/// A target that reports one latency for everything, or none.
private final class HugeLatencyTarget: PrefetchTarget {
    let latency: Duration
    var reportsLatencies = true

    init(latency: Duration) { self.latency = latency }

    var expectedLatency: Duration? { reportsLatencies ? latency : nil }
    var typicalLatency: Duration? { reportsLatencies ? latency : nil }
    func typicalLatency(of item: Int) -> Duration? { reportsLatencies && item % 2 == 0 ? latency : nil }
    func updatePrefetching(_ update: PrefetchUpdate<Int>) {}
}
