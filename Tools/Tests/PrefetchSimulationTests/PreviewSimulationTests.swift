import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// Previews in the lab (issue #36): the link moves a prefix once, a full load shows it on the way,
/// a variant is a resource of its own, and a run with previews shows something in more cells.
@Suite("Previews in the simulator")
@MainActor
struct PreviewSimulationTests {
    /// A link of 1,000 bytes per second.
    func timeline() throws -> NetworkTimeline {
        NetworkTimeline(model: .shared(try SharedLink(capacityBytesPerSecond: 1_000)))
    }

    @Test func aPrefixThenItsRestMoveThePayloadOnceAndAFullLoadReportsThePrefixOnTheWay() throws {
        var timeline = try timeline()
        // A 150-byte prefix of a 1,000-byte payload: 0.1 s round trip + 0.15 s
        timeline.start(key: 1, item: 7, bytes: 150, roundTrip: .milliseconds(100), fails: false, preview: .prefix, at: .zero)
        #expect(isClose(timeline.endings()[1], 0.25))
        // The full load resumes after the prefix: 0.1 s + 850 bytes = 0.95 s later
        timeline.start(key: 2, item: 7, bytes: 1_000, roundTrip: .milliseconds(100), fails: false, preview: .fullWithPreview(prefix: 150),
                       at: .seconds(1))
        #expect(isClose(timeline.endings()[2], 1.95))
        #expect(abs(timeline.bytesOnWire - 1_000) < 1e-6, "no byte twice")
        // A full load from scratch reports its preview when 150 bytes are in: 0.1 + 0.15 s after its start
        timeline.start(key: 3, item: 8, bytes: 1_000, roundTrip: .milliseconds(100), fails: false, preview: .fullWithPreview(prefix: 150),
                       at: .seconds(3))
        var events: [(Double, NetworkTimeline.Event)] = []
        while let next = timeline.nextEvent() {
            _ = timeline.take(next.event, at: next.time)
            events.append((next.time.seconds, next.event))
        }
        #expect(events.map(\.1) == [.transferBegins(key: 3), .previewReady(key: 3), .ends(key: 3)])
        #expect(abs(events[1].0 - 3.25) < 1e-6 && abs(events[2].0 - 4.1) < 1e-6)
    }

    @Test func aVariantIsAResourceOfItsOwn() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 7, bytes: 100, roundTrip: .zero, fails: false, preview: .variant, at: .zero)
        _ = timeline.endings()
        timeline.start(key: 2, item: 7, bytes: 1_000, roundTrip: .zero, fails: false, at: .seconds(1))
        #expect(isClose(timeline.endings()[2], 2.0), "the full load moves all its bytes")
        #expect(abs(timeline.bytesOnWire - 1_100) < 1e-6)
    }

    @Test func aShareOutsideZeroToOneIsRefusedNamingIt() {
        for share in [0.0, 1.0, -0.1, .nan] {
            var configuration = SimulationConfiguration()
            configuration.previews = .prefix(share: share)
            #expect(throws: SimulationError.self) { try configuration.validate() }
        }
        #expect(PreviewSource.prefix(share: 0.15).previewBytes(of: 60_000) == 9_000)
        #expect(PreviewSource.variant(share: 0.1).previewBytes(of: 5) == 1, "a non-empty payload's preview has a byte at least")
    }

    /// The steady grid scenario on the emerging profile's shared link, with adaptive.
    func steadyGridOnEmerging() -> (Scenario, SimulationConfiguration, SimulationPolicy) {
        var configuration = SimulationConfiguration()
        configuration.latency = LatencyProfile.emerging.model
        configuration.network = .shared(SharedLink(.emerging))
        return (StandardSuite.scenario(.steady, layout: .grid), configuration, SimulationPolicy.policy(PrefetchPolicies.adaptive))
    }

    @Test func aRunWithPrefixPreviewsShowsSomethingInMoreCellsAndReportsBothShares() async throws {
        var (scenario, configuration, policy) = steadyGridOnEmerging()
        let without = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        configuration.previews = .prefix(share: 0.15)
        let with = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        #expect(without.previewReadyRate == nil)
        let previewReady = try #require(with.previewReadyRate)
        #expect(previewReady >= with.displayReadyRate)
        #expect(previewReady > without.displayReadyRate, "more cells show something: \(previewReady) vs \(without.displayReadyRate)")
        #expect(with.blankCellSeconds < without.blankCellSeconds)
        // Without previews the JSON has no preview key: `--previews none` prints what it did before
        #expect(!(try without.roundedJSON()).contains("previewReadyRate"))
        #expect(try with.roundedJSON().contains("previewReadyRate"))
    }

    @Test func previewSlotsRunPreviewsBesideTheCapAndLeaveARunWithoutPreviewsAsItWas() async throws {
        var (scenario, configuration, policy) = steadyGridOnEmerging()
        // Without previews the slots are never used: the run is the same with or without them.
        configuration.previewSlots = 0
        let plain = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        configuration.previewSlots = 6
        let plainWithSlots = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        #expect(try plain.roundedJSON() == plainWithSlots.roundedJSON())
        #expect(plainWithSlots.peakInFlight <= configuration.maxConcurrentLoads)
        // With previews, loads of previews and full values' first bytes run beyond the cap.
        configuration.previews = .prefix(share: 0.15)
        configuration.previewSlots = 0
        let oneCap = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        configuration.previewSlots = 6
        let slots = try await Simulator.run(scenario, policy: policy, configuration: configuration)
        #expect(oneCap.peakInFlight <= configuration.maxConcurrentLoads)
        #expect(slots.peakInFlight > configuration.maxConcurrentLoads && slots.peakInFlight <= configuration.maxConcurrentLoads + 6)
        let (shownWithSlots, shownInOnePool) = (try #require(slots.previewReadyRate), try #require(oneCap.previewReadyRate))
        #expect(shownWithSlots > shownInOnePool, "more cells show something when they appear: \(shownWithSlots) vs \(shownInOnePool)")
        #expect(slots.blankCellSeconds < oneCap.blankCellSeconds)
    }

    @Test func aNegativeSlotCountIsRefusedNamingIt() {
        var configuration = SimulationConfiguration()
        configuration.previewSlots = -2
        #expect(throws: SimulationError.self) { try configuration.validate() }
    }
}
