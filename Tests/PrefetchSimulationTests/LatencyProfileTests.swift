import Foundation
import Testing
import PrefetchKit
@testable import PrefetchSimulation

@Suite struct LatencyProfileTests {
    @Test func profilesMatchTheTable() throws {
        #expect(LatencyProfile.wifi.model.distribution == .logNormal(median: 0.040, p99: 0.4))
        #expect(LatencyProfile.lte.model == LatencyModel.mobile)
        #expect(LatencyProfile.emerging.model.distribution == .logNormal(median: 0.4, p99: 4))
        #expect(LatencyProfile.emerging.model.failureRate == 0.02)
        #expect(LatencyProfile.wifi.model.failureRate == 0 && LatencyProfile.lte.model.failureRate == 0)
        #expect(throws: SimulationError.self) { try LatencyProfile.named("3g") }
        #expect(try LatencyProfile.named("emerging") == .emerging)
    }

    @Test func emergingDrawsFailAboutTwoPercentOfAttemptsWithTheRightMedian() {
        // The oracle: the table's figures, counted over many independent draws.
        let model = LatencyProfile.emerging.model
        var failures = 0
        var latencies: [Double] = []
        for item in 0..<20_000 {
            let draw = model.draw(seed: 9, item: item, load: 0, attempt: 1, payloadBytes: 0)
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
        let app = try await Simulator.play(scenario, configuration: configuration, policy: PrefetchPolicies.uikitLike).app
        let r = app.meter.readiness
        // With 2 % of attempts failing and the standard retry policy, some load retries but few fail for good.
        #expect(r.loadsCompleted > 0)
        #expect(r.loadsFailed * 50 <= r.loadsStarted)
        #expect(try #require(app.loop).fetcher.statistics.retries > 0)
    }
}
