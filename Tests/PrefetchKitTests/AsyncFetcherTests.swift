import Testing
import PrefetchTesting
@testable import PrefetchKit

@Suite struct AsyncFetcherTests {
    @Test func coalescesConcurrentRequestsIntoOneLoad() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        // Given a prefetch and three awaiting tasks for one id
        fetcher.prefetch([1])
        async let a = fetcher.value(for: 1)
        async let b = fetcher.value(for: 1)
        let inbox = Inbox<String>()
        fetcher.fetchAsync(1, completion: inbox.handler)
        await loader.waitForCalls(1)
        // When the single load succeeds
        #expect(loader.succeed(1, with: "one"))
        // Then everyone gets the value and the loader ran once
        let values = try await [a, b]
        #expect(values == ["one", "one"])
        #expect(try await inbox.next()?.get() == "one")
        #expect(loader.callCount == 1)
        #expect(fetcher.fetchedData(for: 1) == "one")
        let stats = fetcher.statistics
        #expect(stats.loadsStarted == 1 && stats.loadsCompleted == 1)
        #expect(stats.coalescedRequests >= 2)
    }

    @Test func cancellingAPrefetchNeverStrandsACellThatAttachedAHandler() async throws {
        // Apple's sample leaves this cell blank for good; ours delivers.
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        // Given a prefetch in flight
        fetcher.fetchAsync(7)
        await loader.waitForCalls(1)
        // and a cell that attached its completion to it (the data is not there yet)
        #expect(fetcher.fetchedData(for: 7) == nil)
        let cell = Inbox<String>()
        fetcher.fetchAsync(7, completion: cell.handler)
        // When the prefetch is cancelled (the item left the prefetch region)
        fetcher.cancelFetch(7)
        // Then the load goes on and the cell gets its data
        #expect(loader.cancelledIDs.isEmpty)
        loader.succeed(7, with: "seven")
        #expect(try await cell.next()?.get() == "seven")
        #expect(cell.count == 1)
    }

    @Test func cellForItemAtSeesLoadedInFlightAndNeverRequested() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        // Loaded: prefetched and finished before display
        fetcher.prefetch([1, 2])
        await loader.waitForCalls(2)
        loader.succeed(1, with: "a")
        _ = try await fetcher.value(for: 1)
        #expect(fetcher.fetchedData(for: 1) == "a")
        // In flight: no data yet, the cell's completion fires on arrival
        #expect(fetcher.fetchedData(for: 2) == nil)
        let inFlight = Inbox<String>()
        fetcher.fetchAsync(2, completion: inFlight.handler)
        #expect(loader.callCount == 2)
        loader.succeed(2, with: "b")
        #expect(try await inFlight.next()?.get() == "b")
        // Never requested (a jump): cellForItemAt's request starts the load
        #expect(fetcher.fetchedData(for: 3) == nil)
        let jumped = Inbox<String>()
        fetcher.fetchAsync(3, completion: jumped.handler)
        await loader.waitForCalls(3)
        loader.succeed(3, with: "c")
        #expect(try await jumped.next()?.get() == "c")
        // A cache hit answers at once, without a load
        let hit = Inbox<String>()
        #expect(fetcher.fetchAsync(3, completion: hit.handler) == nil)
        #expect(try await hit.next()?.get() == "c")
        #expect(loader.callCount == 3)
    }

    @Test func cancellingTheAwaitingTaskThrowsAndCancelsAnUnwantedLoad() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        let task = Task { try await fetcher.value(for: 5) }
        await loader.waitForCalls(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        await loader.waitForCancellations(1)
        #expect(loader.cancelledIDs == [5])
        #expect(fetcher.statistics.loadsCancelled == 1)
        #expect(fetcher.statistics.inFlight == 0)
    }

    @Test func aTaskCancelledBeforeItAsksGetsCancellationError() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fetcher.value(for: 1)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(fetcher.statistics.inFlight == 0)
    }

    @Test func aLoaderThatIgnoresCancellationCannotHoldASlot() async throws {
        let loader = ScriptedLoader<Int, String>(ignoresCancellation: true)
        let (late, lateSeen) = AsyncStream.makeStream(of: Int.self)
        let fetcher = try AsyncFetcher<Int, String>(
            configuration: FetcherConfiguration(maxConcurrentLoads: 1), clock: ManualClock(),
            onEvent: { if case .lateResult(let id) = $0 { lateSeen.yield(id) } }, loader: loader)
        fetcher.prefetch([1, 2])
        await loader.waitForCalls(1)
        #expect(loader.pendingIDs == [1])
        // When 1 loses its last interest, its slot goes to 2 at once, though 1's loader keeps running
        fetcher.cancelPrefetching([1])
        await loader.waitForCalls(2)
        #expect(loader.pendingIDs == [1, 2])
        #expect(fetcher.statistics.inFlight == 1)
        // 1's late value is kept in the cache, counted once
        loader.succeed(1, with: "late")
        var lateIDs = late.makeAsyncIterator()
        #expect(await lateIDs.next() == 1)
        #expect(fetcher.fetchedData(for: 1) == "late")
        #expect(fetcher.statistics.lateResults == 1)
        #expect(fetcher.statistics.loadsCompleted == 0)
        loader.succeed(2, with: "two")
        #expect(try await fetcher.value(for: 2) == "two")
    }

    @Test func aVisibleRequestJumpsAheadOfQueuedPrefetches() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 1, loader: loader)
        fetcher.prefetch([0, 1, 2, 3])
        await loader.waitForCalls(1)
        let visible = Inbox<String>()
        fetcher.fetchAsync(3, completion: visible.handler)   // cellForItemAt: priority .visible
        loader.succeed(0, with: "zero")
        await loader.waitForCalls(2)
        #expect(loader.calledIDs == [0, 3])
        loader.succeed(3, with: "three")
        #expect(try await visible.next()?.get() == "three")
    }

    @Test func everyConsumerHearsExactlyOnce() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        let kept = Inbox<String>(), withdrawn = Inbox<String>()
        fetcher.fetchAsync(1, completion: kept.handler)
        let handle = try #require(fetcher.fetchAsync(1, completion: withdrawn.handler))
        await loader.waitForCalls(1)
        handle.cancel()
        handle.cancel()
        loader.succeed(1, with: "v")
        #expect(try await kept.next()?.get() == "v")
        let result = await withdrawn.next()
        #expect(throws: CancellationError.self) { try result?.get() }
        #expect(kept.count == 1 && withdrawn.count == 1)
    }

    @Test func failuresAreDeliveredAndNotCached() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        let first = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(1)
        loader.fail(1, with: Flaky(isRetryable: false))
        await #expect(throws: Flaky.self) { try await first.value }
        #expect(fetcher.fetchedData(for: 1) == nil)
        #expect(fetcher.statistics.loadsFailed == 1)
        let second = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(2)
        loader.succeed(1, with: "ok")
        #expect(try await second.value == "ok")
    }

    @Test func retriesRetryableErrorsAfterABackoffOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, String>()
        let retry = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(10), jitter: 0)
        let fetcher = try makeFetcher(retry: retry, clock: clock, loader: loader)
        let task = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(1)
        loader.fail(1, with: Flaky(isRetryable: true))
        // The fetcher waits 1 s on the manual clock before attempt 2
        await clock.waitForSleepers(1)
        #expect(loader.callCount == 1)
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        await loader.waitForCalls(2)
        loader.fail(1, with: Flaky(isRetryable: true))
        // ...then 2 s before attempt 3
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await loader.waitForCalls(3)
        loader.succeed(1, with: "third time")
        #expect(try await task.value == "third time")
        #expect(fetcher.statistics.retries == 2)
        #expect(fetcher.statistics.loadsStarted == 1)
    }

    @Test func nonRetryableErrorsAndExhaustedAttemptsFail() async throws {
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, String>()
        let retry = RetryPolicy(maxAttempts: 2, initialDelay: .seconds(1), jitter: 0)
        let fetcher = try makeFetcher(retry: retry, clock: clock, loader: loader)
        let notRetryable = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(1)
        loader.fail(1, with: Flaky(isRetryable: false))
        await #expect(throws: Flaky(isRetryable: false)) { try await notRetryable.value }
        let exhausted = Task { try await fetcher.value(for: 2) }
        await loader.waitForCalls(2)
        loader.fail(2, with: Flaky(isRetryable: true))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await loader.waitForCalls(3)
        loader.fail(2, with: Flaky(isRetryable: true))
        await #expect(throws: Flaky(isRetryable: true)) { try await exhausted.value }
        #expect(fetcher.statistics.retries == 1)
    }

    @Test func retryJitterStaysWithinItsShare() {
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(3), jitter: 0.5)
        #expect(policy.delay(afterAttempt: 1, random: 0) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, random: 0) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, random: 0) == .seconds(3))   // capped
        #expect(policy.delay(afterAttempt: 2, random: 1) == .seconds(1))   // half taken off
    }

    @Test func theDataStoreAnswersBeforeTheLoaderAndIsFilledAfterIt() async throws {
        let store = InMemoryDataStore<Int, String>([1: "from disk"])
        let loader = ScriptedLoader<Int, String>()
        let (writes, wrote) = AsyncStream.makeStream(of: Int.self)
        let fetcher = try AsyncFetcher<Int, String>(
            clock: ManualClock(), store: store,
            onEvent: { if case .storeWritten(let id) = $0 { wrote.yield(id) } }, loader: loader)
        #expect(try await fetcher.value(for: 1) == "from disk")
        #expect(loader.callCount == 0)
        let task = Task { try await fetcher.value(for: 2) }
        await loader.waitForCalls(1)
        loader.succeed(2, with: "from network")
        #expect(try await task.value == "from network")
        // The write happens after delivery; the event says when.
        var written = writes.makeAsyncIterator()
        #expect(await written.next() == 2)
        #expect(try await store.value(for: 2) == "from network")
        #expect(await store.writes == 1)
        #expect(fetcher.statistics.storeHits == 1)
    }

    @Test func shutdownCancelsEverythingAndRefusesLaterCalls() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(cap: 1, loader: loader)
        let running = Task { try await fetcher.value(for: 1) }
        let inbox = Inbox<String>()
        await loader.waitForCalls(1)
        fetcher.fetchAsync(2, completion: inbox.handler)  // queued behind 1
        fetcher.shutdown()
        await #expect(throws: CancellationError.self) { try await running.value }
        let queued = await inbox.next()
        #expect(throws: CancellationError.self) { try queued?.get() }
        await #expect { try await fetcher.value(for: 3) } throws: {
            ($0 as? PrefetchError)?.code == .shutdown
        }
        let late = Inbox<String>()
        fetcher.fetchAsync(4, completion: late.handler)
        let refused = await late.next()
        #expect { try refused?.get() } throws: { ($0 as? PrefetchError)?.code == .shutdown }
        fetcher.shutdown()  // harmless twice
    }

    @Test func configurationOutOfRangeFailsAtCreationNamingTheValue() {
        #expect { try FetcherConfiguration(maxConcurrentLoads: 0) } throws: {
            ($0 as? PrefetchError)?.message == "FetcherConfiguration maxConcurrentLoads must be at least 1, got 0"
        }
        #expect { try FetcherConfiguration(cacheCostLimit: -5) } throws: {
            ($0 as? PrefetchError)?.message.contains("cacheCostLimit must be 0 or more, got -5") == true
        }
        #expect { try FetcherConfiguration(retry: RetryPolicy(maxAttempts: 0)) } throws: {
            ($0 as? PrefetchError)?.message.contains("maxAttempts must be at least 1, got 0") == true
        }
        var bad = FetcherConfiguration()
        bad.latencySamples = 0
        #expect(throws: PrefetchError.self) { try AsyncFetcher<Int, Int>(configuration: bad) { $0 } }
    }

    @Test func eventsAndLatencyAreReported() async throws {
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, String>()
        let events = Locked<[String]>([])
        let fetcher = try AsyncFetcher<Int, String>(clock: clock, onEvent: { event in
            let name: String
            switch event {
            case .requested(_, let coalesced): name = coalesced ? "coalesced" : "requested"
            case .cacheHit: name = "hit"
            case .loadStarted: name = "started"
            case .loadCompleted: name = "completed"
            default: name = "other"
            }
            events.withLock { $0.append(name) }
        }, loader: loader)
        let task = Task { try await fetcher.value(for: 1) }
        await loader.waitForCalls(1)
        clock.advance(by: .milliseconds(150))
        loader.succeed(1, with: "x")
        _ = try await task.value
        _ = try await fetcher.value(for: 1)
        #expect(events.withLock { $0 } == ["requested", "started", "completed", "hit"])
        #expect(fetcher.statistics.latency.median == .milliseconds(150))
        // One load says little about the next: the estimate waits for five.
        #expect(fetcher.expectedLatency == nil)
        for id in 2...5 {
            let next = Task { try await fetcher.value(for: id) }
            await loader.waitForCalls(id)
            clock.advance(by: .milliseconds(100 * id))
            loader.succeed(id, with: "v\(id)")
            _ = try await next.value
        }
        // Latencies 150, 200, 300, 400, 500 ms: the 90th percentile is the largest.
        #expect(fetcher.expectedLatency == .milliseconds(500))
    }
}
