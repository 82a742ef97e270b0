import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IOTestSupport
import Logging
@testable import PrefetchServer
import PrefetchToolSupport
import Testing

/// `--server-bandwidth`: one budget for all the server's responses. The pacer's rule on injected
/// time, the rate's parser, then one bounded loopback run of two bodies sharing the link.
@Suite("PrefetchServer shared bandwidth")
struct SharedBandwidthTests {
    @Test("three bodies sending at once take turns: each gets a third of the link, which never runs faster than its rate")
    func fairShare() {
        var budget = LinkBudget(bytesPerSecond: 10_000, tolerance: .zero)
        // Each sender asks for its next 1,000-byte chunk when its last one went (as BodyStreamer
        // does); asks are served in the order they come (ties by sender).
        var asks: [Duration] = [.zero, .zero, .zero]
        var sent = [0, 0, 0]
        var sendTimes: [Duration] = []
        for _ in 0..<30 {
            let sender = asks.indices.min { (asks[$0], $0) < (asks[$1], $1) }!
            let at = budget.reserve(1_000, at: asks[sender])
            #expect(at >= asks[sender])
            sendTimes.append(at)
            sent[sender] += 1_000
            asks[sender] = at
        }
        #expect(sent.allSatisfy { abs($0 - 10_000) <= 1_000 }, "\(sent)")
        // 30,000 bytes at 10,000 B/s: one chunk every 0.1 s, 3 s in all.
        #expect(sendTimes == (0..<30).map { .milliseconds(100 * $0) })
        #expect(budget.busyUntil == .seconds(3))
    }

    @Test("a sender alone gets the whole rate; idle time earns no credit beyond the tolerance")
    func aloneAndIdle() {
        var budget = LinkBudget(bytesPerSecond: 1_000, tolerance: .milliseconds(100))
        #expect(budget.reserve(500, at: .zero) == .zero)                        // the link is free
        #expect(budget.reserve(500, at: .zero) == .milliseconds(400))           // busy until 0.5 s, less the tolerance
        #expect(budget.reserve(500, at: .milliseconds(400)) == .milliseconds(900))
        // Ten idle seconds later: at once, but only one chunk ahead of the schedule.
        #expect(budget.reserve(1_000, at: .seconds(12)) == .seconds(12))
        #expect(budget.reserve(1_000, at: .seconds(12)) == .milliseconds(12_900))
        #expect(budget.transmissionTime(250) == .milliseconds(250))
    }

    @Test("chunks are about 1/50 s of the slowest limit, 1 KiB to 16 KiB")
    func chunkSize() {
        #expect(BodyStreamer.chunkSize(bandwidth: nil, sharedBandwidth: nil) == 16_384)
        #expect(BodyStreamer.chunkSize(bandwidth: nil, sharedBandwidth: 125_000) == 2_500)
        #expect(BodyStreamer.chunkSize(bandwidth: 100_000, sharedBandwidth: 125_000) == 2_000)
        #expect(BodyStreamer.chunkSize(bandwidth: nil, sharedBandwidth: 1_000) == 1_024)
        #expect(BodyStreamer.chunkSize(bandwidth: nil, sharedBandwidth: 1_250_000_000) == 16_384)
    }

    @Test("rates in bits or bytes per second", arguments: [
        ("1mbit", 125_000), ("10mbit", 1_250_000), ("500kbit", 62_500), ("2.5gbit", 312_500_000), ("1MBit", 125_000),
        ("125000", 125_000), (" 8kbit ", 1_000), ("100gbit", 12_500_000_000), ("12345bit", 1_543),
    ])
    func rates(text: String, bytesPerSecond: Int) throws {
        #expect(try BandwidthRate.parse(text).bytesPerSecond == bytesPerSecond)
    }

    @Test("a bad rate names the flag, the value and the rule", arguments: [
        "bogus", "", "1.5", "-5", "1e6", "10 mbit", "10mbps", "mbit", "1..2mbit",
    ])
    func badRates(text: String) {
        let error = #expect(throws: ValidationError.self) { try BandwidthRate.parse(text) }
        #expect(error?.message == "--server-bandwidth takes a rate: \(BandwidthRate.rule); got '\(text)'")
    }

    @Test("a rate out of range names the accepted range", arguments: [("1kbit", 125), ("999", 999), ("200gbit", 25_000_000_000)])
    func outOfRange(text: String, bytes: Int) {
        let error = #expect(throws: ValidationError.self) { try BandwidthRate.parse(text) }
        #expect(error?.message == "--server-bandwidth must be from 8kbit (1000 bytes/s) to 100gbit (12500000000 bytes/s); got '\(text)' (\(bytes) bytes/s)")
    }

    @Test("rates read back in bits per second")
    func descriptions() throws {
        #expect(try BandwidthRate.parse("1mbit").description == "1 Mbit/s")
        #expect(try BandwidthRate.parse("500kbit").description == "500 kbit/s")
        #expect(try BandwidthRate.parse("2.5gbit").description == "2.5 Gbit/s")
        #expect(try BandwidthRate.parse("1000").description == "8 kbit/s")
    }

    @Test("--server-bandwidth becomes the configuration's shared bandwidth; none by default; bad values fail")
    func flag() throws {
        #expect(try ServerOptions.parse(["--server-bandwidth", "10mbit"]).configuration().sharedBandwidth == 1_250_000)
        #expect(try ServerOptions.parse([]).configuration().sharedBandwidth == nil)
        do {
            _ = try ServerOptions.parse(["--server-bandwidth", "bogus"])
            Issue.record("--server-bandwidth bogus was accepted")
        } catch {
            #expect(ServerOptions.message(for: error).contains("--server-bandwidth takes a rate: \(BandwidthRate.rule); got 'bogus'"))
        }
        var configuration = ServerConfiguration()
        configuration.sharedBandwidth = 10
        let invalid = #expect(throws: ServerConfigurationError.self) { try configuration.validate() }
        #expect(invalid?.message == "sharedBandwidth (bytes/s) must be in 1000...12500000000, got 10")
    }
}

@Suite("PrefetchServer shared bandwidth over loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct SharedBandwidthLoopbackTests {
    @Test("two bodies at once share the link: each takes about twice as long as alone, and both together as long as the link needs")
    func twoBodiesShare() async throws {
        // 400 KB/s shared (slower under a scaled build), two 400 KB bodies: 2 s for both at half
        // the rate each; a per-response cap instead, or one body after the other, would finish
        // one of them within 1 s.
        let rate = Int(400_000 / TestTime.scale)
        let size = 400_000
        let alone = Double(size) / Double(rate)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 10
        configuration.thumbnailSize = size
        configuration.sharedBandwidth = rate
        var logger = Logger(label: "server-bandwidth-test")
        logger.logLevel = .critical
        try await DataServer.withServer(configuration, logger: logger) { server in
            let clock = ContinuousClock()
            let start = clock.now
            let finished = try await withThrowingTaskGroup(of: (Int, Double).self) { group in
                for id in [1, 2] {
                    group.addTask {
                        let (data, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("thumb/\(id)"))
                        return (data.count, (clock.now - start) / .seconds(1))
                    }
                }
                return try await group.reduce(into: [(Int, Double)]()) { $0.append($1) }
            }
            #expect(finished.map(\.0) == [size, size])
            let times = finished.map(\.1).sorted()
            // Lower bounds only: a slow machine makes a run longer, never shorter. The first body
            // would end at `alone` if it had the link to itself; sharing, it ends near 2 × alone,
            // less the time it ran alone before the other began and the pacer's 0.1 s tolerance.
            #expect(times[0] >= 1.4 * alone, "the first body ended after \(times[0]) s; alone it takes \(alone) s")
            // Both together: 2 × size at the rate, less the pacer's 100 ms tolerance.
            #expect(times[1] >= 2 * alone - 0.15)
            print("measured: two \(size)-byte bodies over a \(rate) B/s shared link ended after \(times.map { String(format: "%.2f s", $0) }); alone one takes \(String(format: "%.2f s", alone))")
        }
    }
}
