import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

@Suite struct ReferenceAndSettleTests {
    @MainActor
    @Test func clairvoyant1sNeverBeatsTheFullClairvoyant() async throws {
        var configuration = SimulationConfiguration()
        configuration.latency = LatencyProfile.emerging.model
        let search = try TraceGenerator.trace(profile: .search, seed: 1_000, duration: 10)
        for scenario in [StandardSuite.scenario(.repeatedFlings, layout: .list), StandardSuite.scenario(.longFling, layout: .grid), search] {
            let full = try await Simulator.run(scenario, policy: .clairvoyant, configuration: configuration)
            let short = try await Simulator.run(scenario, policy: .clairvoyant1s, configuration: configuration)
            #expect(short.policy == "clairvoyant-1s")
            #expect(short.displayReadyRate <= full.displayReadyRate, "\(scenario.name): \(short.displayReadyRate) > \(full.displayReadyRate)")
        }
    }

    @MainActor
    @Test func clairvoyant1sMatchesTheFullClairvoyantOnATraceShorterThanItsHorizon() async throws {
        // Every appearance is within 0.9 s of the start: at time 0 the one-second reference sees them all.
        let scenario = Scenario(name: "short", layout: .list(), viewport: .phoneList, motion: .gestures([.drag(speed: 6_000, duration: 0.8)]))
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.logNormal(median: .milliseconds(300), p99: .seconds(1)))
        let full = try await Simulator.run(scenario, policy: .clairvoyant, configuration: configuration)
        let short = try await Simulator.run(scenario, policy: .clairvoyant1s, configuration: configuration)
        #expect(full.displayed > 50)
        #expect(full.displayReadyRate < 1)  // not trivially perfect
        #expect(short.readiness == full.readiness)
    }

    @MainActor
    @Test func settleTimeIsTheWaitForTheLastVisibleCellAfterScrollingStops() async throws {
        // A jump to row 5,000 after a 3 s rest, then a 3 s rest; every load takes exactly 0.5 s, six
        // at a time. Without prefetching, the jump's 11 visible rows load in two rounds from the
        // jump's frame: the last shows its data 1 s after the jump. Scrolling stops one frame after
        // the jump (the next frame sees no move), so the settle time is 1 s less a frame.
        let scenario = Scenario(name: "stop", layout: .list(), viewport: .phoneList,
                                motion: .gestures([.pause(duration: 3), .jump(item: 5_000), .pause(duration: 3)]))
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.fixed(.milliseconds(500)))
        configuration.network = .independent   // every load takes exactly its latency
        let none = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.none), configuration: configuration)
        #expect(none.settles == 1)
        #expect(abs(none.settleMeanMs - (1 - 1.0 / 60) * 1000) < 1e-3, "\(none.settleMeanMs) ms")
        #expect(none.settleP95Ms == none.settleMeanMs)
        // The clairvoyant reference has every row ready in time: nothing left to wait for at the stop.
        let reference = try await Simulator.run(scenario, policy: .clairvoyant, configuration: configuration)
        #expect(reference.displayReadyRate == 1)
        #expect(reference.settles == 1 && reference.settleMeanMs == 0)
        // Bytes wasted: every wasted load fetched the scenario's payload.
        let drag = Scenario(name: "drag", layout: .list(), viewport: .phoneList, motion: .gestures([.drag(speed: 600, duration: 3)]))
        let texture = try await Simulator.run(drag, policy: .policy(PrefetchPolicies.textureLike), configuration: configuration)
        #expect(texture.loadsWasted > 0)
        #expect(texture.bytesWasted == texture.loadsWasted * 50_000)
    }

    @Test func settleTimesAreMeasuredFromTheStop() {
        // The meter alone, on a hand-driven clock: the oracle is the arithmetic of the script.
        let clock = Locked(0.0)
        let meter = ReadinessMeter(now: { clock.withLock { $0 } })
        meter.startCounting()
        meter.scrolling(true)
        meter.cellAppeared(item: 1, ready: false)
        meter.cellAppeared(item: 2, ready: false)
        clock.withLock { $0 = 1 }
        meter.scrolling(false)                  // stop at 1 s with two blank cells
        clock.withLock { $0 = 1.2 }
        meter.dataShown(item: 1)
        clock.withLock { $0 = 1.5 }
        meter.cellDisappeared(item: 2)          // the last blank one leaves: settled after 0.5 s
        meter.scrolling(true)
        clock.withLock { $0 = 2 }
        meter.scrolling(false)                  // stop with nothing blank: 0
        meter.scrolling(true)
        meter.cellAppeared(item: 3, ready: false)
        clock.withLock { $0 = 3 }
        meter.scrolling(false)                  // stop at 3 s; scrolling again at 3.25 s cuts it short
        clock.withLock { $0 = 3.25 }
        meter.scrolling(true)
        let r = meter.readiness
        #expect(r.settles == 3)
        #expect(abs(r.settleMeanMs - (500 + 0 + 250) / 3) < 1e-9)
        #expect(abs(r.settleP95Ms - 500) < 1e-9)
    }

    @Test func aLoadIsNeverShownUnlessACellOnScreenShowedItsData() {
        // The meter alone: five completed loads, each with a different fate, and the counts by hand.
        let clock = Locked(0.0)
        let meter = ReadinessMeter(now: { clock.withLock { $0 } })
        meter.startCounting()
        meter.cellAppeared(item: 1, ready: true)         // 1: shown at once (its data was cached)
        meter.cellAppeared(item: 2, ready: false)        // 2: blank, then its data arrives on screen
        meter.dataShown(item: 2)
        meter.cellAppeared(item: 3, ready: false)        // 3: carried past blank; its load ends later
        clock.withLock { $0 = 0.1 }
        meter.cellDisappeared(item: 3)
        for item in [1, 2, 3, 4, 5] {                    // 4 and 5: never on screen at all
            meter.record(FetchEvent<Int>.loadStarted(item), item: { $0 })
            meter.record(FetchEvent<Int>.loadCompleted(item, latency: .milliseconds(100)), item: { $0 })
        }
        let r = meter.readiness
        #expect(r.loadsWasted == 2)                      // 4 and 5: no cell ever asked for them
        #expect(r.loadsNeverShown == 3)                  // 3, 4 and 5: the user never saw their data
        #expect(r.loadsNeverShown >= r.loadsWasted)
        // A misplaced report of data shown for an item never on screen cannot make it count as seen.
        meter.dataShown(item: 4)
        #expect(meter.readiness.loadsNeverShown == 3)
    }

    @Test func wastedLoadsStillPlannedAtTheEndAreCountedApart() {
        // The meter alone: four wasted loads, two of them still in the prefetch window at the end.
        let meter = ReadinessMeter(now: { 0 })
        meter.startCounting()
        meter.cellAppeared(item: 1, ready: false)
        for item in [1, 2, 3, 4, 5] {
            meter.record(FetchEvent<Int>.loadStarted(item), item: { $0 })
            meter.record(FetchEvent<Int>.loadCompleted(item, latency: .milliseconds(100)), item: { $0 })
        }
        // 1 was displayed, so it is not wasted though it is still planned; 6 never loaded.
        meter.finish(stillPlanned: [1, 4, 5, 6])
        let r = meter.readiness
        #expect(r.loadsWasted == 4)
        #expect(r.loadsWastedAtEnd == 2)
        // Finishing again changes nothing.
        meter.finish(stillPlanned: [2, 3])
        #expect(meter.readiness.loadsWastedAtEnd == 2)
    }

    @MainActor
    @Test func aRunThatEndsAtRestCountsItsWindowAheadAsWastedAtTheEnd() async throws {
        // A slow drag that ends at rest: everything textureLike wasted lies in its window ahead,
        // which the run ended before reaching; the clairvoyant reference plans nothing at the end.
        let configuration = SimulationConfiguration()
        let drag = Scenario(name: "drag", layout: .list(), viewport: .phoneList,
                            motion: .gestures([.drag(speed: 300, duration: 2), .pause(duration: 1)]))
        let texture = try await Simulator.run(drag, policy: .policy(PrefetchPolicies.textureLike), configuration: configuration)
        #expect(texture.loadsWasted > 0)
        #expect(texture.loadsWastedAtEnd == texture.loadsWasted)
        let reference = try await Simulator.run(drag, policy: .clairvoyant, configuration: configuration)
        #expect(reference.loadsWastedAtEnd == 0)
    }
}
