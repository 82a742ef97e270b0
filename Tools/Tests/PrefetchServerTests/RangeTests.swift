import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IOTestSupport
import Logging
@testable import PrefetchServer
import Testing

/// The data server's byte ranges: the rule on its own, then over loopback.
@Suite("PrefetchServer byte ranges")
struct RangeRuleTests {
    @Test("Range and If-Range give the whole body, a part, or 416", arguments: [
        (nil, nil, RangeAnswer.whole),
        ("bytes=100-", nil, .part(first: 100, last: 999)),
        ("bytes=0-", nil, .part(first: 0, last: 999)),
        ("bytes=10-19", nil, .part(first: 10, last: 19)),
        ("bytes=990-5000", nil, .part(first: 990, last: 999)),
        ("bytes=-5", nil, .part(first: 995, last: 999)),
        ("bytes=-5000", nil, .part(first: 0, last: 999)),
        ("BYTES=999-", nil, .part(first: 999, last: 999)),
        ("bytes=100-", "\"tag\"", .part(first: 100, last: 999)),
        ("bytes=100-", "\"other\"", .whole),
        ("bytes=100-", "W/\"tag\"", .whole),
        ("bytes=100-", "Wed, 01 Jan 2020 00:00:00 GMT", .whole),
        ("bytes=1000-", nil, .unsatisfiable),
        ("bytes=99999999999999999999999-", nil, .unsatisfiable),
        ("bytes=-0", nil, .unsatisfiable),
        ("bytes=20-10", nil, .whole),
        ("bytes=0-1,5-9", nil, .whole),
        ("items=0-9", nil, .whole),
        ("bytes=x-9", nil, .whole),
        ("bytes=-", nil, .whole),
        ("bytes", nil, .whole),
    ] as [(String?, String?, RangeAnswer)])
    func rule(range: String?, ifRange: String?, expected: RangeAnswer) {
        #expect(RangeAnswer.answer(range: range, ifRange: ifRange, entityTag: "\"tag\"", length: 1_000) == expected,
                "\(range ?? "nil") / \(ifRange ?? "nil")")
    }

    @Test("an empty body satisfies no range")
    func emptyBody() {
        #expect(RangeAnswer.answer(range: "bytes=0-", ifRange: nil, entityTag: "\"t\"", length: 0) == .unsatisfiable)
        #expect(RangeAnswer.answer(range: "bytes=-1", ifRange: nil, entityTag: "\"t\"", length: 0) == .unsatisfiable)
    }

    @Test("the entity tag is strong and the same for the same bytes in every process")
    func entityTag() {
        let tag = Payloads.thumbnailTag(id: 7, size: 1_000, seed: 1)
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"))
        #expect(tag == Payloads.thumbnailTag(id: 7, size: 1_000, seed: 1))
        #expect(tag == "\"t\(String(stableHash("thumb 1 7 1000"), radix: 16))\"")
        #expect(tag != Payloads.thumbnailTag(id: 8, size: 1_000, seed: 1))
        #expect(tag != Payloads.thumbnailTag(id: 7, size: 1_001, seed: 1))
        #expect(tag != Payloads.thumbnailTag(id: 7, size: 1_000, seed: 2))
    }
}

@Suite("PrefetchServer byte ranges over loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct RangeLoopbackTests {
    static let logger: Logger = {
        var logger = Logger(label: "server-range-test")
        logger.logLevel = .critical
        return logger
    }()

    func get(_ url: URL, range: String? = nil, ifRange: String? = nil) async throws -> (HTTPURLResponse, Data) {
        var request = URLRequest(url: url)
        request.setValue(range, forHTTPHeaderField: "Range")
        request.setValue(ifRange, forHTTPHeaderField: "If-Range")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (try #require(response as? HTTPURLResponse), data)
    }

    @Test("thumbnails carry ETag and Accept-Ranges; ranges get 206 with Content-Range; If-Range and 416 as RFC 9110 says")
    func ranges() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 10
        configuration.thumbnailSize = 1_000
        try await DataServer.withServer(configuration, logger: Self.logger) { server in
            let url = server.baseURL.appendingPathComponent("thumb/3")
            let (head, whole) = try await get(url)
            #expect(head.statusCode == 200)
            #expect(whole.count == 1_000)
            #expect(head.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
            let tag = try #require(head.value(forHTTPHeaderField: "ETag"))
            #expect(tag == Payloads.thumbnailTag(id: 3, size: 1_000, seed: 1))

            let (rest, restBody) = try await get(url, range: "bytes=600-", ifRange: tag)
            #expect(rest.statusCode == 206)
            #expect(rest.value(forHTTPHeaderField: "Content-Range") == "bytes 600-999/1000")
            #expect(rest.value(forHTTPHeaderField: "ETag") == tag)
            #expect(restBody == whole[600...])
            let (_, middle) = try await get(url, range: "bytes=10-19")
            #expect(middle == whole[10..<20])
            let (_, tail) = try await get(url, range: "bytes=-4")
            #expect(tail == whole[996...])

            let (changed, changedBody) = try await get(url, range: "bytes=600-", ifRange: "\"another\"")
            #expect(changed.statusCode == 200)
            #expect(changedBody == whole)
            let (past, _) = try await get(url, range: "bytes=1000-")
            #expect(past.statusCode == 416)
            #expect(past.value(forHTTPHeaderField: "Content-Range") == "bytes */1000")
            #expect(server.events.events.contains(.responded(path: "/thumb/3", status: 206)))
            #expect(server.events.events.contains(.responded(path: "/thumb/3", status: 416)))
            #expect(server.events.events.contains(.completed(path: "/thumb/3", bytes: 400)))
        }
    }
}
