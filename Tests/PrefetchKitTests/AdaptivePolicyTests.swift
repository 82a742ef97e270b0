import Testing
@testable import PrefetchKit

@Suite struct AdaptivePolicyTests {
    let policy = PrefetchPolicies.Adaptive.standard

    private func context(offset: Double = 1_000, velocity: Double = 0, decelerating: Bool = false, latency: Duration? = .milliseconds(400)) -> ScrollContext {
        ScrollContext(viewport: offset..<(offset + 500), contentLength: 100_000, velocity: velocity,
                      isDecelerating: decelerating, expectedLatency: latency)
    }

    /// The union of the plan's regions ahead of the viewport, checked to have no gap.
    private func reachAhead(_ plan: PrefetchPlan, from edge: Double) -> Double {
        let ahead = plan.regions.filter { $0.lowerBound >= edge }.sorted { $0.lowerBound < $1.lowerBound }
        var reach = edge
        for region in ahead {
            #expect(region.lowerBound <= reach + 1e-9, "gap in the plan between \(reach) and \(region.lowerBound)")
            reach = max(reach, region.upperBound)
        }
        return reach
    }

    @Test func atRestItKeepsItsMinimumWindowAheadAndALittleBehind() {
        let plan = policy.plan(for: context())
        #expect(reachAhead(plan, from: 1_500) == 1_500 + 1.25 * 500)
        #expect(plan.regions.contains(950..<1_000))   // 0.1 screen behind
    }

    @Test func theLeadGrowsWithSpeedAndLatencyAndNothingIsBehindWhenFast() {
        let slow = reachAhead(policy.plan(for: context(velocity: 300)), from: 1_500)
        let fast = reachAhead(policy.plan(for: context(velocity: 2_000)), from: 1_500)
        let fastSlowNetwork = reachAhead(policy.plan(for: context(velocity: 2_000, latency: .milliseconds(800))), from: 1_500)
        #expect(slow < fast && fast < fastSlowNetwork)
        // speed × latency × 2.5 + half a screen: 2000 × 0.4 × 2.5 + 250
        #expect(fast == 1_500 + 2_250)
        #expect(policy.plan(for: context(velocity: 2_000)).regions.allSatisfy { $0.lowerBound >= 1_500 })
        // Capped at six screens
        #expect(reachAhead(policy.plan(for: context(velocity: 50_000)), from: 1_500) == 1_500 + 6 * 500)
    }

    @Test func aFlingAsksForItsArrivalsInOrderAndReachesWhereItWillStop() {
        // 4000 pt/s at 0.998 per ms stops about 4000 × 0.499 ≈ 1996 pt further on.
        let plan = policy.plan(for: context(velocity: 4_000, decelerating: true))
        let stopping = 4.0 * 0.998 / 0.002
        let reach = reachAhead(plan, from: 1_500)
        #expect(abs(reach - (1_500 + stopping + 1.25 * 500)) < 1e-6)
        // The first region starts where the view arrives after the in-time share of the latency, not at the edge.
        let first = plan.regions[0]
        #expect(first.lowerBound > 1_500)
        // The resting viewport comes before the items the view reaches too soon.
        let restIndex = plan.regions.firstIndex { $0.contains(1_000 + stopping + 250) }!
        let soonIndex = plan.regions.firstIndex { $0.contains(1_501) }!
        #expect(restIndex < soonIndex)
    }

    @Test func backwardScrollingMirrorsTheWindow() {
        let plan = policy.plan(for: context(offset: 10_000, velocity: -2_000))
        #expect(plan.regions.allSatisfy { $0.upperBound <= 10_000 })
        #expect(abs((plan.regions.map(\.lowerBound).min() ?? 0) - (10_000 - 2_250)) < 1e-6)
    }

    @Test func regionsStayInsideTheContentAndNeverLeaveGapsForAnyMotion() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let offset = rng.nextUnitInterval() * 20_000
            let velocity = (rng.nextUnitInterval() - 0.5) * 20_000
            let c = ScrollContext(viewport: offset..<(offset + 400), contentLength: 20_400, velocity: velocity,
                                  isDecelerating: rng.next() % 2 == 0,
                                  expectedLatency: rng.next() % 4 == 0 ? nil : .milliseconds(Int(rng.next() % 2_000)))
            let plan = policy.plan(for: c)
            for region in plan.regions {
                #expect(region.lowerBound >= 0 && region.upperBound <= 20_400 && !region.isEmpty)
            }
            if velocity >= 0 { _ = reachAhead(plan, from: offset + 400) }
        }
    }

    @Test func noMeasurementMeansTheFallbackLatency() {
        let measured = policy.plan(for: context(velocity: 1_000, latency: .milliseconds(300)))
        let unmeasured = policy.plan(for: context(velocity: 1_000, latency: nil))
        #expect(measured == unmeasured)
    }

    @Test func badParametersNameTheValue() {
        #expect { try PrefetchPolicies.Adaptive(margin: -1) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive margin is -1.0, but it must be a finite number of viewports, at least 0"
        }
        #expect { try PrefetchPolicies.Adaptive(minimumLead: 5, maximumLead: 2) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive minimumLead (5.0) must not exceed maximumLead (2.0)"
        }
        #expect { try PrefetchPolicies.Adaptive(fallbackLatency: .seconds(-1)) } throws: { $0 is PrefetchError }
        #expect(throws: Never.self) { try PrefetchPolicies.Adaptive() }
    }
}
