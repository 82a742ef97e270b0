import Foundation
import Testing
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
@testable import PrefetchSimulation

@MainActor
@Suite struct SimulatorTests {
    /// Ten rows of 100 pt in a 100 pt viewport: one row visible at a time.
    private func tinyList(_ gestures: [ScrollGesture]) -> Scenario {
        Scenario(
            name: "tiny", layout: ScenarioLayout(kind: .list, itemCount: 10, itemWidth: 0, itemHeight: 100, spacing: 0),
            viewport: Viewport(width: 100, height: 100), motion: .gestures(gestures))
    }

    private func fixed(_ seconds: Double) throws -> SimulationConfiguration {
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.fixed(.seconds(seconds)))
        configuration.network = .independent   // the latency is the whole load: hand-computed waits
        configuration.retry = .none
        return configuration
    }

    @Test func aJumpShowsABlankCellForExactlyOneLoad() async throws {
        // Given a fixed 0.5 s latency and no prefetching
        // When the view jumps to row 5 on the first frame and stays there
        let result = try await Simulator.run(tinyList([.jump(item: 5), .pause(duration: 1)]), policy: .policy(PrefetchPolicies.none), configuration: fixed(0.5))
        // Then row 5 appears once, blank, and waits exactly one load
        #expect(result.displayed == 1)
        #expect(result.displayReadyRate == 0)
        #expect(abs(result.visibleWaitMeanMs - 500) < 1e-6)
        #expect(abs(result.visibleWaitP95Ms - 500) < 1e-6)
        #expect(abs(result.blankCellSeconds - 0.5) < 1e-9)
        // Row 1's cell was prepared on the first layout; the jump recycled it and cancelled its load.
        #expect(result.loadsCancelled >= 1)
        #expect(result.peakInFlight <= 6)
    }

    @Test func aPrefetchedRowIsReadyWhenItScrollsIn() async throws {
        // Given a 0.2 s latency and the UIKit-like window, the view rests for a second, then scrolls one row
        let scenario = tinyList([.pause(duration: 1), .drag(speed: 100, duration: 1), .pause(duration: 0.5)])
        let prefetched = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.uikitLike), configuration: fixed(0.2))
        // Then every row that appears after the first screen is ready
        #expect(prefetched.displayed >= 1)
        #expect(prefetched.displayReadyRate == 1)
        #expect(prefetched.visibleWaitMeanMs == 0)
        #expect(prefetched.blankCellSeconds == 0)
    }

    @Test func sameSeedSameNumbers() async throws {
        // Three of the suite's eight flings on its grid: a fling and a look each, rest between.
        let scenario = Scenario(
            name: "three-flings-grid", layout: .grid(), viewport: .seedGrid,
            gestures: (0..<3).flatMap { _ in [ScrollGesture.fling(velocity: 3_000), .pause(duration: 0.8)] })
        var configuration = SimulationConfiguration()
        configuration.seed = 42
        for policy in SimulationPolicy.standard {
            let a = try await Simulator.run(scenario, policy: policy, configuration: configuration)
            let b = try await Simulator.run(scenario, policy: policy, configuration: configuration)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(try encoder.encode(a) == encoder.encode(b), "policy \(policy.name) is not deterministic")
        }
        configuration.seed = 43
        let other = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.uikitLike), configuration: configuration)
        configuration.seed = 42
        let base = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.uikitLike), configuration: configuration)
        #expect(other != base, "a different seed should draw different latencies")
    }

    @Test func theClairvoyantReferenceIsNeverBeatenWhenItKnowsEveryDuration() async throws {
        // With independent latencies the reference knows each load's duration exactly. Every
        // kind of motion once, the layouts alternating: the reference's edge comes from the
        // motion, and the whole suite (72 runs) made this the lab's slowest test (NOTES).
        var configuration = SimulationConfiguration()
        configuration.network = .independent
        let layouts = ScenarioLayout.Kind.allCases
        for (index, kind) in StandardSuite.Kind.allCases.enumerated() {
            let scenario = StandardSuite.scenario(kind, layout: layouts[index % layouts.count])
            var results: [SimulationResult] = []
            for policy in SimulationPolicy.standard { results.append(try await Simulator.run(scenario, policy: policy, configuration: configuration)) }
            let reference = results.first { $0.policy == "clairvoyant" }!
            for result in results where result.policy != "clairvoyant" {
                #expect(
                    result.displayReadyRate <= reference.displayReadyRate + 1e-9,
                    "\(result.policy) beats the reference on \(scenario.name): \(result.displayReadyRate) > \(reference.displayReadyRate)")
            }
        }
    }

    @Test func latencyModelsDrawWhatTheyPromise() async throws {
        let model = try LatencyModel(.logNormal(median: .milliseconds(150), p99: .milliseconds(1_500)))
        let draws = (0..<20_000).map { model.draw(seed: 7, item: $0, load: 0, attempt: 1).latency }.sorted()
        let median = draws[draws.count / 2], p99 = draws[Int(Double(draws.count) * 0.99)]
        #expect((.milliseconds(140)...(.milliseconds(160))).contains(median), "median \(median)")
        #expect((.milliseconds(1_300)...(.milliseconds(1_700))).contains(p99), "p99 \(p99)")
        let link = try LatencyModel(.bandwidth(base: .milliseconds(50), bytesPerSecond: 100_000))
        #expect(link.draw(seed: 1, item: 1, load: 0, attempt: 1, payloadBytes: 50_000).latency == .milliseconds(550))
        let failing = try LatencyModel(.fixed(.milliseconds(100)), failureRate: 0.25)
        let failures = (0..<10_000).filter { failing.draw(seed: 3, item: $0, load: 0, attempt: 1).fails }.count
        #expect((2_200...2_800).contains(failures))
    }

    @Test func impossibleParametersAreRefusedWithTheRule() async {
        func refused(_ distribution: LatencyModel.Distribution, failureRate: Double = 0) -> String? {
            do { _ = try LatencyModel(distribution, failureRate: failureRate); return nil } catch { return (error as? PrefetchError)?.message }
        }
        #expect(refused(.fixed(.seconds(-1))) == "fixed latency is -1.0 seconds, but it must be at least 0")
        #expect(refused(.logNormal(median: .zero, p99: .seconds(1))) == "log-normal median is 0.0 seconds, but it must be greater than 0")
        #expect(refused(.logNormal(median: .milliseconds(500), p99: .milliseconds(100)))
                == "log-normal p99 (0.1 seconds) is below the median (0.5 seconds); the 99th percentile must be at least the median")
        #expect(refused(.bandwidth(base: .zero, bytesPerSecond: 0)) == "bandwidth is 0.0 bytes/s, but it must be a finite number greater than 0")
        #expect(refused(.fixed(.milliseconds(100)), failureRate: 1.5) == "failure rate is 1.5, but it must be from 0 to 1")
        #expect(refused(.fixed(.zero), failureRate: 1) == nil)
        var configuration = SimulationConfiguration()
        configuration.maxConcurrentLoads = 0
        await #expect { try await Simulator.run(tinyList([]), policy: .policy(PrefetchPolicies.none), configuration: configuration) } throws: {
            ($0 as? SimulationError)?.message == "concurrency cap is 0, but it must be at least 1"
        }
        await #expect { try await Simulator.run(tinyList([.jump(item: 10)]), policy: .policy(PrefetchPolicies.none)) } throws: {
            ($0 as? SimulationError)?.description == "gestures[0]: jump item 10 is out of range 0..<10"
        }
    }

    @Test func aFailingNetworkIsRetriedAndRunsRepeat() async throws {
        // Given a network where 30% of attempts fail, retried up to 3 times with back-off
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.logNormal(median: .milliseconds(100), p99: .milliseconds(800)), failureRate: 0.3)
        configuration.retry = .standard
        let scenario = tinyList([.drag(speed: 300, duration: 2), .fling(velocity: -2_000), .pause(duration: 0.5)])
        // When the same scenario runs twice
        let a = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.uikitLike), configuration: configuration)
        let b = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.uikitLike), configuration: configuration)
        // Then both runs end and agree (every figure but the real frame time), and loads ran
        #expect(a.readiness == b.readiness)
        #expect(a.duration == b.duration)
        #expect(a.displayed > 0)
        #expect(a.loadsStarted > 0)
        #expect(a.peakInFlight <= configuration.maxConcurrentLoads)
    }
}
