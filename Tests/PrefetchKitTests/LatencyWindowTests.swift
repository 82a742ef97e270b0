import Testing
import PrefetchTesting
@testable import PrefetchKit

@Suite struct LatencyWindowTests {
    @Test func keepsTheMostRecentSamplesOldestFirst() throws {
        var window = try LatencyWindow(capacity: 3)
        for ms in [10, 20, 30, 40, 50] { window.record(.milliseconds(ms)) }
        #expect(window.count == 3)
        #expect(window.samples == [.milliseconds(30), .milliseconds(40), .milliseconds(50)])
        window.removeAll()
        #expect(window.isEmpty && window.samples.isEmpty && window.percentile(0.9) == nil)
    }

    @Test func theEstimateWaitsForFiveSamplesThenIsTheNinetiethPercentile() throws {
        var window = try LatencyWindow(capacity: 64)
        for ms in [150, 200, 300, 400] { window.record(.milliseconds(ms)) }
        #expect(window.expected == nil)
        window.record(.milliseconds(500))
        // Nearest rank: ceil(5 × 0.9) = 5th of 5.
        #expect(window.expected == .milliseconds(500))
        #expect(window.percentile(0.5) == .milliseconds(300))
        #expect(window.percentile(0) == .milliseconds(150))
        for ms in 1...5 { window.record(.milliseconds(ms)) }
        // Ten samples 1, 2, 3, 4, 5, 150, 200, 300, 400, 500: ceil(10 × 0.9) = 9th.
        #expect(window.expected == .milliseconds(400))
        #expect(window.summary.p90 == window.expected && window.summary.count == 10)
    }

    @Test func percentilesMatchASortedListByNearestRank() throws {
        // Oracle: sort, take the ceil(n × p)-th value (1-based), for every fill level of the ring.
        var window = try LatencyWindow(capacity: 7)
        var all: [Duration] = []
        for i in 0..<30 {
            let sample = Duration.milliseconds((i * 37) % 101)
            window.record(sample)
            all.append(sample)
            let kept = all.suffix(7).sorted()
            for p in [0.1, 0.5, 0.9, 1.0] {
                let rank = max(Int((Double(kept.count) * p).rounded(.up)), 1)
                #expect(window.percentile(p) == kept[rank - 1], "i \(i) p \(p)")
            }
        }
    }

    @Test func aNegativeSampleCountsAsZeroAndABadCapacityIsNamed() throws {
        var window = try LatencyWindow(capacity: 2)
        window.record(.milliseconds(-5))
        #expect(window.samples == [.zero])
        #expect { try LatencyWindow(capacity: 0) } throws: {
            ($0 as? PrefetchError)?.message == "LatencyWindow capacity must be at least 1, got 0"
        }
    }

    @Test func windowsWithTheSameSamplesAreEqualWhateverTheRingPosition() throws {
        var a = try LatencyWindow(capacity: 2), b = try LatencyWindow(capacity: 2)
        for ms in [1, 2, 3] { a.record(.milliseconds(ms)) }
        for ms in [2, 3] { b.record(.milliseconds(ms)) }
        #expect(a == b)
        b.record(.milliseconds(4))
        #expect(a != b)
    }

    @Test func cancelledLoadsCountAsAtLeastTheirRunningTime() throws {
        // Given loads that finished after 100, 200 and 300 ms, and two cancelled after 150 and 250 ms
        var window = try LatencyWindow(capacity: 8)
        window.record(.milliseconds(100))
        window.recordCancelled(after: .milliseconds(150))
        window.record(.milliseconds(200))
        window.recordCancelled(after: .milliseconds(250))
        window.record(.milliseconds(300))
        // Then the product-limit estimate, by hand: at 100 ms 1 of 5 at risk finishes (done 1/5);
        // the load cancelled at 150 ms leaves 3 at risk; at 200 ms 1 of 3 finishes
        // (done 1 − 4/5·2/3 = 7/15); the one cancelled at 250 ms leaves 1; at 300 ms it finishes (done 1).
        #expect(window.percentile(0.2) == .milliseconds(100))
        #expect(window.percentile(0.4) == .milliseconds(200))
        #expect(window.percentile(0.5) == .milliseconds(300))
        #expect(window.expected == .milliseconds(300) && window.typical == .milliseconds(300))
        // Leaving the cancelled loads out would have put the median at 200 ms: biased low.
        #expect(window.summary.median == .milliseconds(200) && window.summary.count == 3)
        #expect(window.cancelledCount == 2 && window.count == 5)
    }

    @Test func whenTheSlowLoadsWereAllCancelledTheEstimateIsTheLongestRunningTime() throws {
        // Given one load that finished after 100 ms and four cancelled after 400 to 700 ms
        var window = try LatencyWindow(capacity: 8)
        window.record(.milliseconds(100))
        for ms in [400, 500, 600, 700] { window.recordCancelled(after: .milliseconds(ms)) }
        // Then only a fifth is known to be done: the 90th percentile is at least the longest run
        #expect(window.percentile(0.2) == .milliseconds(100))
        #expect(window.expected == .milliseconds(700))
        // And a window that differs only in which samples were cancelled is not equal
        var other = try LatencyWindow(capacity: 8)
        for ms in [100, 400, 500, 600, 700] { other.record(.milliseconds(ms)) }
        #expect(other.samples == window.samples && other != window)
        #expect(other.expected == .milliseconds(700) && other.percentile(0.2) == .milliseconds(100))
    }

    @Test func aFetcherCountsACancelledLoadAsRunningAtLeastAsLongAsItRan() async throws {
        // Given a fetcher on a manual clock with two loads running
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 2), clock: clock, loader: loader)
        fetcher.prefetch([1, 2])
        await loader.waitForCalls(2)
        // When load 1 finishes after 100 ms and load 2 is cancelled 300 ms after it started
        clock.advance(by: .milliseconds(100))
        loader.succeed(1, with: 1)
        _ = try await fetcher.value(for: 1)
        clock.advance(by: .milliseconds(200))
        fetcher.cancelPrefetching([2])
        // Then the window holds 100 ms (finished) and 300 ms (cancelled, measured when it was
        // cancelled), and the finished-load statistics leave the cancelled one out
        let window = fetcher.latencyWindow
        #expect(window.samples == [.milliseconds(100), .milliseconds(300)])
        #expect(window.cancelledCount == 1)
        #expect(fetcher.statistics.latency.count == 1 && fetcher.statistics.latency.median == .milliseconds(100))
        // Even when its task ends later, nothing more is recorded
        await loader.waitForCancellations(1)
        clock.advance(by: .milliseconds(500))
        #expect(fetcher.latencyWindow.samples == [.milliseconds(100), .milliseconds(300)])
        fetcher.shutdown()
    }

    @Test func aCancelledMarkLeavesTheRingWithItsSample() throws {
        // Given a ring of three with a cancelled load's time in it
        var window = try LatencyWindow(capacity: 3)
        window.record(.milliseconds(10))
        window.recordCancelled(after: .milliseconds(20))
        window.record(.milliseconds(30))
        window.record(.milliseconds(40))
        // Then the oldest (finished) sample left, and the mark stayed with 20 ms
        #expect(window.samples == [.milliseconds(20), .milliseconds(30), .milliseconds(40)])
        #expect(window.cancelledCount == 1 && window.summary.count == 2)
        // When the cancelled sample is pushed out too
        window.record(.milliseconds(50))
        // Then no mark is left and percentiles are plain nearest rank again
        #expect(window.cancelledCount == 0 && window.summary.count == 3)
        #expect(window.percentile(0.5) == .milliseconds(40) && window.percentile(1) == .milliseconds(50))
    }
}
