import PrefetchTesting
import Testing
@testable import PrefetchKit

/// Prefetch destinations (issue #27): a prefetch to the store loads into the `DataStore` only, a
/// later request for it is a store hit that lands in memory, and a memory interest that joins a
/// store-only load gets memory. Under a memory budget a controller sends what the target's memory
/// cannot hold to the store and promotes it as it comes within the capacity.
@Suite("Destinations")
struct DestinationTests {
    /// A fetcher with a store; `stored` yields each id the fetcher wrote to it.
    func makeStoreFetcher(_ loader: ScriptedLoader<Int, String>, store: InMemoryDataStore<Int, String>, cost: Int = 1)
        throws -> (AsyncFetcher<Int, String>, stored: AsyncStream<Int>, late: AsyncStream<Int>) {
        let (stored, wrote) = AsyncStream.makeStream(of: Int.self)
        let (late, lateResult) = AsyncStream.makeStream(of: Int.self)
        let fetcher = try AsyncFetcher<Int, String>(
            configuration: FetcherConfiguration(maxConcurrentLoads: 2), clock: ManualClock(), store: store, cost: { _ in cost },
            onEvent: { event in
                if case .storeWritten(let id) = event { wrote.yield(id) }
                if case .lateResult(let id) = event { lateResult.yield(id) }
            }, loader: loader)
        return (fetcher, stored, late)
    }

    @Test func aStoreOnlyPrefetchFillsTheStoreNeverTheMemoryCacheAndALaterRequestPromotesIt() async throws {
        let loader = ScriptedLoader<Int, String>()
        let store = InMemoryDataStore<Int, String>()
        let (fetcher, stored, _) = try makeStoreFetcher(loader, store: store, cost: 10)
        var written = stored.makeAsyncIterator()
        // Given a prefetch to the store
        fetcher.prefetch([1], destination: .store)
        await loader.waitForCalls(1)
        #expect(fetcher.statistics.memoryHeld == 0, "no value seen yet: a load in flight counts nothing")
        #expect(loader.succeed(1, with: "one"))
        // Then the value is written to the store and kept out of memory
        #expect(await written.next() == 1)
        #expect(try await store.value(for: 1) == "one")
        #expect(fetcher.fetchedData(for: 1) == nil && fetcher.cachedCount == 0)
        #expect(fetcher.statistics.memoryHeld == 0 && fetcher.statistics.peakMemoryHeld == 0)
        #expect(fetcher.storeOnlyLoads == 1)
        // And a store prefetch again has nothing to do: the store holds it
        fetcher.prefetch([1], destination: .store)
        #expect(fetcher.statistics.loadsStarted == 1 && fetcher.statistics.inFlight == 0)
        // When a cell asks for it: a store hit, no network, and the value lands in memory (the promotion)
        #expect(try await fetcher.value(for: 1) == "one")
        #expect(loader.callCount == 1)
        let stats = fetcher.statistics
        #expect(stats.storeHits == 1 && stats.loadsCompleted == 2)
        #expect(fetcher.fetchedData(for: 1) == "one" && stats.memoryHeld == 10)
        #expect(fetcher.storeOnlyLoads == 1)
    }

    @Test func aMemoryInterestThatJoinsAStoreOnlyLoadGetsTheValueInMemory() async throws {
        let loader = ScriptedLoader<Int, String>()
        let (fetcher, stored, _) = try makeStoreFetcher(loader, store: InMemoryDataStore())
        var written = stored.makeAsyncIterator()
        fetcher.prefetch([1, 2, 3], destination: .store)
        await loader.waitForCalls(2)
        // A visible cell joins 1; a memory prefetch re-requests 2 (the promotion of a running load)
        let cell = Inbox<String>()
        fetcher.fetchAsync(1, completion: cell.handler)
        fetcher.prefetch([2])
        #expect(loader.succeed(1, with: "one") && loader.succeed(2, with: "two"))
        #expect(try await cell.next()?.get() == "one")
        await loader.waitForCalls(3)
        #expect(fetcher.fetchedData(for: 1) == "one")
        // 3 is still store-only
        #expect(loader.succeed(3, with: "three"))
        _ = try await fetcher.value(for: 2)
        #expect(fetcher.fetchedData(for: 2) == "two", "promoted while loading: no store read")
        #expect(fetcher.statistics.storeHits == 0)
        // Every loaded value is written to the store; 3's write comes after its load ended
        while let id = await written.next(), id != 3 {}
        #expect(fetcher.fetchedData(for: 3) == nil && fetcher.storeOnlyLoads == 1)
    }

    @Test func aCancelledStoreOnlyLoadsLateValueStaysOutOfMemoryAndAConsumerWithdrawingLeavesItThere() async throws {
        let loader = ScriptedLoader<Int, String>(ignoresCancellation: true)
        let store = InMemoryDataStore<Int, String>()
        let (fetcher, stored, late) = try makeStoreFetcher(loader, store: store)
        var written = stored.makeAsyncIterator(), lateResults = late.makeAsyncIterator()
        fetcher.prefetch([1], destination: .store)
        await loader.waitForCalls(1)
        // The prefetch is withdrawn while loading; the loader answers anyway
        fetcher.cancelPrefetching([1])
        #expect(fetcher.statistics.loadsCancelled == 1)
        #expect(loader.succeed(1, with: "late"))
        #expect(await lateResults.next() == 1)
        #expect(await written.next() == 1)
        #expect(fetcher.fetchedData(for: 1) == nil, "a late store-only value is not decoded into memory")
        // A consumer that joins a store-only load and leaves before the end leaves it store-only
        fetcher.prefetch([2], destination: .store)
        await loader.waitForCalls(2)
        let handle = fetcher.fetchAsync(2) { _ in }
        handle?.cancel()
        #expect(loader.succeed(2, with: "two"))
        #expect(await written.next() == 2)
        #expect(fetcher.fetchedData(for: 2) == nil && fetcher.storeOnlyLoads == 1)
    }

    @Test func withoutAStoreAStoreDestinationLoadsIntoMemory() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        fetcher.prefetch([1], destination: .store)
        await loader.waitForCalls(1)
        #expect(loader.succeed(1, with: "one"))
        #expect(try await fetcher.value(for: 1) == "one")
        #expect(fetcher.fetchedData(for: 1) == "one" && fetcher.storeOnlyLoads == 0 && !fetcher.hasStore)
    }

    @Test func theFetchersTargetPassesEachRequestsDestinationThrough() async throws {
        let loader = ScriptedLoader<Int, String>()
        let (fetcher, stored, _) = try makeStoreFetcher(loader, store: InMemoryDataStore())
        var written = stored.makeAsyncIterator()
        let target = FetcherPrefetchTarget<Int, Int, String>(fetcher: fetcher, identifier: { $0 })
        #expect(target.acceptsStoreDestination)
        target.updatePrefetching(PrefetchUpdate(requests: [
            PrefetchRequest(item: 1, priority: .prefetch),
            PrefetchRequest(item: 2, priority: .prefetch, destination: .store),
        ]))
        await loader.waitForCalls(2)
        #expect(loader.succeed(2, with: "two") && loader.succeed(1, with: "one"))
        #expect(await written.next() != nil)
        #expect(await written.next() != nil)
        #expect(fetcher.fetchedData(for: 1) == "one" && fetcher.fetchedData(for: 2) == nil)
        let withoutStore = FetcherPrefetchTarget<Int, Int, String>(fetcher: try makeFetcher(loader: loader), identifier: { $0 })
        #expect(!withoutStore.acceptsStoreDestination)
    }

    // MARK: The planner

    /// A target with a store and a capacity that records each item's destination.
    final class StoreTarget: PrefetchTarget {
        var prefetchCapacity: Int?
        var acceptsStoreDestination = true
        var expectedLatency: Duration? { nil }
        var destinations: [Int: FetchDestination] = [:]
        var promoted: [Int] = []
        func updatePrefetching(_ update: PrefetchUpdate<Int>) {
            for item in update.withdrawals { destinations[item] = nil }
            for request in update.requests {
                if destinations[request.item] == .store, request.destination == .memory { promoted.append(request.item) }
                destinations[request.item] = request.destination
            }
        }
        func items(_ destination: FetchDestination) -> [Int] { destinations.filter { $0.value == destination }.keys.sorted() }
    }

    @Test func beyondTheCapacityRequestsGoToTheStoreAndArePromotedAsTheyComeNear() {
        // Rows 100 pt, a viewport of 300 pt: rows 10–12 on screen at 1,000, the policy plans two screens ahead.
        let rows = Rows(count: 100, height: 100)
        let target = StoreTarget()
        target.prefetchCapacity = 5
        let controller = PrefetchController<Int>(policy: BudgetTests.Ahead(), target: target)
        controller.update(frame(0, at: 1_000), geometry: rows)
        #expect(target.items(.memory) == Array(10...14))
        #expect(target.items(.store) == Array(15...18))
        // Three rows on: 13–17 fit memory; 15–17 are promoted, 19–21 go to the store
        controller.update(frame(0.5, at: 1_300), geometry: rows)
        #expect(target.items(.memory) == Array(13...17))
        #expect(target.items(.store) == Array(18...21))
        #expect(target.promoted.sorted() == [15, 16, 17])
        // A target without a store gets nothing beyond its capacity, as before
        target.acceptsStoreDestination = false
        controller.update(frame(1, at: 1_300), geometry: rows)
        #expect(target.items(.memory) == Array(13...17) && target.items(.store).isEmpty)
        // Without a capacity everything goes to memory
        target.acceptsStoreDestination = true
        target.prefetchCapacity = nil
        controller.update(frame(1.5, at: 1_300), geometry: rows)
        #expect(target.items(.memory) == Array(13...21) && target.items(.store).isEmpty)
    }
}
