import Testing
@testable import PrefetchKit

@Suite struct AdaptivePolicyTests {
    let policy = PrefetchPolicies.adaptive

    private func context(offset: Double = 1_000, velocity: Double = 0, phase: MotionPhase? = nil, heading: Int? = nil,
                         latency: Duration = .milliseconds(400), history: ScrollHistory = .none) -> ScrollContext {
        ScrollContext(viewport: offset..<(offset + 500), contentLength: 100_000, velocity: velocity,
                      phase: phase ?? (velocity == 0 ? .idle : .dragging), heading: heading, expectedLatency: latency,
                      history: history)
    }

    /// How far the plan reaches behind the viewport [1_000, 1_500) of a view heading down.
    private func behind(_ plan: PrefetchPlan) -> Double {
        1_000 - reach(plan, from: 1_000, forward: false)
    }

    /// The union of the plan's regions, checked to have no gap between `from` and its far end
    /// in the direction given; returns the far end.
    private func reach(_ plan: PrefetchPlan, from edge: Double, forward: Bool = true) -> Double {
        let regions = plan.regions.filter { forward ? $0.upperBound > edge : $0.lowerBound < edge }
            .sorted { forward ? $0.lowerBound < $1.lowerBound : $0.upperBound > $1.upperBound }
        var reach = edge
        for region in regions {
            if forward {
                #expect(region.lowerBound <= reach + 1e-9, "gap in the plan between \(reach) and \(region.lowerBound)")
                reach = max(reach, region.upperBound)
            } else {
                #expect(region.upperBound >= reach - 1e-9, "gap in the plan between \(region.upperBound) and \(reach)")
                reach = min(reach, region.lowerBound)
            }
        }
        return reach
    }

    @Test func atRestItLooksTheWayTheUserWasGoingAndALittleBehind() {
        // Given a view at rest after scrolling down (heading 1, the default)
        let down = policy.plan(for: context())
        // Then it holds 3 viewports below and 0.1 viewport above
        #expect(reach(down, from: 1_500) == 1_500 + 3 * 500)
        #expect(down.regions.contains(950..<1_000))
        // And after scrolling up, 3 viewports above and 0.1 below
        let up = policy.plan(for: context(offset: 5_000, heading: -1))
        #expect(reach(up, from: 5_000, forward: false) == 5_000 - 3 * 500)
        #expect(up.regions.contains(5_500..<5_550))
    }

    @Test func atRestItKeepsWhatTheLastMotionTravelledByTheOddsOfTurningBack() {
        // With no history the share is the prior 0.2: odds 0.25, so 2 × 3 × 0.25 = 1.5 screens
        // behind, but never more than the last motion travelled.
        #expect(behind(policy.plan(for: context(history: ScrollHistory(motions: 0, reversals: 0, sweptLength: 2_000)))) == 750)
        #expect(behind(policy.plan(for: context(history: ScrollHistory(motions: 0, reversals: 0, sweptLength: 300)))) == 300)
        // After a jump (nothing travelled) only the standing 0.1 screen.
        #expect(behind(policy.plan(for: context(history: .none))) == 50)
        // A user who never turned back in 6 motions: (0 + 0.8) / (6 + 4) = 0.08, odds 0.087,
        // 2 × 3 × 0.087 = 0.52 screens.
        let steady = ScrollHistory(motions: 6, reversals: 0, sweptLength: 5_000)
        #expect(abs(behind(policy.plan(for: context(history: steady))) - 500 * 6 * 0.08 / 0.92) < 1e-9)
        // One who turns back half the time: (3 + 0.8) / 10 = 0.38, odds 0.61, capped at 3 screens
        // behind, as far as ahead.
        let fickle = ScrollHistory(motions: 6, reversals: 3, sweptLength: 5_000)
        let plan = policy.plan(for: context(offset: 5_000, history: fickle))
        #expect(reach(plan, from: 5_000, forward: false) == 5_000 - 3 * 500)
        #expect(reach(plan, from: 5_500) == 5_500 + 3 * 500)
    }

    @Test func aCoastingFlingKeepsTheRowsJustPassedOnlyForUsersWhoTurnBack() {
        let fling = MotionPhase.decelerating(restingOffset: 3_000, rate: 0.998)
        // Share (1 + 0.8) / (1 + 4) = 0.36 > 0.25: 1.5 screens behind, at most what the fling travelled.
        let fickle = ScrollHistory(motions: 1, reversals: 1, sweptLength: 2_000)
        #expect(behind(policy.plan(for: context(velocity: 4_000, phase: fling, history: fickle))) == 750)
        let justReleased = ScrollHistory(motions: 1, reversals: 1, sweptLength: 200)
        #expect(behind(policy.plan(for: context(velocity: 4_000, phase: fling, history: justReleased))) == 200)
        // Share 0.8 / 5 = 0.16: nothing behind while fast, the standing 0.1 screen when slow.
        let steady = ScrollHistory(motions: 1, reversals: 0, sweptLength: 2_000)
        #expect(behind(policy.plan(for: context(velocity: 4_000, phase: fling, history: steady))) == 0)
        #expect(behind(policy.plan(for: context(velocity: 100, phase: .decelerating(restingOffset: 1_050, rate: 0.998),
                                                history: steady))) == 50)
        // And the prior alone is a steady user: nothing behind.
        #expect(behind(policy.plan(for: context(velocity: 4_000, phase: fling))) == 0)
    }

    @Test func whileDraggingTheLeadGrowsWithSpeedAndLatencyAndNothingIsBehindWhenFast() {
        let slow = reach(policy.plan(for: context(velocity: 100)), from: 1_500)
        let fast = reach(policy.plan(for: context(velocity: 1_000)), from: 1_500)
        let fastSlowNetwork = reach(policy.plan(for: context(velocity: 1_000, latency: .milliseconds(800))), from: 1_500)
        #expect(slow < fast && fast < fastSlowNetwork)
        // speed × latency × 3.5 + half a screen: 1000 × 0.4 × 3.5 + 250
        #expect(fast == 1_500 + 1_650)
        // At least 1.25 screens, at most 4
        #expect(slow == 1_500 + 1.25 * 500)
        #expect(fastSlowNetwork == 1_500 + 4 * 500)
        #expect(reach(policy.plan(for: context(velocity: 50_000)), from: 1_500) == 1_500 + 4 * 500)
        #expect(policy.plan(for: context(velocity: 2_000)).regions.allSatisfy { $0.lowerBound >= 1_500 })
    }

    @Test func aFlingCoversTheWayToWhereItStopsAndTheWindowKeptThere() {
        // Given a fling that stops 2,000 pt further on (viewport 3,000..<3,500)
        let plan = policy.plan(for: context(velocity: 4_000, phase: .decelerating(restingOffset: 3_000, rate: 0.998)))
        // Then the plan runs without a gap from the viewport to 3 screens past the resting viewport
        #expect(reach(plan, from: 1_500) == 3_500 + 3 * 500)
        #expect(plan.regions.allSatisfy { $0.lowerBound >= 1_500 })
    }

    @Test func aLongFlingPlansItsWholeWayAndWhereItStops() {
        // Given a fling that stops 20 screens away
        let plan = policy.plan(for: context(velocity: 20_000, phase: .decelerating(restingOffset: 11_000, rate: 0.998)))
        // Then it holds the whole way, the resting viewport and 3 screens past it, without a gap
        // (the controller, not the policy, decides which cells of the way are worth a load)
        #expect(reach(plan, from: 1_500) == 11_500 + 3 * 500)
        #expect(plan.regions.contains { $0.contains(7_000) })
        #expect(plan.regions.allSatisfy { $0.lowerBound >= 1_500 })
    }

    @Test func anAnimatedScrollHoldsTheDestinationAndTheWindowPastIt() {
        let plan = policy.plan(for: context(phase: .programmatic(targetOffset: 40_000, duration: .milliseconds(300))))
        #expect(plan.regions.contains(40_000..<40_500))
        #expect(reach(plan, from: 40_000) == 40_500 + 3 * 500)
        #expect(plan.regions.allSatisfy { $0.lowerBound >= 40_000 })
        // Upward: the window lies above the destination
        let up = policy.plan(for: context(offset: 50_000, phase: .programmatic(targetOffset: 10_000, duration: .milliseconds(300))))
        #expect(reach(up, from: 10_500, forward: false) == 10_000 - 3 * 500)
    }

    @Test func backwardDraggingMirrorsTheWindow() {
        let plan = policy.plan(for: context(offset: 10_000, velocity: -1_000))
        #expect(plan.regions.allSatisfy { $0.upperBound <= 10_000 })
        #expect(abs((plan.regions.map(\.lowerBound).min() ?? 0) - (10_000 - 1_650)) < 1e-6)
    }

    @Test func regionsStayInsideTheContentForAnyMotion() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let offset = rng.nextUnitInterval() * 20_000
            let velocity = (rng.nextUnitInterval() - 0.5) * 20_000
            let phase: MotionPhase = switch rng.next() % 4 {
            case 0: .idle
            case 1: .dragging
            case 2: .decelerating(restingOffset: rng.nextUnitInterval() * 20_000, rate: 0.998)
            default: .programmatic(targetOffset: rng.nextUnitInterval() * 20_000, duration: .milliseconds(300))
            }
            let c = ScrollContext(viewport: offset..<(offset + 400), contentLength: 20_400, velocity: velocity, phase: phase,
                                  expectedLatency: rng.next() % 4 == 0 ? .zero : .milliseconds(Int(rng.next() % 2_000)))
            for region in policy.plan(for: c).regions {
                #expect(region.lowerBound >= 0 && region.upperBound <= 20_400 && !region.isEmpty)
            }
        }
    }

    @Test func degenerateContextsPlanNothing() {
        #expect(policy.plan(for: ScrollContext(viewport: 0..<0, contentLength: 100)) == .empty)
        #expect(policy.plan(for: ScrollContext(viewport: 0..<100, contentLength: .nan)) == .empty)
        #expect(policy.plan(for: ScrollContext(viewport: .infinity..<(.infinity), contentLength: 100)) == .empty)
    }

    @Test func aggressivenessScalesEveryLengthAhead() throws {
        // Given the standard policy at half and double its aggressiveness
        let half = try policy.with(aggressiveness: 0.5), double = try policy.with(aggressiveness: 2)
        // Then at rest the window ahead is half and double the standard 3 screens
        #expect(reach(half.plan(for: context()), from: 1_500) == 1_500 + 0.5 * 3 * 500)
        #expect(reach(double.plan(for: context()), from: 1_500) == 1_500 + 2 * 3 * 500)
        // And while dragging the lead scales the same way (1000 × 0.4 × 3.5 + 250 = 1,650 at 1)
        #expect(reach(half.plan(for: context(velocity: 1_000)), from: 1_500) == 1_500 + 0.5 * 1_650)
        // And past a fling's resting viewport too
        let fling = context(velocity: 4_000, phase: .decelerating(restingOffset: 3_000, rate: 0.998))
        #expect(reach(double.plan(for: fling), from: 1_500) == 3_500 + 2 * 3 * 500)
        // And the reach never shrinks as the knob turns up, whatever the motion
        var rng = SplitMix64(seed: 5)
        for _ in 0..<500 {
            let velocity = (rng.nextUnitInterval() - 0.5) * 16_000
            let phase: MotionPhase = switch rng.next() % 3 {
            case 0: .idle
            case 1: .dragging
            default: .decelerating(restingOffset: 1_000 + velocity / 2, rate: 0.998)
            }
            let c = context(velocity: velocity, phase: phase)
            let forward = c.direction == 0 ? c.heading >= 0 : c.direction > 0
            var last = forward ? 1_500.0 : 1_000.0
            for a in [0.25, 0.5, 1, 1.5, 2] {
                let far = reach(try policy.with(aggressiveness: a).plan(for: c), from: forward ? 1_500 : 1_000, forward: forward)
                #expect(forward ? far >= last : far <= last, "aggressiveness \(a) reaches \(far), less than \(last)")
                last = far
            }
        }
    }

    @Test func badParametersNameTheValue() throws {
        #expect { try PrefetchPolicies.Adaptive(margin: -1) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive margin is -1.0, but it must be a finite number of viewports, at least 0"
        }
        #expect { try PrefetchPolicies.Adaptive(idleLead: .nan) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive idleLead is nan, but it must be a finite number of viewports, at least 0"
        }
        #expect { try PrefetchPolicies.Adaptive(minimumLead: 5, maximumLead: 2) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive minimumLead (5.0) must not exceed maximumLead (2.0)"
        }
        #expect { try PrefetchPolicies.adaptive.with(aggressiveness: -0.5) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive aggressiveness is -0.5, but it must be a finite number of viewports, at least 0"
        }
        #expect { try PrefetchPolicies.Adaptive(reversalPrior: 1.5) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive reversalPrior is 1.5, but it must be a share from 0 to 1"
        }
        #expect { try PrefetchPolicies.Adaptive(reversalBehind: -2) } throws: {
            ($0 as? PrefetchError)?.message == "Adaptive reversalBehind is -2.0, but it must be a finite number of viewports, at least 0"
        }
        #expect(throws: Never.self) { try PrefetchPolicies.Adaptive() }
        #expect(try PrefetchPolicies.Adaptive() == PrefetchPolicies.adaptive)
    }
}
