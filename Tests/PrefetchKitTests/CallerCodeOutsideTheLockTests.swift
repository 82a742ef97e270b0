import Testing
import PrefetchTesting
@testable import PrefetchKit

/// A caller's sequences and closures run outside the fetcher's lock: one that calls back into
/// the fetcher must not deadlock (the mutex is not recursive).
@Suite struct CallerCodeOutsideTheLockTests {
    @Test func aLazySequenceThatAsksTheFetcherCanBePrefetchedAndCancelled() async throws {
        // Given a fetcher with 1 cached
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 6, loader: loader)
        let warm = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(1)
        loader.succeed(1, with: "one")
        _ = try await warm.value
        // When the ids to prefetch are a lazy filter that reads the fetcher's cache
        fetcher.prefetch((1...3).lazy.filter { fetcher.fetchedData(for: $0) == nil })
        // Then the call returns, and only the uncached ids load
        await loader.waitForCalls(3)
        #expect(loader.calledIDs == [1, 2, 3])
        // And cancelling with such a sequence returns too
        fetcher.cancelPrefetching((1...3).lazy.filter { fetcher.fetchedData(for: $0) == nil })
        await loader.waitForCancellations(2)
        #expect(Set(loader.cancelledIDs) == [2, 3])
        // So does the batched update
        fetcher.updatePrefetching(
            (4...5).lazy.filter { fetcher.fetchedData(for: $0) == nil }.map { ($0, FetchPriority.prefetch) },
            cancelling: (4...4).lazy.filter { _ in fetcher.statistics.inFlight >= 0 })
        await loader.waitForCalls(4)
        #expect(loader.calledIDs.last == 5)
    }

    @Test func aCostFunctionThatAsksTheFetcherDoesNotDeadlock() async throws {
        // Given a cost function that reads the fetcher while its value is being cached
        let holder = Locked<AsyncFetcher<Int, String>?>(nil)
        let fetcher = try AsyncFetcher<Int, String>(
            clock: ManualClock(),
            cost: { value in
                let cached = holder.withLock { $0 }?.cachedCount ?? 0
                return value.count + cached
            },
            load: { "value \($0)" })
        holder.withLock { $0 = fetcher }
        // When two values load and are cached
        #expect(try await fetcher.value(for: 1) == "value 1")
        #expect(try await fetcher.value(for: 2) == "value 2")
        // Then both are cached
        #expect(fetcher.cachedCount == 2)
        holder.withLock { $0 = nil }
    }
}
