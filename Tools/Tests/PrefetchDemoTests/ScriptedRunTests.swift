import Foundation
import PrefetchDemoKit
import PrefetchKit
import PrefetchSimulation
import Testing

/// The demo's virtual-time driver, in process: the data source of Apple's sample on the real fetcher.
@Suite("Scripted runs on virtual time")
@MainActor
struct ScriptedRunTests {
    func settings(_ change: (inout DemoSettings) throws -> Void) rethrows -> DemoSettings {
        var settings = DemoSettings()
        try change(&settings)
        return settings
    }

    @Test(arguments: Script.allCases)
    func aRunRepeatsExactly(script: Script) async throws {
        // Given a log-normal network and the adaptive policy
        let settings = try settings {
            $0.latency = try .logNormal(median: 0.12, p99: 1.2)
            $0.policy = PrefetchPolicies.Adaptive.standard
            $0.seed = 9
        }
        // When the same script runs twice
        let first = try await ScriptedRun(settings: settings, script: script, duration: 3).run()
        let second = try await ScriptedRun(settings: settings, script: script, duration: 3).run()
        // Then every figure is the same
        #expect(first == second)
        #expect(first.displayed > 0)
    }

    @Test func theFirstScreenIsNotCountedAndAFastNetworkIsAlwaysReady() async throws {
        // Given a 10 ms network and a steady scroll of one simulated second
        let settings = try settings { $0.latency = try .fixed(0.01) }
        let summary = try await ScriptedRun(settings: settings, script: .steady, duration: 1).run()
        // Then the cells that scrolled in were ready, and the first screen's blank start is not counted
        #expect(summary.displayed > 0)
        #expect(summary.displayReadyRate == 1)
        #expect(summary.visibleWaitP95Ms == 0)
        #expect(summary.loadsCancelled == 0)
    }

    @Test func withoutPrefetchingEveryAppearanceWaitsOneLatency() async throws {
        // Given a fixed 200 ms network and no prefetching
        let settings = try settings {
            $0.latency = try .fixed(0.2)
            $0.prefetching = false
        }
        let summary = try await ScriptedRun(settings: settings, script: .steady, duration: 4).run()
        // Then nothing was ready, and each cell waited the latency (a frame's rounding aside)
        #expect(summary.displayReadyRate == 0)
        #expect(abs(summary.visibleWaitMeanMs - 200) < 17)
        #expect(summary.loadsWasted == 0)
    }

    @Test func aReusedCellReleasesItsConsumerSoAFlungPastLoadIsCancelled() async throws {
        // Given no prefetching, a slow network and flings: cells appear and leave before their data
        let settings = try settings {
            $0.latency = try .fixed(1.5)
            $0.prefetching = false
        }
        let summary = try await ScriptedRun(settings: settings, script: .fling, duration: 3).run()
        // Then loads of cells that went back to the pool were cancelled, none completed unseen
        #expect(summary.loadsCancelled > 0)
        #expect(summary.loadsWasted == 0)
        #expect(summary.peakInFlight == 6)
    }

    @Test func theListCapsLoadsAtFour() async throws {
        let settings = try settings {
            $0.layout = .list
            $0.latency = try .fixed(0.5)
        }
        let summary = try await ScriptedRun(settings: settings, script: .jump, duration: 4).run()
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
