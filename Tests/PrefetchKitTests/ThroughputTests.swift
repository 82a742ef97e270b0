import Testing
import PrefetchTesting
@testable import PrefetchKit

/// Issue 26: the fetcher measures how fast transfers go (from the bytes its loader reports), and
/// the controller plans an item of known size with its own load time.
@Suite("Throughput and sizes")
struct ThroughputTests {
    /// Ten loads of 10 to 100 KB, each a 0.1 s round trip plus its bytes at 200 KB/s.
    static let sizes = Array(stride(from: 10_000, through: 100_000, by: 10_000))
    static func duration(_ bytes: Int) -> Double { 0.1 + Double(bytes) / 200_000 }

    @Test func theWindowRecoversTheRoundTripAndTheRateOfAnExactLine() throws {
        var window = ThroughputWindow()
        var start = 0.0
        for bytes in Self.sizes {
            window.record(bytes: bytes, start: start, end: start + Self.duration(bytes))
            start += 10   // one at a time, with gaps
        }
        let rate = 1 / (try #require(window.secondsPerByte))
        #expect(abs(rate - 200_000) < 1e-6)
        #expect(abs((window.roundTrip ?? 0) - 0.1) < 1e-9)
        #expect(abs((window.seconds(forBytes: 50_000) ?? 0) - 0.35) < 1e-9)
        // The link moved 550 KB in the 0.1 × 10 + 2.75 s the loads ran
        #expect(abs((window.linkBytesPerSecond ?? 0) - 550_000 / 3.75) < 1e-6)
    }

    @Test func oneSlowRoundTripHardlyMovesTheRate() throws {
        var window = ThroughputWindow()
        for (index, bytes) in Self.sizes.enumerated() {
            // The 10 KB load waited 3 s for its first byte: a p99 round trip
            let duration = bytes == 10_000 ? 3.05 : Self.duration(bytes)
            window.record(bytes: bytes, start: Double(index) * 10, end: Double(index) * 10 + duration)
        }
        let secondsPerByte = try #require(window.secondsPerByte)
        // A least-squares line through the same points has a negative slope; the median of the
        // pairwise slopes stays within 15 % of the true 5 µs per byte
        #expect(abs(secondsPerByte - 1 / 200_000) < 0.15 / 200_000)
        #expect(Self.leastSquaresSlope(window.ring) < 0)
    }

    @Test func loadsOfOneSizeOrTooFewSayNothingAboutTheRateAndBadSamplesAreIgnored() {
        var uniform = ThroughputWindow()
        for index in 0..<20 { uniform.record(bytes: 60_000, start: Double(index), end: Double(index) + 0.2 + Double(index % 3) * 0.1) }
        #expect(uniform.secondsPerByte == nil && uniform.seconds(forBytes: 60_000) == nil)
        #expect(uniform.linkBytesPerSecond != nil)

        var few = ThroughputWindow()
        for bytes in Self.sizes.prefix(ThroughputWindow.minimumSamples - 1) {
            few.record(bytes: bytes, start: 0, end: Self.duration(bytes))
        }
        #expect(few.secondsPerByte == nil)
        // Zero bytes, time running backwards, an infinite end: not samples
        few.record(bytes: 0, start: 0, end: 1)
        few.record(bytes: 80_000, start: 2, end: 1)
        few.record(bytes: 80_000, start: 0, end: .infinity)
        #expect(few.count == ThroughputWindow.minimumSamples - 1)
        few.record(bytes: 80_000, start: 0, end: Self.duration(80_000))
        #expect(few.secondsPerByte != nil)
    }

    @Test func theLinkRateCountsOverlappingLoadsOnce() {
        var window = ThroughputWindow()
        // 0–1 s and 0.5–1.5 s overlap (1.5 s busy), 3–4 s alone (1 s): 300 KB in 2.5 s
        window.record(bytes: 100_000, start: 0, end: 1)
        window.record(bytes: 100_000, start: 0.5, end: 1.5)
        window.record(bytes: 100_000, start: 3, end: 4)
        #expect(window.linkBytesPerSecond == 120_000)
    }

    @Test func theSelectedMedianIsTheSortedOnesForEveryCountAndRunsOfEqualValues() {
        // A fixed linear congruential sequence: the same arrays in every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var checked = 0
        for count in 1...70 {
            for distinct in [1, 2, 3, count, 1_000] {
                var values = (0..<count).map { _ in Double(next(distinct)) * 0.37 - 50 }
                let expected = ThroughputWindow.median(values.sorted())
                let sorted = values.sorted()
                #expect(ThroughputWindow.median(selecting: &values) == expected, "\(count) values of \(distinct) kinds")
                // Only reordered: the same values are left
                #expect(values.sorted() == sorted)
                checked += 1
            }
        }
        #expect(checked == 350)
        var none: [Double] = []
        #expect(ThroughputWindow.median(selecting: &none) == nil)
    }

    @Test func theRingKeepsTheLatestLoads() {
        var window = ThroughputWindow(capacity: 8)
        // Eight loads at 100 KB/s, then eight at 400 KB/s: only the fast ones are left
        for (rate, offset) in [(100_000.0, 0.0), (400_000.0, 100.0)] {
            for (index, bytes) in Self.sizes.prefix(8).enumerated() {
                let start = offset + Double(index) * 10
                window.record(bytes: bytes, start: start, end: start + 0.1 + Double(bytes) / rate)
            }
        }
        #expect(window.count == 8)
        #expect(abs(1 / (window.secondsPerByte ?? 1) - 400_000) < 1e-3)
    }

    @Test func theFetcherMeasuresWhatItsLoaderReportsOnItsClock() async throws {
        let clock = ManualClock()
        let scripted = ScriptedLoader<Int, String>()
        let fetcher = try AsyncFetcher<Int, String>(configuration: FetcherConfiguration(maxConcurrentLoads: 1), clock: clock,
                                                    loader: ReportingLoader(scripted: scripted))
        #expect(fetcher.statistics.transferBytesPerSecond == nil && fetcher.statistics.linkBytesPerSecond == nil)
        // Given ten loads, one at a time, each a 0.1 s round trip plus its bytes at 200 KB/s
        for (index, bytes) in Self.sizes.enumerated() {
            let load = Task { try await fetcher.value(for: bytes) }
            await scripted.waitForCalls(index + 1)
            clock.advance(by: .seconds(Self.duration(bytes)))
            #expect(scripted.succeed(bytes, with: "\(bytes) B"))
            _ = try await load.value
        }
        // Then the statistics carry the transfer rate and the link's (back to back: the same sum)
        let statistics = fetcher.statistics
        #expect(abs((statistics.transferBytesPerSecond ?? 0) - 200_000) < 1e-3)
        #expect(abs((statistics.linkBytesPerSecond ?? 0) - 550_000 / 3.75) < 1e-3)
        // And a target given the items' sizes plans each with its own load time; without sizes, nothing
        let sized = fetcher.prefetchTarget(identifier: { (item: Int) in item }, expectedBytes: { $0 })
        let expected = try #require(sized.typicalLatency(of: 50_000))
        #expect(abs(expected.seconds - 0.35) < 1e-6)
        #expect(try #require(sized.typicalLatency(of: 400_000)).seconds > 2)
        #expect(fetcher.prefetchTarget(identifier: { (item: Int) in item }).typicalLatency(of: 50_000) == nil)
    }

    @Test func anItemPlannedWithALongerLoadIsNotWorthASlotItsMomentOnScreenCannotUse() {
        // A drag at 1,000 pt/s over rows of 100 pt in a 300 pt viewport: each row is on screen for
        // 0.4 s; the fallback latency (L = E = 0.3 s) makes every row ahead worth a slot
        var planner = PrefetchPlanner<Int>(policy: FixedPolicy(regions: [300..<2_000]))
        let rows = Rows(count: 100, height: 100)
        let latencies: [Int: Duration] = [10: .milliseconds(500), 11: .milliseconds(100)]
        let update = planner.step(frame(0, at: 0, velocity: 1_000, .dragging), geometry: rows, latency: LatencyEstimate(),
                                  itemLatency: { latencies[$0] })
        let priorities = Dictionary(uniqueKeysWithValues: update.requests.map { ($0.item, $0.priority) })
        // Then row 9 (typical) and row 11 (a quick load) rank to prefetch by arrival; row 10, whose
        // load takes 0.5 s, would show its data for less than that: speculative
        #expect(priorities[9]?.level == .prefetch && priorities[11]?.level == .prefetch)
        #expect(priorities[10]?.level == .speculative)
        // And the order stays the arrival: a quick load is not moved ahead of its neighbours
        let (row9, row11) = (priorities[9]?.order ?? 0, priorities[11]?.order ?? 0)
        #expect(row9 < row11)
        #expect(abs((row11 - row9) - 0.2) < 0.05)
        // Without per-item latencies row 10 is worth a slot like its neighbours
        var plain = PrefetchPlanner<Int>(policy: FixedPolicy(regions: [300..<2_000]))
        let same = plain.step(frame(0, at: 0, velocity: 1_000, .dragging), geometry: rows, latency: LatencyEstimate())
        #expect(same.requests.first { $0.item == 10 }?.priority.level == .prefetch)
    }

    /// The ordinary least-squares slope of duration against bytes.
    static func leastSquaresSlope(_ samples: [ThroughputWindow.Sample]) -> Double {
        let n = Double(samples.count)
        let meanX = samples.reduce(0) { $0 + $1.bytes } / n
        let meanY = samples.reduce(0) { $0 + ($1.end - $1.start) } / n
        let sxy = samples.reduce(0) { $0 + ($1.bytes - meanX) * (($1.end - $1.start) - meanY) }
        let sxx = samples.reduce(0) { $0 + ($1.bytes - meanX) * ($1.bytes - meanX) }
        return sxy / sxx
    }
}

/// A loader that reports each id as its size in bytes, after the scripted loader answers.
private struct ReportingLoader: DataLoader {
    let scripted: ScriptedLoader<Int, String>

    func load(_ id: Int) async throws -> String {
        let value = try await scripted.load(id)
        FetchLoadContext.recordTransferred(bytes: id)
        return value
    }
}
