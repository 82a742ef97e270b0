import Foundation
import Testing
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
@testable import PrefetchSimulation

@Suite struct LatencyProfileTests {
    @Test func profilesMatchTheTable() throws {
        #expect(LatencyProfile.wifi.model.distribution == .logNormal(median: .milliseconds(40), p99: .milliseconds(400)))
        #expect(LatencyProfile.lte.model.distribution == .logNormal(median: .milliseconds(150), p99: .milliseconds(1_500)))
        #expect(LatencyProfile.emerging.model.distribution == .logNormal(median: .milliseconds(400), p99: .seconds(4)))
        #expect(LatencyProfile.emerging.model.failureRate == 0.02)
        #expect(LatencyProfile.wifi.model.failureRate == 0 && LatencyProfile.lte.model.failureRate == 0)
        #expect(SimulationConfiguration().latency == LatencyProfile.lte.model)
        #expect(LatencyProfile(rawValue: "3g") == nil && LatencyProfile(rawValue: "emerging") == .emerging)
        #expect("\(LatencyProfile.emerging.model)" == "logNormal(median 400 ms, p99 4000 ms), 2.0% failures")
    }

    @Test func aWholeNumberOfMillisecondsIsTheSecondsTheModelWasGivenBefore() {
        // The simulator's arithmetic in seconds must not change when the model holds durations: a
        // whole number of milliseconds converts to exactly what `ms / 1000` gave, up to a minute.
        let off = (0...60_000).filter { LatencyModel.seconds(.milliseconds($0)) != Double($0) / 1000 }
        #expect(off.isEmpty, "\(off.prefix(5))")
        #expect([0.04, 0.15, 0.4, 1.5, 4].allSatisfy { LatencyModel.seconds(.seconds($0)) == $0 })
    }

    @Test func aDrawIsTheSameFromEveryEntryPoint() throws {
        // The server's draw (a duration) is the simulator's (seconds) rounded to the nanosecond.
        let model = try LatencyModel(.logNormal(median: .milliseconds(150), p99: .milliseconds(1_500)), failureRate: 0.3)
        for item in 0..<200 {
            let seconds = model.drawSeconds(seed: 5, item: item, load: 2, attempt: 1, payloadBytes: 0)
            let duration = model.draw(seed: 5, item: item, load: 2, attempt: 1)
            #expect(duration.latency == .nanoseconds(Int64((seconds.latency * 1e9).rounded())) && duration.fails == seconds.fails)
        }
        #expect(model.drawSeconds(seed: 5, item: 1, load: 0, attempt: 1, payloadBytes: 0) != model.drawSeconds(seed: 5, item: 1, load: 1, attempt: 1, payloadBytes: 0))
    }

    @Test func emergingDrawsFailAboutTwoPercentOfAttemptsWithTheRightMedian() {
        // The oracle: the table's figures, counted over many independent draws.
        let model = LatencyProfile.emerging.model
        var failures = 0
        var latencies: [Double] = []
        for item in 0..<20_000 {
            let draw = model.drawSeconds(seed: 9, item: item, load: 0, attempt: 1, payloadBytes: 0)
            if draw.fails { failures += 1 }
            latencies.append(draw.latency)
        }
        latencies.sort()
        #expect((300...500).contains(failures))  // 2 % of 20,000 = 400
        #expect(abs(latencies[10_000] - 0.4) < 0.02)
        #expect(abs(latencies[19_800] - 4) < 0.5)
    }

    @MainActor
    @Test func emergingFailuresAreRetriedThroughTheFetcher() async throws {
        var configuration = SimulationConfiguration()
        configuration.latency = LatencyProfile.emerging.model
        let scenario = StandardSuite.all[0]
        let simulation = try await Simulator.play(scenario, configuration: configuration, policy: PrefetchPolicies.uikitLike)
        let r = simulation.app.meter.readiness
        // With 2 % of attempts failing and the standard retry policy, some load retries but few fail for good.
        #expect(r.loadsCompleted > 0)
        #expect(r.loadsFailed * 50 <= r.loadsStarted)
        #expect(simulation.loop.fetcher.statistics.retries > 0)
    }
}
