import Foundation
import Logging
import PrefetchFeed
import PrefetchHTTP
import PrefetchDemoKit
import PrefetchKit
import PrefetchToolSupport
import PrefetchServer
import PrefetchTesting
import IOTestSupport
import Testing

/// A test's own item type: the feed holds whatever the app's pages hold.
struct Row: Sendable, Hashable {
    var id: Int
    var title: String
}

/// Pages answered by a test through a `ScriptedLoader` keyed by offset: no sleeps.
struct ScriptedPages: FeedPageLoader {
    let loader: ScriptedLoader<Int, FeedPage<Row>>
    func loadPage(offset: Int, limit: Int) async throws -> FeedPage<Row> { try await loader.load(offset) }
}

/// A page of a synthetic feed of `total` items.
func page(offset: Int, limit: Int = 50, total: Int) -> FeedPage<Row> {
    let ids = offset < total ? Array(offset..<min(offset + limit, total)) : []
    return FeedPage(offset: offset, limit: limit, total: total, items: ids.map { Row(id: $0, title: "Item \($0)") })
}

struct Flaky: RetryableError { var isRetryable: Bool { true } }

@Suite("PagedFeed")
struct PagedFeedTests {
    @Test("loads the first page, then two screens ahead, nearest first")
    func batchFetchingWindow() async throws {
        let loader = ScriptedLoader<Int, FeedPage<Row>>()
        let feed = try PagedFeed(loader: ScriptedPages(loader: loader))
        // Given 20 visible rows and an unknown total: only the first page is asked for
        #expect(await feed.loadMoreIfNeeded(visibleRange: 0..<20) == [0])
        await loader.waitForCalls(1)
        #expect(await feed.phase.isFailed == false)
        // When it arrives with the total, then pages up to 2 screens (40 rows) past row 20 follow
        _ = loader.succeed(0, with: page(offset: 0, total: 1_000))
        await loader.waitForCalls(2)
        #expect(loader.calledIDs == [0, 50])
        _ = loader.succeed(50, with: page(offset: 50, total: 1_000))
        await feed.waitUntilSettled()
        #expect(await feed.loadedPages == [0, 1])
        #expect(await feed.totalCount == 1_000)
        #expect(await feed.item(at: 59)?.title == "Item 59")
        #expect(await feed.item(at: 100) == nil)
        // When the user scrolls to rows 40..<60, two screens ahead ends at row 100: nothing new
        #expect(await feed.loadMoreIfNeeded(visibleRange: 40..<60) == [])
        // When to rows 60..<80, two screens ahead reaches row 120: page 2 (rows 100..<150)
        #expect(await feed.loadMoreIfNeeded(visibleRange: 60..<80) == [2])
    }

    @Test("never requests the same page twice at once")
    func noDuplicateRequests() async throws {
        let loader = ScriptedLoader<Int, FeedPage<Row>>()
        let feed = try PagedFeed(loader: ScriptedPages(loader: loader))
        for _ in 0..<5 { await feed.loadMoreIfNeeded(visibleRange: 0..<10) }
        await loader.waitForCalls(1)
        #expect(await feed.loadingPages == [0])
        _ = loader.succeed(0, with: page(offset: 0, total: 100_000))
        await feed.waitUntilSettled()        // rows 0..<30 (two screens ahead) all lie in page 0
        #expect(loader.callCount == 1)
        // When rows 40..<60 show, page 1 is wanted, and asked for once however often we ask
        for _ in 0..<5 { await feed.loadMoreIfNeeded(visibleRange: 40..<60) }
        await loader.waitForCalls(2)
        #expect(await feed.loadingPages == [1])
        #expect(loader.callCount == 2)
        #expect(Set(loader.calledIDs).count == loader.calledIDs.count)
    }

    @Test("a failing page is retried on the clock, then shows a failed state until retried by hand")
    func failureAndRetry() async throws {
        let loader = ScriptedLoader<Int, FeedPage<Row>>()
        let clock = ManualClock()
        var configuration = FeedConfiguration()
        configuration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(1), jitter: 0)
        let feed = try PagedFeed(configuration: configuration, clock: clock, loader: ScriptedPages(loader: loader))
        await feed.loadMoreIfNeeded(visibleRange: 0..<10)
        // Given three failures in a row, with back-off waits of 1 s and 2 s between them
        await loader.waitForCalls(1)
        _ = loader.fail(0, with: Flaky())
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await loader.waitForCalls(2)
        _ = loader.fail(0, with: Flaky())
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await loader.waitForCalls(3)
        _ = loader.fail(0, with: Flaky())
        await feed.waitUntilSettled()
        // Then the feed is failed, and asking again does not hammer the server
        let phase = await feed.phase
        guard case .failed(let failedPage, let error) = phase else {
            Issue.record("expected a failed phase, got \(phase)")
            return
        }
        #expect(failedPage == 0)
        #expect(error is Flaky)
        await feed.loadMoreIfNeeded(visibleRange: 0..<10)
        #expect(loader.callCount == 3)
        // When retried by hand, it loads
        #expect(await feed.retryFailedPages() == [0])
        await loader.waitForCalls(4)
        _ = loader.succeed(0, with: page(offset: 0, total: 30))
        await feed.waitUntilSettled()
        #expect(await feed.phase.isFailed == false)
        #expect(await feed.item(at: 29)?.id == 29)
    }

    @Test("a 100,000-item feed scrolls end to end without ever holding more than maxLoadedPages")
    func hugeFeedStaysBounded() async throws {
        let loader = ScriptedLoader<Int, FeedPage<Row>>(autoRespond: { offset in page(offset: offset, total: 100_000) })
        var configuration = FeedConfiguration()
        configuration.maxLoadedPages = 12
        let feed = try PagedFeed(configuration: configuration, loader: ScriptedPages(loader: loader))
        var peak = 0
        for start in stride(from: 0, to: 100_000 - 20, by: 997) {
            await feed.loadMoreIfNeeded(visibleRange: start..<(start + 20))
            await feed.waitUntilSettled()
            peak = max(peak, await feed.loadedPages.count)
            #expect(await feed.item(at: start)?.id == start)
            #expect(await feed.item(at: start + 19)?.id == start + 19)
        }
        #expect(peak <= 12)
        #expect(loader.callCount < 2_000 / 2)      // far fewer than the 2,000 pages of the whole feed
        #expect(await feed.totalCount == 100_000)
        // The Texture rule on its own
        #expect(BatchFetching.shouldFetch(distanceToEnd: 1_500, screenLength: 800))
        #expect(!BatchFetching.shouldFetch(distanceToEnd: 1_700, screenLength: 800))
    }

    @Test("a page that does not answer its request fails its load, naming the rule, and shows nothing")
    func pageForAnotherRequestIsRefused() async throws {
        // Given a loader that answers the request for page 0 with the page at offset 50
        let loader = ScriptedLoader<Int, FeedPage<Row>>()
        let feed = try PagedFeed(loader: ScriptedPages(loader: loader))
        await feed.loadMoreIfNeeded(visibleRange: 0..<10)
        await loader.waitForCalls(1)
        _ = loader.succeed(0, with: page(offset: 50, total: 1_000))
        await feed.waitUntilSettled()
        // Then the load fails with the rule it broke (not retryable: asked once), and no item shows
        guard case .failed(0, let error as PrefetchError) = await feed.phase else {
            Issue.record("expected page 0 to fail with a PrefetchError, got \(await feed.phase)")
            return
        }
        #expect(error.message == "the page for offset 0, limit 50: offset must be 0, got 50")
        #expect(loader.callCount == 1)
        #expect(await feed.item(at: 0) == nil)
        #expect(await feed.loadedPages == [])
        #expect(await feed.totalCount == nil)
    }

    @Test("bad configuration is rejected, naming the value and the rule")
    func badConfiguration() {
        var configuration = FeedConfiguration()
        configuration.pageSize = 0
        let error = #expect(throws: PrefetchError.self) {
            try PagedFeed(configuration: configuration, loader: ScriptedPages(loader: ScriptedLoader()))
        }
        #expect(error?.message == "FeedConfiguration pageSize must be at least 1, got 0")
    }
}

/// Against the real in-process server over loopback: real I/O, bounded in time.
@Suite("PagedFeed over loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct PagedFeedServerTests {
    static let logger: Logger = {
        var logger = Logger(label: "feed-test-server")
        logger.logLevel = .critical   // Hummingbird logs an error when a stop cancels open connections
        return logger
    }()

    func configuration(_ change: (inout ServerConfiguration) -> Void) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 100_000
        change(&configuration)
        return configuration
    }

    @Test("pages through a flaky server (30% 503s), retrying, and every item arrives in place")
    func pagingWithFailures() async throws {
        try await DataServer.withServer(configuration({ $0.faults.latency = try! LatencyModel(.fixed(.zero), failureRate: 0.3); $0.seed = 42 }), logger: Self.logger) { server in
            var feedConfiguration = FeedConfiguration()
            feedConfiguration.retry = RetryPolicy(maxAttempts: 8, initialDelay: .milliseconds(5), maxDelay: .milliseconds(20), jitter: 0)
            let feed = try PagedFeed(configuration: feedConfiguration, loader: HTTPFeedPageLoader(baseURL: server.baseURL))
            for start in stride(from: 0, to: 1_000, by: 25) {
                await feed.loadMoreIfNeeded(visibleRange: start..<(start + 25))
                await feed.waitUntilSettled()
                #expect(await feed.phase.isFailed == false)
            }
            for index in 0..<1_000 {
                let item = await feed.item(at: index)
                if item?.id != index { Issue.record("row \(index) holds \(String(describing: item))"); break }
            }
            #expect(await feed.item(at: 999)?.thumbnailURL.path == "/thumb/999")
            #expect(await feed.totalCount == 100_000)
            let failures = server.events.events.filter { if case .responded(_, 503) = $0 { true } else { false } }
            #expect(!failures.isEmpty)
            #expect(await feed.requestCount == server.events.requestCount)
        }
    }

    @Test("a server that keeps failing leaves a clear failed state with the HTTP error")
    func persistentFailure() async throws {
        try await DataServer.withServer(configuration({ $0.faults.latency = try! LatencyModel(.fixed(.zero), failureRate: 1) }), logger: Self.logger) { server in
            var feedConfiguration = FeedConfiguration()
            feedConfiguration.retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(5), jitter: 0)
            let feed = try PagedFeed(configuration: feedConfiguration, loader: HTTPFeedPageLoader(baseURL: server.baseURL))
            await feed.loadMoreIfNeeded(visibleRange: 0..<20)
            await feed.waitUntilSettled()
            guard case .failed(0, let error as HTTPLoaderError) = await feed.phase else {
                Issue.record("expected page 0 to fail with an HTTPLoaderError")
                return
            }
            #expect(error.statusCode == 503)
            #expect(server.events.requestCount == 2)
        }
    }
}
