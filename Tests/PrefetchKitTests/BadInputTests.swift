import Testing
import PrefetchTesting
@testable import PrefetchKit

/// Bad input gets the documented error or event, naming the value and the rule.
@Suite struct BadInputTests {
    @Test func aNegativeCostIsReportedAndTheValueStillDelivered() async throws {
        // Given a cost function that returns a negative cost
        let failures = Locked<[PrefetchError]>([])
        let fetcher = try AsyncFetcher<Int, String>(
            clock: ManualClock(), cost: { _ in -3 },
            onEvent: { event in
                if case .loadFailed(_, let error as PrefetchError, false) = event { failures.withLock { $0.append(error) } }
            },
            load: { "value \($0)" })
        // When a value loads
        let value = try await fetcher.value(for: 7)
        // Then the consumer gets it, the cache refuses it, and an event names the cost and the rule
        #expect(value == "value 7")
        #expect(fetcher.fetchedData(for: 7) == nil)
        let reported = failures.withLock { $0 }
        #expect(reported.map(\.code) == [.invalidCost])
        #expect(reported.first?.message == "MemoryCache cost function returned -3 for key 7; costs must be 0 or more")
    }

    @Test func aZeroCapIsRefusedAtCreation() {
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = 0
        #expect { try AsyncFetcher<Int, Int>(configuration: configuration) { $0 } } throws: {
            ($0 as? PrefetchError)?.message == "FetcherConfiguration maxConcurrentLoads must be at least 1, got 0"
        }
    }

    @Test func everyCallAfterShutdownIsRefused() async throws {
        let (fetcher, rejected) = try makeShutDownFetcher()
        fetcher.prefetch([1, 2])
        fetcher.fetchAsync(3)
        fetcher.cancelPrefetching([1])   // nothing to withdraw: no event, no crash
        await #expect { try await fetcher.value(for: 4) } throws: {
            ($0 as? PrefetchError)?.message == "AsyncFetcher was shut down; the request for 4 was refused"
        }
        #expect(rejected.withLock { $0 } == [1, 2, 3])
        #expect(fetcher.statistics.loadsStarted == 0 && fetcher.statistics.requests == 0)
    }

    @Test func aFrameTimeThatStepsBackCountsAsThePreviousFramesTime() {
        // A drag planned at t = 5; the next frame says t = 4 (a clock that stepped back)
        let rows = Rows(count: 100, height: 100)
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<900]), target: target)
        controller.update(frame(5, at: 0), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(0...8))
        // No trap: the frame plans as if at t = 5, and later frames go on from there
        controller.update(frame(4, at: 0), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(0...8))
        controller.update(frame(5.1, at: 5_000), geometry: rows)
        #expect(target.requested.keys.sorted() == Array(3...8) + Array(50...52))
    }
}
