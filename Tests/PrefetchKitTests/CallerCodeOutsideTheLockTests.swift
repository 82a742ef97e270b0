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

    @Test func completionsAndEventsThatCallTheFetcherDoNotDeadlock() async throws {
        // Given an event handler and a completion that both call back into the fetcher
        let holder = Locked<AsyncFetcher<Int, String>?>(nil)
        let seen = Locked<[Int]>([])
        let fetcher = try AsyncFetcher<Int, String>(
            clock: ManualClock(),
            onEvent: { event in
                if case .loadCompleted(let id, _) = event { _ = holder.withLock { $0 }?.statistics.loadsCompleted; seen.withLock { $0.append(id) } }
            },
            load: { "value \($0)" })
        holder.withLock { $0 = fetcher }
        let inbox = Inbox<String>()
        fetcher.fetchAsync(1) { result in
            // The completion asks for the value it just got, and for another one.
            _ = fetcher.fetchedData(for: 1)
            fetcher.fetchAsync(2) { _ in inbox.handler(result) }
        }
        // Then the chained completion is answered, and both loads were seen by the event handler
        #expect(try await inbox.next()?.get() == "value 1")
        #expect(seen.withLock { $0 } == [1, 2])
        holder.withLock { $0 = nil }
    }

    @Test func aHandleThatOutlivesItsFetcherDoesNothing() async throws {
        let loader = ScriptedLoader<Int, String>()
        var fetcher: AsyncFetcher<Int, String>? = try makeFetcher(loader: loader)
        let inbox = Inbox<String>()
        let handle = try #require(fetcher?.fetchAsync(1, completion: inbox.handler))
        await loader.waitForCalls(1)
        fetcher?.shutdown()
        let answer = await inbox.next()
        #expect(throws: CancellationError.self) { try answer?.get() }
        fetcher = nil
        // No fetcher left: the handle does nothing, and the completion is not called again.
        handle.cancel()
        #expect(inbox.count == 1)
    }
}
