import Testing
import PrefetchTesting
@testable import PrefetchKit

private func prefetchPriority(_ order: Double) -> FetchPriority { FetchPriority(level: .prefetch, order: order) }

/// `updatePrefetching(_:cancelling:)`: the batched call a controller makes once per frame.
@Suite struct UpdatePrefetchingTests {
    @Test func setsExplicitPrioritiesAndRePrioritisesQueuedIDs() async throws {
        // Given one slot and three prefetches, nearest first
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 1, loader: loader)
        fetcher.updatePrefetching([(1, prefetchPriority(0)), (2, prefetchPriority(1)), (3, prefetchPriority(2))], cancelling: [])
        await loader.waitForCalls(1)
        #expect(loader.calledIDs == [1])
        // When the next frame makes 3 the nearest and withdraws 1
        fetcher.updatePrefetching([(3, prefetchPriority(0)), (2, prefetchPriority(1))], cancelling: [1])
        // Then 1 is cancelled and 3, not 2, takes the slot
        await loader.waitForCalls(2)
        #expect(loader.calledIDs == [1, 3])
        await loader.waitForCancellations(1)
        #expect(loader.cancelledIDs == [1])
        // Re-sending the same window is not a new request
        fetcher.updatePrefetching([(3, prefetchPriority(0)), (2, prefetchPriority(1))], cancelling: [])
        let stats = fetcher.statistics
        #expect(stats.requests == 3)
        #expect(stats.loadsStarted == 2 && stats.loadsCancelled == 1 && stats.queued == 1)
    }

    @Test func neverStartsALoadForAnIDTheSameCallWithdraws() async throws {
        // Given 1 running and 2, 3 queued behind it
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 1, loader: loader)
        fetcher.updatePrefetching([(1, prefetchPriority(0)), (2, prefetchPriority(1)), (3, prefetchPriority(2))], cancelling: [])
        await loader.waitForCalls(1)
        // When one call withdraws 1 and 2, and an id in both lists
        fetcher.updatePrefetching([(4, prefetchPriority(0))], cancelling: [1, 2, 4])
        // Then only 3 starts: 2 and 4 never do
        await loader.waitForCalls(2)
        #expect(loader.calledIDs == [1, 3])
        #expect(fetcher.statistics.loadsStarted == 2)
        #expect(fetcher.statistics.queued == 0)
    }

    @Test func withdrawingKeepsAConsumersLoadAndSkipsCachedIDs() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 2, loader: loader)
        fetcher.updatePrefetching([(1, prefetchPriority(0)), (2, prefetchPriority(1))], cancelling: [])
        await loader.waitForCalls(2)
        let cell = Inbox<String>()
        fetcher.fetchAsync(1, completion: cell.handler)
        // Withdrawing 1's prefetch leaves the cell's load running; 2 has no consumer and stops.
        fetcher.updatePrefetching([], cancelling: [1, 2])
        await loader.waitForCancellations(1)
        #expect(loader.cancelledIDs == [2])
        loader.succeed(1, with: "one")
        #expect(try await cell.next()?.get() == "one")
        // A cached id is skipped: no load, no request counted.
        let requests = fetcher.statistics.requests
        fetcher.updatePrefetching([(1, prefetchPriority(0))], cancelling: [])
        #expect(fetcher.statistics.requests == requests)
        #expect(loader.callCount == 2)
    }

    @Test func afterShutdownEveryRequestedIDIsRejected() throws {
        let (fetcher, rejected) = try makeShutDownFetcher()
        fetcher.updatePrefetching([(1, .prefetch), (2, .prefetch)], cancelling: [3])
        #expect(rejected.withLock { $0 } == [1, 2])
        #expect(fetcher.statistics.loadsStarted == 0)
    }
}
