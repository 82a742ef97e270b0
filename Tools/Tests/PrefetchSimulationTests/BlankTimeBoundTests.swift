import Foundation
import PrefetchKit
import PrefetchToolSupport
import Testing
@testable import PrefetchSimulation

@Suite struct BlankTimeBoundTests {
    typealias Interval = BlankTimeBound.Interval

    /// The exact optimum of the relaxation every policy lives in (future known, every request
    /// started at 0, the link's full capacity, an item once ready stays ready): on one link with
    /// every item released at 0, loading the items one after another in the order they finish
    /// is as good as any preemptive schedule (each item still finishes no later: the items that
    /// finished before it, and it, fit in the time it took), so trying every order is exact.
    static func bruteForceOptimum(_ intervals: [Interval], sizes: [Int: Int], capacity: Double, minRoundTrip: Double) -> Double {
        let items = sizes.keys.sorted()
        func blank(readyAt ready: [Int: Double]) -> Double {
            intervals.reduce(0) { sum, i in sum + max(0, min(i.end, ready[i.item]!) - i.start) }
        }
        var best = Double.infinity
        func permute(_ rest: [Int], _ done: Double, _ ready: [Int: Double]) {
            if rest.isEmpty { best = min(best, blank(readyAt: ready)) }
            for (k, item) in rest.enumerated() {
                var next = rest
                next.remove(at: k)
                let bytes = done + Double(sizes[item]!)
                var ready = ready
                ready[item] = minRoundTrip + bytes / capacity
                permute(next, bytes, ready)
            }
        }
        permute(items, 0, [:])
        return best
    }

    @Test func neverAboveTheBruteForceOptimumOnSmallRandomCases() {
        var random = SplitMix64(seed: 36)
        var equal = 0
        for _ in 0..<400 {
            let itemCount = Int.random(in: 2...5, using: &random)
            var sizes: [Int: Int] = [:]
            for item in 0..<itemCount { sizes[item] = Int.random(in: 0...200_000, using: &random) }
            var intervals: [Interval] = []
            for _ in 0..<Int.random(in: 1...7, using: &random) {
                let start = Double.random(in: 0...10, using: &random)
                intervals.append(Interval(item: Int.random(in: 0..<itemCount, using: &random), start: start,
                                          end: start + Double.random(in: 0...4, using: &random)))
            }
            let capacity = Double.random(in: 10_000...500_000, using: &random)
            let minRoundTrip = Bool.random(using: &random) ? 0 : Double.random(in: 0...1, using: &random)
            // Disjoint intervals per item: the meter's appearances of one item never overlap.
            intervals = BlankTimeBound.merge(intervals)
            let bound = BlankTimeBound.lowerBound(intervals: intervals, bytes: { sizes[$0]! }, capacity: capacity, minRoundTrip: minRoundTrip)
            let optimum = Self.bruteForceOptimum(intervals, sizes: sizes, capacity: capacity, minRoundTrip: minRoundTrip)
            #expect(bound >= 0)
            #expect(bound <= optimum + 1e-9, "bound \(bound) above the optimum \(optimum) for \(intervals), sizes \(sizes), \(capacity) B/s, r \(minRoundTrip)")
            if abs(bound - optimum) < 1e-9 { equal += 1 }
        }
        // Not vacuous: on many small cases the bound is the optimum itself.
        #expect(equal > 40, "\(equal) of 400 cases tight")
    }

    @Test func theSelectionSavesWhatTheSortedGreedySaves() {
        // The knapsack by selection against the greedy it replaced: sort by on-screen time per
        // byte (empty payloads first, ties by item), take whole while they fit, then one in
        // part. Items with no on-screen time save nothing and are left out by both.
        func sortedGreedy(_ items: [(time: Double, size: Double, item: Int)], budget: Double) -> Double {
            var (budget, saved) = (budget, 0.0)
            for (time, size, _) in items.filter({ $0.time > 0 }).sorted(by: { x, y in
                let (left, right) = (x.time * y.size, y.time * x.size)
                return left != right ? left > right : y.item > x.item
            }) {
                guard size <= budget else { return saved + time * budget / size }
                (saved, budget) = (saved + time, budget - size)
            }
            return saved
        }
        var random = SplitMix64(seed: 37)
        var (partial, whole, none) = (0, 0, 0)
        var mismatches: [String] = []
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...40, using: &random)
            // Few distinct times and sizes: equal ratios (ties), empty payloads and items with
            // no time are common.
            var items = (0..<count).map { item in
                (time: Double(Int.random(in: 0...4, using: &random)) * 0.5, size: Double(Int.random(in: 0...3, using: &random)) * 1_000, item: item)
            }
            items.shuffle(using: &random)
            let sizes = items.reduce(0) { $0 + $1.size }
            let budget = [0, sizes * Double.random(in: 0...1, using: &random), sizes + 1][Int.random(in: 0...2, using: &random)]
            let expected = sortedGreedy(items, budget: budget)
            var selected = items
            let saved = BlankTimeBound.greedySaving(&selected, budget: budget)
            if abs(saved - expected) > 1e-9 * max(1, expected) {
                mismatches.append("\(saved) saved, the sorted greedy \(expected), budget \(budget): \(items)")
            }
            if budget >= sizes { whole += 1 } else if budget == 0 { none += 1 } else { partial += 1 }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of 2,000 differ; the first: \(mismatches.first ?? "")")
        #expect(partial > 300 && whole > 300 && none > 300, "\(partial) partial, \(whole) whole, \(none) empty budgets")
    }

    @Test func handComputedCases() {
        // One item of 100 B on a 50 B/s link, round trips of at least 1 s, on screen 0-10 s: ready at 3 s.
        let one = [Interval(item: 0, start: 0, end: 10)]
        #expect(BlankTimeBound.lowerBound(intervals: one, bytes: { _ in 100 }, capacity: 50, minRoundTrip: 1) == 3)
        #expect(Self.bruteForceOptimum(one, sizes: [0: 100], capacity: 50, minRoundTrip: 1) == 3)
        // It leaves before it could be ready: blank all the time it was on screen.
        #expect(BlankTimeBound.lowerBound(intervals: [Interval(item: 0, start: 0, end: 2)], bytes: { _ in 100 }, capacity: 50) == 2)
        // Two on screen together, 100 B each at 100 B/s: one ready at 1 s, the other at 2 s.
        let two = [Interval(item: 0, start: 0, end: 10), Interval(item: 1, start: 0, end: 10)]
        #expect(BlankTimeBound.lowerBound(intervals: two, bytes: { _ in 100 }, capacity: 100) == 3)
        // Where it is loose: A on screen 1-2 s, B 2-3 s, 150 B each at 100 B/s. Any order leaves
        // at least 1 s (B then A: A ready at 3 s, blank 1 s), but the bound spends the same bytes
        // on A until 2 s and on B after it: A blank until 1.5 s, B never: 0.5 s.
        let loose = [Interval(item: 0, start: 1, end: 2), Interval(item: 1, start: 2, end: 3)]
        #expect(BlankTimeBound.lowerBound(intervals: loose, bytes: { _ in 150 }, capacity: 100) == 0.5)
        #expect(Self.bruteForceOptimum(loose, sizes: [0: 150, 1: 150], capacity: 100, minRoundTrip: 0) == 1)
        // An item on screen twice at once counts once; an empty or reversed interval counts nothing.
        let twice = [Interval(item: 0, start: 0, end: 10), Interval(item: 0, start: 0, end: 10), Interval(item: 1, start: 5, end: 4)]
        #expect(BlankTimeBound.lowerBound(intervals: twice, bytes: { _ in 100 }, capacity: 50) == 2)
    }

    @MainActor
    @Test func theSimulatorReportsABoundNoPolicyBeatsOnASharedLinkAndNoneOnIndependentLatencies() async throws {
        let scenario = Scenario(name: "fling", layout: .list(), viewport: .phoneList,
                                motion: .gestures([.drag(speed: 900, duration: 2), .fling(velocity: -4_000), .pause(duration: 1)]))
        var configuration = SimulationConfiguration()
        configuration.latency = LatencyProfile.emerging.model
        configuration.network = .shared(SharedLink(.emerging))
        var bound: Double?
        for policy: SimulationPolicy in [.policy(PrefetchPolicies.none), .policy(PrefetchPolicies.adaptive), .clairvoyant] {
            let result = try await Simulator.run(scenario, policy: policy, configuration: configuration)
            let b = try #require(result.blankLowerBound)
            #expect(b > 0 && b <= result.blankCellSeconds + 1e-9, "\(policy.name): bound \(b), blank \(result.blankCellSeconds)")
            #expect(bound == nil || bound == b, "the bound depends on the trace and the link, not the policy")
            bound = b
        }
        configuration.network = .independent
        let independent = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.none), configuration: configuration)
        #expect(independent.blankLowerBound == nil)
        #expect(try !independent.roundedJSON().contains("blankLowerBound"))
    }
}
