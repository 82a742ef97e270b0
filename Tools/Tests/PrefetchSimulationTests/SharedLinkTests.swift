import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// The shared link on hand-computed cases: the timeline alone, then through the loop and a whole run.
@Suite("The shared link")
@MainActor
struct SharedLinkTests {
    /// A link of 1,000 bytes per second.
    func timeline(_ http: HTTPVersion = .http2) throws -> NetworkTimeline {
        NetworkTimeline(model: .shared(try SharedLink(capacityBytesPerSecond: 1_000, http: http)))
    }

    @Test func oneTransferTakesItsRoundTripThenItsBytesAtTheFullCapacity() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        let ended = timeline.endings()
        #expect(isClose(ended[1], 0.6))
        #expect(abs(timeline.bytesOnWire - 500) < 1e-6)
    }

    @Test func twoTransfersAtOnceShareTheLinkEqually() throws {
        // Given two 500-byte loads starting together with the same 100 ms round trip
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        timeline.start(key: 2, item: 2, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        // Then each moves at 500 B/s and both end at 0.1 + 1.0 s, not 0.6 s as alone
        let ended = timeline.endings()
        #expect(isClose(ended[1], 1.1) && isClose(ended[2], 1.1))
        #expect(abs(timeline.bytesOnWire - 1_000) < 1e-6)
    }

    @Test func aLaterTransferSlowsTheFirstOnlyWhileBothRun() throws {
        // A: 1,000 bytes from 0 (alone it would end at 1 s). B: 250 bytes, no round trip, from 0.5 s.
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        _ = timeline.endings(upTo: .milliseconds(500))
        timeline.start(key: 2, item: 2, bytes: 250, roundTrip: .zero, fails: false, at: .milliseconds(500))
        let ended = timeline.endings()
        // From 0.5 s both move at 500 B/s: B's 250 bytes end at 1.0 s; A has 250 left, alone again: 1.25 s.
        #expect(isClose(ended[2], 1.0))
        #expect(isClose(ended[1], 1.25))
    }

    @Test func aStoppedTransferKeepsItsBytesOnTheWireAndFreesItsShare() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        timeline.start(key: 2, item: 2, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        _ = timeline.endings(upTo: .milliseconds(400))
        // At 0.4 s each has moved 200 bytes; stopping 2 leaves 800 for 1, now at the full 1,000 B/s.
        timeline.stop(key: 2, at: .milliseconds(400))
        #expect(abs(timeline.bytesStopped - 200) < 1e-6)
        let ended = timeline.endings()
        #expect(isClose(ended[1], 1.2))
        #expect(ended[2] == nil)
        #expect(abs(timeline.bytesOnWire - 1_200) < 1e-6)
    }

    @Test func aStoppedTransferIsResumedByTheItemsNextLoadWhichMovesOnlyTheRest() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 7, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        _ = timeline.endings(upTo: .milliseconds(600))
        timeline.stop(key: 1, at: .milliseconds(600))             // 600 bytes moved, kept
        timeline.start(key: 2, item: 7, bytes: 1_000, roundTrip: .milliseconds(100), fails: false, at: .seconds(1))
        let ended = timeline.endings()
        #expect(isClose(ended[2], 1.5))                                 // 100 ms round trip + the last 400 bytes
        #expect(abs(timeline.bytesOnWire - 1_000) < 1e-6)              // every byte moved once
        #expect(abs(timeline.bytesStopped - timeline.bytesResumed) < 1e-6)   // nothing stopped was wasted
        // A link that does not resume moves the whole payload again, and the first 600 are wasted.
        var link = try SharedLink(capacityBytesPerSecond: 1_000)
        link.resumesStoppedTransfers = false
        var plain = NetworkTimeline(model: .shared(link))
        plain.start(key: 1, item: 7, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        _ = plain.endings(upTo: .milliseconds(600))
        plain.stop(key: 1, at: .milliseconds(600))
        plain.start(key: 2, item: 7, bytes: 1_000, roundTrip: .milliseconds(100), fails: false, at: .seconds(1))
        #expect(isClose(plain.endings()[2], 2.1))
        #expect(abs(plain.bytesStopped - plain.bytesResumed - 600) < 1e-6)
    }

    @Test func keptBytesSurviveAFailedAttemptAndTheOldestAreDroppedPastTheBounds() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
        _ = timeline.endings(upTo: .milliseconds(300))
        timeline.stop(key: 1, at: .milliseconds(300))
        // A failed attempt moves nothing and hands the 300 kept bytes on to the next
        timeline.start(key: 2, item: 1, bytes: 1_000, roundTrip: .milliseconds(50), fails: true, at: .seconds(1))
        _ = timeline.endings()
        timeline.start(key: 3, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, at: .seconds(2))
        #expect(isClose(timeline.endings()[3], 2.7))
        // Seventeen stopped transfers: the first one's bytes are no longer kept
        var many = try self.timeline()
        for item in 0..<17 {
            many.start(key: item, item: item, bytes: 100, roundTrip: .zero, fails: false, at: .seconds(item))
            _ = many.endings(upTo: .seconds(item) + .milliseconds(50))
            many.stop(key: item, at: .seconds(item) + .milliseconds(50))
        }
        #expect(many.transferSeconds(100, of: 0, sharers: 1) == 0.1)
        #expect(abs(many.transferSeconds(100, of: 16, sharers: 1) - 0.05) < 1e-9)
    }

    @Test func aFailingAttemptFailsAtTheEndOfItsRoundTripHavingMovedNothing() throws {
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 800, roundTrip: .milliseconds(300), fails: true, at: .zero)
        let next = try #require(timeline.nextEvent())
        #expect(next.event == .ends(key: 1) && next.time == .milliseconds(300))
        #expect(timeline.take(next.event, at: next.time)?.fails == true)
        #expect(timeline.bytesOnWire == 0)
    }

    @Test func http11LetsSixRequestsRunAndTheSeventhWaitsForAConnection() throws {
        var timeline = try timeline(.http1_1)
        for key in 1...7 { timeline.start(key: key, item: key, bytes: 0, roundTrip: .milliseconds(100 * key), fails: false, at: .zero) }
        let ended = timeline.endings()
        // The seventh starts its 700 ms round trip when the first ends, at 100 ms.
        #expect(isClose(ended[1], 0.1) && isClose(ended[6], 0.6))
        #expect(isClose(ended[7], 0.8))
        // Under HTTP/2 nothing waits.
        var h2 = try self.timeline(.http2)
        for key in 1...7 { h2.start(key: key, item: key, bytes: 0, roundTrip: .milliseconds(100 * key), fails: false, at: .zero) }
        #expect(isClose(h2.endings()[7], 0.7))
    }

    @Test func independentAttemptsEndAtTheirDrawnLatencyAndMoveTheirPayloadThen() {
        var timeline = NetworkTimeline(model: .independent)
        timeline.start(key: 1, item: 1, bytes: 50_000, roundTrip: .milliseconds(250), fails: false, at: .zero)
        timeline.start(key: 2, item: 2, bytes: 50_000, roundTrip: .milliseconds(250), fails: false, at: .zero)
        let ended = timeline.endings()
        #expect(ended[1] == .milliseconds(250) && ended[2] == .milliseconds(250))
        #expect(timeline.bytesOnWire == 100_000)
    }

    @Test func payloadSizesRepeatPerItemAndFollowTheirDistribution() throws {
        let sizes = PayloadSizes.standard
        #expect(sizes.bytes(item: 7, seed: 1) == sizes.bytes(item: 7, seed: 1))
        #expect(sizes.bytes(item: 7, seed: 1) != sizes.bytes(item: 7, seed: 2))
        let drawn = (0..<20_000).map { sizes.bytes(item: $0, seed: 3) }.sorted()
        let median = Double(drawn[10_000]), p99 = Double(drawn[19_800])
        #expect(abs(median / 60_000 - 1) < 0.05, "median \(median)")
        #expect(abs(p99 / 600_000 - 1) < 0.15, "p99 \(p99)")
        #expect(PayloadSizes.perItem([5, 6]).bytes(item: 9, seed: 1) == 6)
    }

    @Test func badLinksAndSizesAreRefusedByName() throws {
        #expect(throws: SimulationError.self) { try SharedLink(capacityBytesPerSecond: 0) }
        #expect(throws: SimulationError.self) { try SharedLink(capacityBytesPerSecond: .infinity) }
        for bad in [PayloadSizes.fixed(-1), .logNormal(median: 0, p99: 10), .logNormal(median: 10, p99: 5), .perItem([]), .perItem([1, -2])] {
            #expect(throws: SimulationError.self) { try bad.validate() }
        }
        do {
            try PayloadSizes.perItem([1, -2]).validate()
        } catch {
            #expect("\(error)".contains("itemBytes[1]"))
        }
    }

    @Test func aLoopOnASharedLinkDeliversBothLoadsWhenTheLinkHasMovedTheirBytes() async throws {
        // Given a 1,000 B/s link, 100 ms round trips and 500-byte payloads
        let link = try SharedLink(capacityBytesPerSecond: 1_000, sizes: .fixed(500))
        let loop = try VirtualTimeLoop<Int, Int>(
            configuration: FetcherConfiguration(), latency: LatencyModel(.fixed(.milliseconds(100))), network: .shared(link), seed: 1,
            sizes: link.sizes, item: { $0 }, value: { $0 })
        loop.fetcher.prefetch([1, 2])
        await loop.settle()
        // Then neither is there at 1.05 s (alone each would be at 0.6 s), both are at 1.1 s
        await loop.advance(to: 1.05)
        #expect(loop.fetcher.fetchedData(for: 1) == nil)
        await loop.advance(to: 1.1)
        #expect(loop.fetcher.fetchedData(for: 1) == 1 && loop.fetcher.fetchedData(for: 2) == 2)
        #expect(loop.network.usage(over: 1.1).onWire.rounded() == 1_000)
    }

    @Test func aRunReportsItsBytesAndTheLinksUseAndAFasterLinkLeavesLessBlank() async throws {
        let scenario = StandardSuite.scenario(.steady, layout: .grid)
        var slow = SimulationConfiguration()
        slow.network = .shared(try SharedLink(capacityBytesPerSecond: 125_000))
        var fast = slow
        fast.network = .shared(try SharedLink(capacityBytesPerSecond: 6_250_000))
        let policy = SimulationPolicy.policy(PrefetchPolicies.uikitLike)
        let onSlow = try await Simulator.run(scenario, policy: policy, configuration: slow)
        let onFast = try await Simulator.run(scenario, policy: policy, configuration: fast)
        #expect(onSlow.bytesOnWire > 0 && onFast.bytesOnWire > 0)
        #expect(onSlow.linkUtilisation > 0 && onSlow.linkUtilisation <= 1.000_001)
        #expect(onSlow.linkUtilisation > onFast.linkUtilisation)
        #expect(onFast.blankCellSeconds < onSlow.blankCellSeconds)
        #expect(onSlow.bytesWasted <= onSlow.bytesOnWire)
    }

    @Test func independentRunsCountEachWastedLoadAtTheFixedPayload() async throws {
        var configuration = SimulationConfiguration()
        configuration.network = .independent
        let result = try await Simulator.run(StandardSuite.scenario(.backAndForth, layout: .grid), policy: .policy(PrefetchPolicies.textureLike),
                                             configuration: configuration)
        #expect(result.loadsWasted > 0)
        #expect(result.bytesWasted == result.loadsWasted * 50_000)
        #expect(result.linkUtilisation == 0)
    }
}
