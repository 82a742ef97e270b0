import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrefetchHTTP
import PrefetchKit
import PrefetchServer
import IOTestSupport
import Testing
import PrefetchToolSupport

/// Issue 36's real parts: `HTTPPreviewLoader` against the data server's progressive JPEGs over
/// loopback. The server's event log counts the bytes each response moved.
@Suite("HTTPPreviewLoader over loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct PreviewTests {
    /// The fixture the server sends for `name` (`photo-0`, `thumb-3`).
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PrefetchServer/Photos/\(name).jpg"))
    }

    /// A preview loader of `/photos/{id}.jpg` on `server` (with `query`, when given).
    static func loader(_ server: DataServer, _ preview: HTTPPreview<Int>, query: String = "") throws -> HTTPPreviewLoader<Int> {
        let base = server.baseURL
        let http = try HTTPLoader<Int>(configuration: .scaledForTests) { id in
            URL(string: "photos/\(id).jpg\(query)", relativeTo: base)!.absoluteURL
        }
        return try HTTPPreviewLoader(http, preview: preview)
    }

    /// The body bytes each of the `responses` responses for `path` moved (whole or cut short by
    /// the client), in order, and their statuses; it waits for the server to record them all (it
    /// records a body's end just after the client may have read its last byte).
    static func moved(_ server: DataServer, _ path: String, responses: Int) async -> (bytes: [Int], statuses: [Int]) {
        @Sendable func ends(_ events: [ServerEvent]) -> [Int] {
            events.compactMap { event -> Int? in
                switch event {
                case .completed(path, let bytes), .clientDisconnected(path, let bytes, _): bytes
                default: nil
                }
            }
        }
        await server.events.wait { ends($0).count >= responses }
        let events = server.events.events
        let statuses = events.compactMap { event -> Int? in
            if case .responded(path, let status) = event { status } else { nil }
        }
        return (ends(events), statuses)
    }

    /// Collects the previews a full load hands on.
    final class Previews: Sendable {
        private let seen = Locked([Data]())
        var all: [Data] { seen.withLock { $0 } }
        var callback: @Sendable (Data) -> Void { { [seen] data in seen.withLock { $0.append(data) } } }
    }

    @Test("a first-scan preview is the prefix up to the second SOS; the full load asks by range for the rest: no byte moves twice")
    func firstScanThenFull() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-0")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            let loader = try Self.loader(server, .firstScan(window: 16_384))
            defer { loader.base.invalidate() }
            let preview = try await loader.load(0, quality: .preview, preview: { _ in Issue.record("a preview load hands on nothing") })
            #expect(preview == photo.prefix(end))
            let previews = Previews()
            let full = try await loader.load(0, quality: .full, preview: previews.callback)
            #expect(full == photo)
            // The full load handed on the kept prefix before it returned.
            #expect(previews.all == [photo.prefix(end)])
            let (bytes, statuses) = await Self.moved(server, "/photos/0.jpg", responses: 2)
            #expect(statuses == [206, 206])          // bytes=0-16383, then bytes=16384-
            #expect(bytes == [16_384, photo.count - 16_384])
            #expect(bytes.reduce(0, +) == photo.count)
            print("measured: photo-0 \(photo.count) bytes, first scan \(end) bytes (\(end * 100 / photo.count) %); preview window 16384, then the rest; \(bytes.reduce(0, +)) bytes moved in all")
        }
    }

    @Test("windows smaller than the first scan grow until it is in; together with the full load they move the file once")
    func growingWindows() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-1")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            #expect(end > 8_192 && end <= 16_384)
            let loader = try Self.loader(server, .firstScan(window: 2_048))
            defer { loader.base.invalidate() }
            #expect(try await loader.load(1, quality: .preview, preview: { _ in }) == photo.prefix(end))
            #expect(try await loader.load(1, quality: .full, preview: { _ in }) == photo)
            let (bytes, statuses) = await Self.moved(server, "/photos/1.jpg", responses: 5)
            #expect(bytes == [2_048, 2_048, 4_096, 8_192, photo.count - 16_384])
            #expect(statuses.allSatisfy { $0 == 206 })
        }
    }

    @Test("a fixed prefix (the server's X-Preview-Length) moves exactly that many bytes, then the rest")
    func fixedPrefix() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-2")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            let loader = try Self.loader(server, .prefix { _ in end })
            defer { loader.base.invalidate() }
            #expect(try await loader.load(2, quality: .preview, preview: { _ in }) == photo.prefix(end))
            #expect(try await loader.load(2, quality: .full, preview: { _ in }) == photo)
            #expect(await Self.moved(server, "/photos/2.jpg", responses: 2).bytes == [end, photo.count - end])
        }
    }

    /// A preview loader whose loads say at which quality they were asked for, then wait until the
    /// test opens them: the test's cell can come to want an item in full while its preview load is
    /// under way, deterministically.
    struct GatedLoader: PreviewLoader {
        let inner: HTTPPreviewLoader<Int>
        let entered: AsyncStream<FetchQuality>.Continuation
        let opened: AsyncStream<Void>
        func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable (Data) -> Void) async throws -> Data {
            entered.yield(quality)
            for await _ in opened { break }
            return try await inner.load(id, quality: quality, preview: preview)
        }
    }

    @Test("a preview load whose item a cell comes to want in full goes on for the rest in the same load: one load, each byte once")
    func previewLoadWantedInFullGoesOn() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-0")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            let inner = try Self.loader(server, .firstScan(window: 16_384))
            defer { inner.base.invalidate() }
            let (entered, enter) = AsyncStream.makeStream(of: FetchQuality.self)
            let (opened, open) = AsyncStream.makeStream(of: Void.self)
            let fetcher = try AsyncFetcher(loader: GatedLoader(inner: inner, entered: enter, opened: opened))
            // The item is prefetched as a preview; its load starts at preview quality and waits
            fetcher.prefetch([0], quality: .preview)
            var calls = entered.makeAsyncIterator()
            #expect(await calls.next() == .preview)
            // A cell then wants it in full (a fling came to rest on it) and shows what comes first
            let previews = Previews()
            let handle = fetcher.fetchAsync(0, quality: .full, preview: previews.callback) { _ in }
            #expect(handle != nil)
            let full = Task { try await fetcher.value(for: 0, quality: .full) }
            open.yield()
            open.finish()
            #expect(try await full.value == photo)
            // One call of the loader brought the preview (handed on first) and the rest: the
            // fetcher asked for no second, full load
            enter.finish()
            var later: [FetchQuality] = []
            while let quality = await calls.next() { later.append(quality) }
            #expect(later.isEmpty, "the loader was called again for \(later)")
            #expect(fetcher.statistics.loadsStarted == 1)
            #expect(previews.all.first == photo.prefix(end))
            #expect(fetcher.fetchedData(for: 0, atLeast: .full) == photo)
            // Each byte moved once: the preview's window, then the rest by range
            let (bytes, statuses) = await Self.moved(server, "/photos/0.jpg", responses: 2)
            #expect(statuses == [206, 206])
            #expect(bytes == [16_384, photo.count - 16_384])
            fetcher.shutdown()
        }
    }

    @Test("a full load with nothing kept hands on the first scan as it arrives, then returns the whole body")
    func fullLoadHandsOnItsPreview() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-3")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            let loader = try Self.loader(server, .firstScan())
            defer { loader.base.invalidate() }
            let previews = Previews()
            #expect(try await loader.load(9, quality: .full, preview: previews.callback) == photo)   // 9 % 6 == 3
            #expect(previews.all == [photo.prefix(end)])
            #expect(await Self.moved(server, "/photos/9.jpg", responses: 1) == ([photo.count], [200]))
        }
    }

    @Test("a variant preview is its own request for the thumbnail; the full load gets the photo")
    func variant() async throws {
        try await withServer { server in
            let base = server.baseURL
            let loader = try Self.loader(server, .variant { id in
                URL(string: "photos/\(id).jpg?variant=thumb", relativeTo: base)!.absoluteURL
            })
            defer { loader.base.invalidate() }
            #expect(try await loader.load(4, quality: .preview, preview: { _ in }) == (try Self.fixture("thumb-4")))
            #expect(try await loader.load(4, quality: .full, preview: { _ in }) == (try Self.fixture("photo-4")))
            #expect(await Self.moved(server, "/photos/4.jpg?variant=thumb", responses: 1).statuses == [200])
            #expect(await Self.moved(server, "/photos/4.jpg", responses: 1).statuses == [200])
        }
    }

    @Test("on the wire: the preview asks bytes=0-(window-1), the full load bytes=N- with If-Range, N the bytes kept")
    func requestHeaders() async throws {
        let photo = try Self.fixture("photo-4")
        let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
        try await ScriptedBodyServer.with(body: photo, answer: { _, request in
            // A 206 for `bytes=A-B` or `bytes=A-`, as a server that honours ranges answers.
            let spec = (request.range ?? "").dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            let first = Int(spec.first ?? "") ?? 0
            let last = min(Int(spec.last ?? "") ?? photo.count - 1, photo.count - 1)
            return .init(status: .partialContent,
                         headers: [.eTag: "\"p4\"", .contentRange: "bytes \(first)-\(last)/\(photo.count)"],
                         bytes: first..<(last + 1))
        }) { base, server in
            let http = try HTTPLoader<Int>(configuration: .scaledForTests) { _ in base.appendingPathComponent("body") }
            defer { http.invalidate() }
            let loader = try HTTPPreviewLoader(http, preview: .firstScan(window: 4_096))
            #expect(try await loader.load(4, quality: .preview, preview: { _ in }) == photo.prefix(end))
            #expect(try await loader.load(4, quality: .full, preview: { _ in }) == photo)
            #expect(server.requests.map(\.range) == ["bytes=0-4095", "bytes=4096-"])
            #expect(server.requests.map(\.ifRange) == [nil, "\"p4\""])
        }
    }

    @Test("a server that ignores Range: the preview stops at the first scan, the full load gets the whole body again")
    func serverWithoutRanges() async throws {
        try await withServer { server in
            let photo = try Self.fixture("photo-1")
            let end = try #require(ProgressiveJPEG.firstScanEnd(in: photo))
            let loader = try Self.loader(server, .firstScan(window: 4_096), query: "?ranges=0")
            defer { loader.base.invalidate() }
            #expect(try await loader.load(1, quality: .preview, preview: { _ in }) == photo.prefix(end))
            let previews = Previews()
            #expect(try await loader.load(1, quality: .full, preview: previews.callback) == photo)
            #expect(previews.all == [photo.prefix(end)])
            // Both answers were whole bodies (200): the second one moved the whole file again.
            let (bytes, statuses) = await Self.moved(server, "/photos/1.jpg", responses: 2)
            #expect(statuses == [200, 200])
            #expect(bytes.last == photo.count)
        }
    }

    @Test("a body that is not a progressive JPEG: the preview load returns the whole body")
    func notProgressive() async throws {
        try await withServer { server in
            let base = server.baseURL
            let http = try HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
            let loader = try HTTPPreviewLoader(http, preview: .firstScan(window: 1_024))
            defer { http.invalidate() }
            let whole = try await HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
                .load(5)
            #expect(try await loader.load(5, quality: .preview, preview: { _ in }) == whole)
        }
    }

    @Test("the server tells each photo's first-scan length and answers ranges of it")
    func serverHeaders() async throws {
        try await withServer { server in
            var request = URLRequest(url: server.baseURL.appendingPathComponent("photos/0.jpg"))
            request.setValue("bytes=0-99", forHTTPHeaderField: "Range")
            let (body, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            let photo = try Self.fixture("photo-0")
            #expect(http.statusCode == 206)
            #expect(body == photo.prefix(100))
            #expect(http.value(forHTTPHeaderField: "X-Preview-Length") == "\(ProgressiveJPEG.firstScanEnd(in: photo)!)")
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
            let (_, missing) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("photos/x.jpg"))
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        }
    }
}
