import Foundation
import PrefetchToolSupport
import Testing
@testable import PrefetchSimulation

/// A phone's link, each effect alone on a scripted timeline with numbers worked out by hand.
@Suite("A phone's link")
struct PhoneLinkTests {
    /// A link of `capacity` bytes per second with `effects`.
    func timeline(capacity: Double = 1_000, http: HTTPVersion = .http2, _ effects: PhoneEffects, seed: UInt64 = 1) throws -> NetworkTimeline {
        var link = try SharedLink(capacityBytesPerSecond: capacity, http: http)
        link.phone = effects
        return NetworkTimeline(model: .shared(link), seed: seed)
    }

    // MARK: Slow start

    @Test func flightsDoubleFromTheInitialWindow() {
        let slowStart = PhoneEffects.SlowStart()
        // 10 segments of 1,460 B: 14,600 B in one flight; 14,600 + 29,200 = 43,800 in two; + 58,400 = 102,200 in three.
        #expect(slowStart.flights(14_600) == 1)
        #expect(slowStart.flights(14_601) == 2)
        #expect(slowStart.flights(43_800) == 2)
        #expect(slowStart.flights(100_000) == 3)
        #expect(slowStart.flights(102_201) == 4)
    }

    @Test func aShortTransferTakesTwoRoundTripsMoreForItsThreeFlights() throws {
        // 100,000 B on a 1 MB/s link after a 100 ms round trip: 0.1 + 0.1 = 0.2 s as a fluid.
        var classic = try timeline(capacity: 1_000_000, PhoneEffects())
        classic.start(key: 1, item: 1, bytes: 100_000, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(classic.endings()[1], 0.2))
        // With slow start it needs 3 flights: its last arrives 2 round trips after its first, at 0.1 + 0.2 = 0.3 s.
        var slow = try timeline(capacity: 1_000_000, PhoneEffects(slowStart: .init()))
        slow.start(key: 1, item: 1, bytes: 100_000, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(slow.endings()[1], 0.3))
        #expect(abs(slow.bytesOnWire - 100_000) < 1e-6)
        // One flight (14,600 B) costs nothing more: 0.1 + 0.0146 s.
        var one = try timeline(capacity: 1_000_000, PhoneEffects(slowStart: .init()))
        one.start(key: 1, item: 1, bytes: 14_600, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(one.endings()[1], 0.1146))
    }

    @Test func aLongTransferOnASlowLinkIsBoundByTheLinkNotTheWindow() throws {
        // 100,000 B at 1,000 B/s takes 100 s, far beyond 2 round trips: slow start adds nothing.
        var slow = try timeline(PhoneEffects(slowStart: .init()))
        slow.start(key: 1, item: 1, bytes: 100_000, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(slow.endings(upTo: .seconds(200))[1], 100.1))
    }

    @Test func onHTTP2ATransferJoiningARunningOneUsesTheWarmWindow() throws {
        // A: 1,000,000 B from 0 on a 1 MB/s link. B: 20,000 B (2 flights), round trip 100 ms, from 0.5 s.
        // Over HTTP/1.1, a 20,000 B B (2 flights) would move in 0.04 s at its share but ends a round trip after its first byte.
        // B's transfer begins at 0.6 s and shares the link with A: 500 KB/s each.
        var h1 = try timeline(capacity: 1_000_000, http: .http1_1, PhoneEffects(slowStart: .init()))
        h1.start(key: 1, item: 1, bytes: 1_000_000, roundTrip: .zero, fails: false, at: .zero)
        _ = h1.endings(upTo: .milliseconds(500))
        h1.start(key: 2, item: 2, bytes: 20_000, roundTrip: .milliseconds(100), fails: false, at: .milliseconds(500))
        let h1Ended = h1.endings()
        #expect(isClose(h1Ended[2], 0.7))
        // While B waits for its last flight it takes no share: A moved 500 KB by 0.6 s, 20 KB while
        // sharing (0.6 to 0.64 s), then the rest alone: 1.0 + 0.02 = 1.02 s.
        #expect(isClose(h1Ended[1], 1.02))
        // The same B over HTTP/2, joining A's warm connection, ends when its bytes do: 0.6 + 0.04 s.
        var h2 = try timeline(capacity: 1_000_000, PhoneEffects(slowStart: .init()))
        h2.start(key: 1, item: 1, bytes: 1_000_000, roundTrip: .zero, fails: false, at: .zero)
        _ = h2.endings(upTo: .milliseconds(500))
        h2.start(key: 2, item: 2, bytes: 20_000, roundTrip: .milliseconds(100), fails: false, at: .milliseconds(500))
        #expect(isClose(h2.endings()[2], 0.64))
    }

    // MARK: Queueing

    @Test func aRoundTripWaitsBehindTheQueuedBytesBoundedByTheBuffer() throws {
        for (buffer, transferBegins) in [(300.0, 0.9), (10_000, 1.1)] {
            // A: 1,000 B from 0 at 1,000 B/s; at 0.5 s it has 500 B left.
            var link = try timeline(PhoneEffects(queueing: .init(bufferBytes: buffer)))
            link.start(key: 1, item: 1, bytes: 1_000, roundTrip: .zero, fails: false, at: .zero)
            _ = link.endings(upTo: .milliseconds(500))
            // B's 100 ms round trip waits min(500, buffer) / 1,000 s: 0.3 s (buffer 300 B) or 0.5 s (the 500 B queued).
            link.start(key: 2, item: 2, bytes: 100, roundTrip: .milliseconds(100), fails: false, at: .milliseconds(500))
            guard case .roundTrip(let end) = link.attempts[2]?.phase else { Issue.record("B is not in its round trip"); continue }
            #expect(isClose(end, transferBegins))
        }
    }

    @Test func anEmptyLinkQueuesNothing() throws {
        var link = try timeline(PhoneEffects(queueing: .init(bufferBytes: 10_000)))
        link.start(key: 1, item: 1, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(link.endings()[1], 0.6))
    }

    // MARK: Radio wake-up

    @Test func theRadioWakesLateOnlyAfterItsIdleTail() throws {
        var link = try timeline(PhoneEffects(radioWake: .init(idleSeconds: 10, promotionSeconds: 0.26)))
        // At 0 the radio is connected: 0.1 + 0.1 s.
        link.start(key: 1, item: 1, bytes: 100, roundTrip: .milliseconds(100), fails: false, at: .zero)
        #expect(isClose(link.endings()[1], 0.2))
        // 9.9 s idle (from 0.2 to 10.1 s): still connected.
        link.start(key: 2, item: 2, bytes: 100, roundTrip: .milliseconds(100), fails: false, at: .milliseconds(10_100))
        #expect(isClose(link.endings()[2], 10.3))
        // 10.2 s idle (from 10.3 to 20.5 s): asleep, the round trip waits 0.26 s: 20.5 + 0.26 + 0.2.
        link.start(key: 3, item: 3, bytes: 100, roundTrip: .milliseconds(100), fails: false, at: .milliseconds(20_500))
        // A request made while it wakes (at 20.6 s) waits for the same moment, 20.76 s: its round trip ends at 20.86 s.
        link.start(key: 4, item: 4, bytes: 0, roundTrip: .milliseconds(100), fails: true, at: .milliseconds(20_600))
        let ended = link.endings(upTo: .seconds(30))
        #expect(isClose(ended[4], 20.86))
        #expect(isClose(ended[3], 20.96))
    }

    // MARK: Bursty round trips

    @Test func theChainsRunsHaveTheirConfiguredMeans() {
        var chain = BurstyChain(.init(meanGoodSeconds: 10, meanBadSeconds: 2, badFactor: 4), seed: 7)
        for _ in 0..<40_000 { chain.extend() }
        let stays = zip(chain.changes, [0] + chain.changes).map { $0 - $1 }
        let good = stride(from: 0, to: stays.count, by: 2).map { stays[$0] }, bad = stride(from: 1, to: stays.count, by: 2).map { stays[$0] }
        let mean = { (xs: [Double]) in xs.reduce(0, +) / Double(xs.count) }
        // 20,000 exponential stays: the mean's standard error is 0.7 % of it.
        #expect(abs(mean(good) - 10) < 0.3)
        #expect(abs(mean(bad) - 2) < 0.06)
    }

    @Test func aRoundTripStartingInABadRunTakesTheFactorTimesItsDraw() throws {
        let bursty = PhoneEffects.BurstyRoundTrips(meanGoodSeconds: 10, meanBadSeconds: 2, badFactor: 4)
        var chain = BurstyChain(bursty, seed: 3)
        let good = chain.isBad(at: 0)
        let bad = chain.changes[0] + 1e-3
        let isBad = chain.isBad(at: bad)
        #expect(!good)   // the chain starts good
        #expect(isBad)
        var link = try timeline(PhoneEffects(burstyRoundTrips: bursty), seed: 3)
        link.start(key: 1, item: 1, bytes: 0, roundTrip: .milliseconds(100), fails: true, at: .zero)
        link.start(key: 2, item: 2, bytes: 0, roundTrip: .milliseconds(100), fails: true, at: .seconds(exactly: bad))
        let ended = link.endings(upTo: .seconds(1_000))
        #expect(isClose(ended[1], 0.1))
        #expect(isClose(ended[2], bad + 0.4))
        // The same seed gives the same runs.
        var again = BurstyChain(bursty, seed: 3)
        _ = again.isBad(at: bad)
        #expect(again.changes == chain.changes)
    }

    // MARK: Payloads that follow the cell

    @Test func cellPayloadsFollowTheCellsPixels() {
        let jpeg = CellImages(.thumbnail), webp = CellImages(.thumbnail, format: .webp)
        // A 66 pt row's square thumbnail at 3x: 198 × 198 = 39,204 px; × 0.35 B/px = 13,721 B; WebP × 0.25 = 9,801 B.
        #expect(jpeg.sizes(layout: .list(), viewport: .phoneList) == .logNormal(median: 13_721, p99: 27_442))
        #expect(webp.sizes(layout: .list(), viewport: .phoneList) == .logNormal(median: 9_801, p99: 19_602))
        // A 150 × 100 pt grid item: 450 × 300 px × 0.35 = 47,250 B.
        #expect(jpeg.sizes(layout: .grid(), viewport: .seedGrid) == .logNormal(median: 47_250, p99: 94_500))
        // A full-width photo on a 375 pt screen: 1,125 × 1,125 px × 0.35 = 442,969 B.
        #expect(CellImages(.feedPhoto).sizes(layout: .list(), viewport: .phoneList) == .logNormal(median: 442_969, p99: 885_938))
    }

    @Test func aScenarioSizesCellPayloadsFromItsLayout() throws {
        let link = SharedLink(.lte, sizes: .cell(CellImages(.thumbnail)))
        let list = StandardSuite.scenario(.steady, layout: .list)
        let sizes = list.sizes(on: .shared(link))
        #expect(sizes == .logNormal(median: 13_721, p99: 27_442))
        // Each item keeps its size for the seed, and the sizes spread around the median.
        let drawn = (0..<1_000).map { sizes.bytes(item: $0, seed: 1) }
        #expect(drawn == (0..<1_000).map { sizes.bytes(item: $0, seed: 1) })
        let sorted = drawn.sorted()
        #expect(abs(Double(sorted[500]) / 13_721 - 1) < 0.05)
        #expect(sorted.first! < 13_721 && sorted.last! > 13_721)
    }

    // MARK: The classic link

    @Test func theClassicLinkIsUnchanged() throws {
        let link = SharedLink(.lte)
        #expect(link.phone.isClassic)
        #expect(link.description == "10.0 Mbit/s, HTTP/2, sizes logNormal(median 60000 B, p99 600000 B)")
        // A timeline with every effect's parameters but none on is the fluid link: the case of SharedLinkTests.
        var classic = try timeline(PhoneEffects())
        classic.start(key: 1, item: 1, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        classic.start(key: 2, item: 2, bytes: 500, roundTrip: .milliseconds(100), fails: false, at: .zero)
        let ended = classic.endings()
        #expect(isClose(ended[1], 1.1) && isClose(ended[2], 1.1))
    }

    @Test func badParametersAreRefusedByName() {
        for bad in [PhoneEffects(queueing: .init(bufferBytes: -1)), PhoneEffects(slowStart: .init(initialWindowSegments: 0)),
                    PhoneEffects(radioWake: .init(idleSeconds: .nan, promotionSeconds: 1)), PhoneEffects(burstyRoundTrips: .init(badFactor: 0.5))] {
            #expect(throws: SimulationError.self) { try bad.validate() }
        }
        #expect(throws: SimulationError.self) { try PayloadSizes.cell(CellImages(.thumbnail, scale: 0)).validate() }
    }
}
