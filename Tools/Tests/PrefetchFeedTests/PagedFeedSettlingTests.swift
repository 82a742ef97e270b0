import Foundation
import PrefetchFeed
import PrefetchKit
import PrefetchTesting
import IOTestSupport
import Testing
import PrefetchToolSupport

/// A loader error that ends a page at once (not retryable).
struct TooManyRequests: Error, CustomStringConvertible {
    var count: Int
    var description: String { "the test loader refused request \(count): the feed kept loading" }
}

/// Findings 1 and 2 of issue 12: a feed that settles, and loads that `reset()` replaced.
@Suite("PagedFeed settling and replaced loads", .timeLimit(.minutes(TestTime.minutes(1))))
struct PagedFeedSettlingTests {
    @Test("a window wider than maxLoadedPages settles instead of dropping and reloading its own pages")
    func wideWindowSettles() async throws {
        // Given the default configuration (50-item pages, at most 40 kept, 2 screens ahead, half a
        // screen behind) and a loader that refuses to go on after 500 requests, so a feed that never
        // settles ends in a failure instead of hanging the test
        let calls = Locked(0)
        let loader = ScriptedLoader<Int, FeedPage<Row>>(autoRespond: { offset in
            let count = calls.withLock { $0 += 1; return $0 }
            guard count <= 500 else { throw TooManyRequests(count: count) }
            return page(offset: offset, total: 100_000)
        })
        let changes = Locked(0)
        let feed = try PagedFeed(onChange: { _ in changes.withLock { $0 += 1 } }, loader: ScriptedPages(loader: loader))
        _ = await feed.loadMoreIfNeeded(visibleRange: 0..<1)
        await feed.waitUntilSettled()
        // When 600 rows are visible: the window (300 rows behind, 1,200 ahead) covers 42 pages
        _ = await feed.loadMoreIfNeeded(visibleRange: 1_000..<1_600)
        await feed.waitUntilSettled()
        // Then it settles with at most 40 pages, the visible ones among them, each loaded once
        let phase = await feed.phase
        #expect(phase.isFailed == false, "\(phase)")
        #expect(calls.withLock { $0 } <= 41, "\(calls.withLock { $0 }) page requests")
        let loaded = await feed.loadedPages
        #expect(loaded.count <= 40)
        for row in [1_000, 1_299, 1_599] { #expect(await feed.item(at: row)?.id == row) }
        // And nothing changes afterwards: asking again loads nothing and drops nothing
        let changesBefore = changes.withLock { $0 }
        #expect(await feed.loadMoreIfNeeded(visibleRange: 1_000..<1_600) == [])
        await feed.waitUntilSettled()
        #expect(changes.withLock { $0 } == changesBefore)
        #expect(await feed.loadedPages == loaded)
    }

    @Test("a load that reset() replaced cannot install its page over the new load's")
    func staleLoadAfterResetIsIgnored() async throws {
        // Given a load of page 0 that ignores cancellation, replaced by a new load after reset()
        let loader = ScriptedLoader<Int, FeedPage<Row>>(ignoresCancellation: true)
        let feed = try PagedFeed(loader: ScriptedPages(loader: loader))
        _ = await feed.loadMoreIfNeeded(visibleRange: 0..<10)
        await loader.waitForCalls(1)
        await feed.reset()
        _ = await feed.loadMoreIfNeeded(visibleRange: 0..<10)
        await loader.waitForCalls(2)
        // When the old load answers first (a feed of 1,000 from before the reset), then the new one (30)
        var stale = page(offset: 0, total: 1_000)
        stale.items = stale.items.map { Row(id: $0.id, title: "stale") }
        #expect(loader.succeed(0, with: stale))
        #expect(loader.succeed(0, with: page(offset: 0, total: 30)))
        await feed.waitUntilSettled()
        // Then the feed holds the new load's page and total, never the old one's
        #expect(await feed.totalCount == 30)
        #expect(await feed.item(at: 0)?.title == "Item 0")
        #expect(await feed.loadedPages == [0])
        #expect(loader.callCount == 2)
    }
}
