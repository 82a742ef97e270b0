import Foundation
import Hummingbird
import PrefetchHTTP
import PrefetchKit
import PrefetchServer
import IOTestSupport
import Testing
import PrefetchToolSupport

/// Counts the body bytes an `HTTPLoader` reports per URL, and wakes a waiter once a URL has
/// received a given number: the gate at which a test stops a load.
final class ByteMeter: Sendable {
    private struct State: Sendable {
        var bytes: [URL: Int] = [:]
        var waiters: [(url: URL, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// The observer to put in `HTTPLoaderConfiguration.onBytesReceived`.
    var observer: @Sendable (URL, Int) -> Void {
        { [self] url, bytes in
            let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.bytes[url, default: 0] += bytes
                let total = s.bytes[url, default: 0]
                let ready = s.waiters.filter { $0.url == url && total >= $0.count }.map(\.continuation)
                s.waiters.removeAll { $0.url == url && total >= $0.count }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Bytes received for `url` so far.
    func bytes(_ url: URL) -> Int { state.withLock { $0.bytes[url, default: 0] } }

    /// Returns once `url` has received at least `count` bytes.
    func wait(until url: URL, received count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.bytes[url, default: 0] >= count { return true }
                s.waiters.append((url, count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// A loader reporting to `meter`, with the tests' scaled timeouts.
func meteredLoader(_ meter: ByteMeter, _ change: (inout HTTPLoaderConfiguration) -> Void = { _ in }) throws -> HTTPLoader<URL> {
    var configuration = HTTPLoaderConfiguration.scaledForTests
    configuration.onBytesReceived = meter.observer
    change(&configuration)
    return try HTTPLoader<URL>(configuration: configuration)
}

/// Starts a load of `url`, waits until `count` bytes of it arrived, cancels it, and checks that it
/// threw `CancellationError` (never a value made of the bytes so far).
func stopLoad(_ loader: HTTPLoader<URL>, _ url: URL, after count: Int, meter: ByteMeter) async {
    let load = Task { try await loader.load(url) }
    await meter.wait(until: url, received: count)
    load.cancel()
    await #expect(throws: CancellationError.self) { try await load.value }
}

/// Issue 26's goal: a load stopped at 60 % of its bytes resumes by range and moves at most 45 %
/// of them again, against the local data server over loopback.
@Suite("HTTPLoader resumes stopped loads", .timeLimit(.minutes(TestTime.minutes(1))))
struct ResumeTests {
    @Test("a load stopped at 60 % of its bytes resumes by range from the data server and moves at most 45 % of them again")
    func resumesFromTheDataServer() async throws {
        let size = 1_000_000
        // 1 MB/s for all responses together (slower under a scaled build): the 40 % left after the
        // gate take 0.4 s, far longer than a cancellation takes to stop the transfer.
        try await withServer({
            $0.thumbnailSize = size
            $0.sharedBandwidth = Int(1_000_000 / TestTime.scale)
        }) { server in
            let url = server.baseURL.appendingPathComponent("thumb/1")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: size * 6 / 10, meter: meter)
            let value = try await loader.load(url)
            let whole = try await HTTPLoader<URL>(configuration: .scaledForTests).load(url)   // another loader: the whole body
            #expect(value.count == size)
            #expect(value == whole)
            // The server's record: the first body was cut short by the client, the second was a 206 of the rest.
            let events = server.events.events
            let firstSent = events.compactMap { event -> Int? in
                if case .clientDisconnected("/thumb/1", let sent, size) = event { sent } else { nil }
            }.first
            let moved = try #require(events.compactMap { event -> Int? in
                if case .completed("/thumb/1", let bytes) = event, bytes < size { bytes } else { nil }
            }.first)
            #expect(events.contains(.responded(path: "/thumb/1", status: 206)))
            #expect(moved <= size * 45 / 100)
            #expect(moved <= size * 4 / 10)
            print("measured: stopped after \(size - moved) of \(size) bytes kept (\(percent(size - moved, size))); the server had sent \(firstSent.map(String.init) ?? "?"); the resumed load moved \(moved) bytes again, \(percent(moved, size)) of the body")
        }
    }

    @Test("the validator may be Last-Modified: the rest comes by range, the value is the whole body")
    func lastModified() async throws {
        let body = Self.body(100_000)
        let modified = "Wed, 01 Jan 2020 00:00:00 GMT"
        try await ScriptedBodyServer.with(body: body, answer: { index, request in
            index == 0 ? .whole(body.count, headers: [.lastModified: modified], pauseAfter: 60_000)
                : .honouring(request, count: body.count, field: .lastModified, validator: modified)
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            #expect(try await loader.load(url) == body)
            #expect(server.requests.map(\.range) == [nil, "bytes=60000-"])
            #expect(server.requests.last?.ifRange == modified)
            #expect(meter.bytes(url) == body.count)   // 60,000 before the stop, 40,000 after
        }
    }

    @Test("a server that answers the range with 200 gets a clean restart: the kept bytes are dropped")
    func restartOn200() async throws {
        let body = Self.body(100_000)
        try await ScriptedBodyServer.with(body: body, answer: { index, _ in
            .whole(body.count, headers: [.eTag: "\"v1\""], pauseAfter: index == 0 ? 60_000 : nil)
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            #expect(try await loader.load(url) == body)
            #expect(server.requests.map(\.range) == [nil, "bytes=60000-"])
            #expect(server.requests.last?.ifRange == "\"v1\"")
            #expect(meter.bytes(url) == 60_000 + body.count)
            // Nothing is kept from a load that finished: the next one asks for the whole body.
            #expect(try await loader.load(url) == body)
            #expect(server.requests.last?.range == nil)
        }
    }

    @Test("without a validator (none, or a weak ETag) nothing is resumed", arguments: [nil, "W/\"weak\""] as [String?])
    func noValidator(tag: String?) async throws {
        let body = Self.body(100_000)
        let headers: HTTPFields = tag.map { [.eTag: $0] } ?? [:]
        try await ScriptedBodyServer.with(body: body, answer: { index, _ in
            .whole(body.count, headers: headers, pauseAfter: index == 0 ? 60_000 : nil)
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            #expect(try await loader.load(url) == body)
            #expect(server.requests.count == 2)
            #expect(server.requests.allSatisfy { $0.range == nil && $0.ifRange == nil })
        }
    }

    @Test("a 416, or a Content-Range that does not continue the kept bytes, restarts from the first byte",
          arguments: ["416", "misfit"])
    func askAgain(answer: String) async throws {
        let body = Self.body(100_000)
        try await ScriptedBodyServer.with(body: body, answer: { index, _ in
            switch index {
            case 0: return .whole(body.count, headers: [.eTag: "\"v1\""], pauseAfter: 60_000)
            case 1 where answer == "416":
                return .init(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(body.count)"], bytes: 0..<0)
            case 1:   // the bytes from 50,000, not from 60,000
                return .init(status: .partialContent, headers: [.eTag: "\"v1\"", .contentRange: "bytes 50000-99999/100000"],
                             bytes: 50_000..<100_000)
            default: return .whole(body.count, headers: [.eTag: "\"v1\""])
            }
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            #expect(try await loader.load(url) == body)
            #expect(server.requests.map(\.range) == [nil, "bytes=60000-", nil])
        }
    }

    @Test("a 206 for a changed resource (a server that ignores If-Range) names another ETag: the loader starts over")
    func changedVersionIn206() async throws {
        // The server's bytes: version 1 of the body, then version 2, 100,000 bytes each.
        let versions = Self.body(200_000)
        let second = Data(versions[100_000..<200_000])
        try await ScriptedBodyServer.with(body: versions, answer: { index, _ in
            switch index {
            case 0: return .whole(100_000, headers: [.eTag: "\"v1\""], pauseAfter: 60_000)
            case 1:   // Range honoured, If-Range ignored: the rest of version 2
                return .init(status: .partialContent, headers: [.eTag: "\"v2\"", .contentRange: "bytes 60000-99999/100000"],
                             bytes: 160_000..<200_000)
            default: return .init(headers: [.eTag: "\"v2\""], bytes: 100_000..<200_000)
            }
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            #expect(try await loader.load(url) == second)
            #expect(server.requests.map(\.range) == [nil, "bytes=60000-", nil])
            #expect(server.requests[1].ifRange == "\"v1\"")
        }
    }

    @Test("partial bytes are never a value: a resumed body cut short throws and caches nothing; the next load ends whole")
    func partialNeverReturned() async throws {
        let body = Self.body(100_000)
        try await ScriptedBodyServer.with(body: body, answer: { index, request in
            switch index {
            case 0: .whole(body.count, headers: [.eTag: "\"v1\""], pauseAfter: 60_000)
            case 1: .honouring(request, count: body.count, field: .eTag, validator: "\"v1\"", dropAfter: 20_000)
            default: .honouring(request, count: body.count, field: .eTag, validator: "\"v1\"")
            }
        }) { base, server in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            await stopLoad(loader, url, after: 60_000, meter: meter)
            // Through a fetcher: the resumed body stops 20,000 bytes in. An error, not 80,000 bytes, and nothing cached.
            let fetcher = try AsyncFetcher(loader: loader)
            let cut = await #expect(throws: HTTPLoaderError.self) { try await fetcher.value(for: url) }
            #expect(cut?.code == .connectionFailed)
            #expect(fetcher.fetchedData(for: url) == nil)
            // The kept 80,000 bytes are continued; the value is the whole body.
            #expect(try await fetcher.value(for: url) == body)
            #expect(fetcher.fetchedData(for: url) == body)
            #expect(server.requests.map(\.range) == [nil, "bytes=60000-", "bytes=80000-"])
            #expect(meter.bytes(url) == body.count)
            fetcher.shutdown()
        }
    }

    @Test("kept transfers are bounded: past maxPartialTransfers the oldest is forgotten")
    func bounded() async throws {
        let body = Self.body(50_000)
        try await ScriptedBodyServer.with(body: body, answer: { _, request in
            request.range == nil
                ? .whole(body.count, headers: [.eTag: "\"v1\""], pauseAfter: 30_000)
                : .honouring(request, count: body.count, field: .eTag, validator: "\"v1\"")
        }) { base, server in
            let a = base.appendingPathComponent("a"), b = base.appendingPathComponent("b")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter) { $0.maxPartialTransfers = 1 }
            await stopLoad(loader, a, after: 30_000, meter: meter)
            await stopLoad(loader, b, after: 30_000, meter: meter)
            #expect(try await loader.load(b) == body)
            // a was forgotten when b was kept: its load starts over (and pauses again; stop it once more).
            await stopLoad(loader, a, after: 60_000, meter: meter)
            #expect(server.requests.map { "\($0.path) \($0.range ?? "whole")" } == ["/a whole", "/b whole", "/b bytes=30000-", "/a whole"])
        }
    }

    /// `count` bytes that differ from one offset to the next, so a misplaced byte shows.
    static func body(_ count: Int) -> Data {
        var random = SplitMix64(seed: UInt64(count))
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }
}

func percent(_ part: Int, _ whole: Int) -> String {
    String(format: "%.1f%%", Double(part) * 100 / Double(whole))
}
