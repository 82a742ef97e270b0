import Testing
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
}
