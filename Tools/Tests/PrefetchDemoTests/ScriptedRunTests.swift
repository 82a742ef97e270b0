import Foundation
import PrefetchDemoKit
import PrefetchKit
import PrefetchToolSupport
import PrefetchSimulation
import PrefetchTesting
import Testing

/// The demo's scripted runs over the simulated network, in process: the simulator's app loop
/// (`Simulation`, the code `prefetch-bench` runs) on the demo's models. Since both are one code
/// path, these tests check what the demo's figures say, not that they match the bench's.
@Suite("Scripted runs on virtual time")
@MainActor
struct ScriptedRunTests {
    /// Plays `script` in `settings` over the simulated network.
    static func run(_ settings: DemoSettings, _ script: Script, duration: Double?) async throws -> SimulationResult {
        var settings = settings
        (settings.script, settings.duration) = (script, duration)
        return try await DemoScene(settings: settings).play()
    }

    func settings(_ change: (inout DemoSettings) throws -> Void) rethrows -> DemoSettings {
        var settings = DemoSettings()
        try change(&settings)
        return settings
    }

    @Test(arguments: Script.allCases)
    func aRunRepeatsExactly(script: Script) async throws {
        // Given a log-normal network and the adaptive policy
        let settings = try settings {
            $0.latency = try LatencyModel(.logNormal(median: .milliseconds(120), p99: .milliseconds(1_200)))
            $0.policy = PrefetchPolicies.adaptive
            $0.seed = 9
        }
        // When the same script runs twice
        let first = try await Self.run(settings, script, duration: 3)
        let second = try await Self.run(settings, script, duration: 3)
        // Then every figure is the same
        #expect(try first.roundedJSON() == second.roundedJSON())  // every figure but the frame times (real time)
        #expect(first.displayed > 0)
        // And the result names the script and the policy, as the bench's rows do
        #expect(first.scenario == script.rawValue && first.policy == "adaptive")
    }

    @Test func theFirstScreenIsNotCountedAndAFastNetworkIsAlwaysReady() async throws {
        // Given a 10 ms network and a steady scroll of one simulated second
        let settings = try settings { $0.latency = try LatencyModel(.fixed(.milliseconds(10))) }
        let summary = try await Self.run(settings, .steady, duration: 1)
        // Then the cells that scrolled in were ready, and the first screen's blank start is not counted
        #expect(summary.displayed > 0)
        #expect(summary.displayReadyRate == 1)
        #expect(summary.visibleWaitP95Ms == 0)
        #expect(summary.loadsCancelled == 0)
    }

    @Test func withoutPrefetchingEveryAppearanceWaitsOneLatency() async throws {
        // Given a fixed 200 ms network and no prefetching
        let settings = try settings {
            $0.latency = try LatencyModel(.fixed(.milliseconds(200)))
            $0.prefetching = false
        }
        let summary = try await Self.run(settings, .steady, duration: 4)
        // Then nothing was ready, and each cell waited the latency (a frame's rounding aside)
        #expect(summary.displayReadyRate == 0)
        #expect(abs(summary.visibleWaitMeanMs - 200) < 17)
        #expect(summary.loadsWasted == 0)
    }

    @Test func aReusedCellReleasesItsConsumerSoAFlungPastLoadIsCancelled() async throws {
        // Given no prefetching, a slow network and flings: cells appear and leave before their data
        let settings = try settings {
            $0.latency = try LatencyModel(.fixed(.milliseconds(1_500)))
            $0.prefetching = false
        }
        let summary = try await Self.run(settings, .fling, duration: 3)
        // Then loads of cells that went back to the pool were cancelled, none completed unseen
        #expect(summary.loadsCancelled > 0)
        #expect(summary.loadsWasted == 0)
        #expect(summary.peakInFlight == 6)
    }

    @Test func theListCapsLoadsAtFour() async throws {
        let settings = try settings {
            $0.layout = .list
            $0.latency = try LatencyModel(.fixed(.milliseconds(500)))
        }
        let summary = try await Self.run(settings, .jump, duration: 4)
        #expect(summary.peakInFlight == 4)
        #expect(summary.loadsStarted > 4)
    }

    @Test func modelsAreVersion4UUIDsFromTheSeed() {
        let a = Model.make(count: 1_000, seed: 1), b = Model.make(count: 1_000, seed: 1), c = Model.make(count: 1_000, seed: 2)
        #expect(a == b)
        #expect(a != c)
        #expect(Set(a.map(\.identifier)).count == 1_000)
        #expect(a.allSatisfy { $0.identifier.uuidString.dropFirst(14).first == "4" })
        #expect(DisplayData(identifier: a[0].identifier) == DisplayData(identifier: a[0].identifier))
    }
}
