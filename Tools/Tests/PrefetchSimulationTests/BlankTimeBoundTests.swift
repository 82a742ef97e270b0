import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// The lower bound on blank time against exact optima of its relaxed link, and against real runs.
@Suite("The lower bound on blank time")
@MainActor
struct BlankTimeBoundTests {
    typealias Exposure = BlankTimeBound.Exposure

    /// The exact optimum of the relaxed link: every order of every subset of the items, loaded one
    /// after another at the full capacity from the minimum round trip on (with one release time for
    /// all, splitting or sharing transfers never makes an item ready sooner), the rest never loaded.
    static func optimum(_ exposures: [Exposure], bytes: [Int: Int], link: BlankTimeBound.Link) -> Double {
        let items = Array(Set(exposures.map(\.item))).sorted()
        func blank(_ order: [Int]) -> Double {
            var ready: [Int: Double] = [:], moved = 0.0
            for item in order {
                moved += Double(bytes[item]!)
                ready[item] = link.minimumRoundTrip + moved / link.capacityBytesPerSecond
            }
            return exposures.reduce(0) { $0 + max(0, min(ready[$1.item] ?? .infinity, $1.end) - $1.start) }
        }
        var best = Double.infinity
        func extend(_ order: [Int]) {
            best = min(best, blank(order))
            for item in items where !order.contains(item) { extend(order + [item]) }
        }
        extend([])
        return best
    }

    /// `count` items with one or two appearances each in the first 4 seconds, 1-60 KB, on a 10-100 KB/s link.
    static func randomCase(seed: UInt64) throws -> (exposures: [Exposure], bytes: [Int: Int], link: BlankTimeBound.Link) {
        var rng = SplitMix64(seed: seed)
        let count = 1 + Int(rng.nextUnitInterval() * 5)
        var exposures: [Exposure] = [], bytes: [Int: Int] = [:]
        for item in 0..<count {
            bytes[item] = 1_000 + Int(rng.nextUnitInterval() * 59_000)
            var start = rng.nextUnitInterval() * 2
            for _ in 0..<(rng.nextUnitInterval() < 0.3 ? 2 : 1) {
                let end = start + 0.05 + rng.nextUnitInterval() * 1.5
                exposures.append(Exposure(item: item, start: start, end: end))
                start = end + rng.nextUnitInterval()
            }
        }
        let link = try BlankTimeBound.Link(capacityBytesPerSecond: 10_000 + rng.nextUnitInterval() * 90_000,
                                           minimumRoundTrip: rng.nextUnitInterval() < 0.5 ? 0 : rng.nextUnitInterval() * 0.3)
        return (exposures, bytes, link)
    }

    @Test func neverAboveTheExactOptimumOnRandomCases() throws {
        var tight = 0
        for seed in UInt64(1)...400 {
            let (exposures, bytes, link) = try Self.randomCase(seed: seed)
            let bound = BlankTimeBound.compute(exposures: exposures, bytesToShow: { bytes[$0]! }, link: link)
            let optimum = Self.optimum(exposures, bytes: bytes, link: link)
            #expect(bound.seconds <= optimum + 1e-9, "seed \(seed): bound \(bound.seconds) above the optimum \(optimum)")
            #expect(bound.seconds <= bound.exposed + 1e-9)
            if abs(bound.seconds - optimum) < 1e-9 { tight += 1 }
        }
        // Not vacuous: on many small cases the bound is the optimum itself.
        #expect(tight > 100, "the bound equals the optimum on \(tight) of 400 cases")
    }

    @Test func equalsTheOptimumForOneItem() throws {
        for seed in UInt64(1)...100 {
            let (random, allBytes, link) = try Self.randomCase(seed: seed)
            let exposures = random.filter { $0.item == 0 }
            let bytes = [0: allBytes[0]!]
            let bound = BlankTimeBound.compute(exposures: exposures, bytesToShow: { bytes[$0]! }, link: link)
            #expect(abs(bound.seconds - Self.optimum(exposures, bytes: bytes, link: link)) < 1e-9, "seed \(seed)")
        }
    }

    @Test func equalsTheOptimumWhenEveryCellSharesOneScreen() throws {
        // Cells on one screen together: smallest first is optimal, and the bound is exactly that schedule.
        for seed in UInt64(1)...100 {
            let (random, bytes, link) = try Self.randomCase(seed: seed)
            let exposures = Set(random.map(\.item)).sorted().map { Exposure(item: $0, start: 0.2, end: 1.7) }
            let bound = BlankTimeBound.compute(exposures: exposures, bytesToShow: { bytes[$0]! }, link: link)
            let optimum = Self.optimum(exposures, bytes: bytes, link: link)
            #expect(abs(bound.seconds - optimum) < 1e-9, "seed \(seed): bound \(bound.seconds), optimum \(optimum)")
        }
    }

    @Test func aHandComputedCase() throws {
        // 1,000 B/s from 0.1 s: a 500-byte item shown from 0 to 1 s is ready at 0.6 s at the earliest.
        let link = try BlankTimeBound.Link(capacityBytesPerSecond: 1_000, minimumRoundTrip: 0.1)
        let one = BlankTimeBound.compute(exposures: [Exposure(item: 3, start: 0, end: 1)], bytesToShow: { _ in 500 }, link: link)
        #expect(abs(one.seconds - 0.6) < 1e-12)
        #expect(abs(one.exposed - 1) < 1e-12)
        // With previews of 100 bytes it can show something at 0.2 s.
        let preview = BlankTimeBound.compute(exposures: [Exposure(item: 3, start: 0, end: 1)], bytesToShow: { _ in 100 }, link: link)
        #expect(abs(preview.seconds - 0.2) < 1e-12)
        // Two such items on screen together: one at 0.6 s, the other at 1.1 s, after the screen left.
        let two = BlankTimeBound.compute(exposures: [Exposure(item: 1, start: 0, end: 1), Exposure(item: 2, start: 0, end: 1)],
                                         bytesToShow: { _ in 500 }, link: link)
        #expect(abs(two.seconds - 1.6) < 1e-12)
    }

    @Test func badLinksAreRefusedByName() {
        #expect(throws: SimulationError.self) { try BlankTimeBound.Link(capacityBytesPerSecond: 0, minimumRoundTrip: 0) }
        #expect(throws: SimulationError.self) { try BlankTimeBound.Link(capacityBytesPerSecond: 1, minimumRoundTrip: -1) }
        #expect(BlankTimeBound.Link(.independent, latency: LatencyProfile.lte.model) == nil)
        #expect(BlankTimeBound.Link(.shared(SharedLink(.lte)), latency: LatencyProfile.lte.model)?.minimumRoundTrip == 0)
    }

    @Test func boundsEveryPolicyOnARealScenario() async throws {
        let scenario = StandardSuite.scenario(.repeatedFlings, layout: .list)
        var configuration = SimulationConfiguration()
        configuration.latency = LatencyProfile.emerging.model
        configuration.network = .shared(SharedLink(.emerging))
        let bound = try #require(try await Simulator.blankTimeBound(of: scenario, configuration: configuration))
        #expect(bound.seconds > 0)
        for policy in [SimulationPolicy.policy(PrefetchPolicies.none), .policy(PrefetchPolicies.Adaptive.standard), .clairvoyant] {
            let result = try await Simulator.run(scenario, policy: policy, configuration: configuration)
            #expect(bound.seconds <= result.blankCellSeconds, "\(policy.name): \(result.blankCellSeconds) s below the bound \(bound.seconds) s")
            #expect(bound.appearances == result.displayed, "the recording saw every counted appearance of \(policy.name)")
        }
        // A link that never delivers: the blank time is every counted cell's time on screen.
        configuration.latency = try LatencyModel(.fixed(.seconds(10_000)))
        let never = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.none), configuration: configuration)
        #expect(abs(never.blankCellSeconds - bound.exposed) < 1e-6)
    }
}
