import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
import Testing
@testable import PrefetchSimulation

/// A link that shares by priority (`SharedLink.sharesByPriority`): the most urgent transfers move
/// first, on hand-computed cases, then through the loop with urgencies that follow the fetcher.
@Suite("A link shared by priority")
@MainActor
struct PriorityLinkTests {
    /// A link of 1,000 bytes per second that shares by priority (or fairly).
    func timeline(byPriority: Bool = true) throws -> NetworkTimeline {
        var link = try SharedLink(capacityBytesPerSecond: 1_000)
        link.sharesByPriority = byPriority
        return NetworkTimeline(model: .shared(link))
    }

    @Test func aMoreUrgentTransferTakesTheWholeLinkWhileTheOtherWaits() throws {
        // A: 1,000 bytes at urgency 3 from 0. B: 250 bytes at urgency 1 from 0.5 s. No round trips.
        for byPriority in [true, false] {
            var timeline = try timeline(byPriority: byPriority)
            timeline.start(key: 1, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, urgency: 3, at: .zero)
            _ = timeline.endings(upTo: .milliseconds(500))
            timeline.start(key: 2, item: 2, bytes: 250, roundTrip: .zero, fails: false, urgency: 1, at: .milliseconds(500))
            let ended = timeline.endings()
            // By priority B moves alone (0.75 s) and A resumes with its 500 bytes (1.25 s); fairly
            // B moves at half the link (1.0 s). A ends at 1.25 s either way: the link never idles.
            #expect(isClose(ended[2], byPriority ? 0.75 : 1.0))
            #expect(isClose(ended[1], 1.25))
            #expect(abs(timeline.bytesOnWire - 1_250) < 1e-6)
        }
    }

    @Test func aTransferWhoseUrgencyRisesMidwayFinishesAlone() throws {
        // Two 500-byte transfers at urgency 3 share the link; at 0.2 s (100 bytes each) B turns urgent.
        var timeline = try timeline()
        timeline.start(key: 1, item: 1, bytes: 500, roundTrip: .zero, fails: false, urgency: 3, at: .zero)
        timeline.start(key: 2, item: 2, bytes: 500, roundTrip: .zero, fails: false, urgency: 3, at: .zero)
        _ = timeline.endings(upTo: .milliseconds(200))
        timeline.setUrgency(1, key: 2, at: .milliseconds(200))
        let ended = timeline.endings()
        // B's 400 bytes alone: 0.6 s; then A's 400: 1.0 s. Fairly both would end at 1.0 s.
        #expect(isClose(ended[2], 0.6))
        #expect(isClose(ended[1], 1.0))
    }

    @Test func urgenciesAreIgnoredOnAFairLink() throws {
        var timeline = try timeline(byPriority: false)
        timeline.start(key: 1, item: 1, bytes: 500, roundTrip: .zero, fails: false, urgency: 5, at: .zero)
        timeline.start(key: 2, item: 2, bytes: 500, roundTrip: .zero, fails: false, urgency: 1, at: .zero)
        let ended = timeline.endings()
        #expect(isClose(ended[1], 1.0) && isClose(ended[2], 1.0))
    }

    @Test func aPrefetchThatComesOnScreenMidTransferMovesAheadThroughTheLoop() async throws {
        // A 1,000 B/s link by priority, no round trips, 500-byte payloads; items 1 and 2 prefetched.
        var link = try SharedLink(capacityBytesPerSecond: 1_000, sizes: .fixed(500))
        link.sharesByPriority = true
        let loop = try VirtualTimeLoop<Int, Int>(
            configuration: FetcherConfiguration(), latency: LatencyModel(.fixed(.zero)), network: .shared(link), seed: 1,
            sizes: link.sizes, item: { $0 }, value: { $0 })
        loop.fetcher.prefetch([1, 2])
        await loop.settle()
        await loop.advance(to: 0.2)
        // Item 2's cell comes on screen at 0.2 s: from the next step on, its transfer has the link.
        loop.fetcher.prefetch([2], priority: .visible)
        await loop.advance(to: 0.61)
        #expect(loop.fetcher.fetchedData(for: 2) == 2)
        #expect(loop.fetcher.fetchedData(for: 1) == nil)
        await loop.advance(to: 1.0)
        #expect(loop.fetcher.fetchedData(for: 1) == 1)
    }
}
