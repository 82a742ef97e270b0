import PrefetchKit
import PrefetchTesting
import Testing

/// `FetchLoadContext.livePriority` follows a running load's priority, and `FetchPriority.urgency`
/// maps the levels onto HTTP's urgencies.
@Suite("Live load priority")
struct LivePriorityTests {
    /// Keeps each load's reader of its live priority, then waits for the test's answer.
    struct ReaderKeepingLoader: DataLoader {
        let inner = ScriptedLoader<Int, Int>()
        let readers = Locked<[Int: @Sendable () -> FetchPriority?]>([:])
        func load(_ id: Int) async throws -> Int {
            let reader = FetchLoadContext.livePriority
            readers.withLock { $0[id] = reader }
            return try await inner.load(id)
        }
    }

    @Test func theReaderFollowsTheLoadWhileItRuns() async throws {
        let loader = ReaderKeepingLoader()
        let fetcher = try AsyncFetcher(clock: ManualClock(), loader: loader)
        #expect(FetchLoadContext.livePriority == nil)
        fetcher.prefetch([7], priority: FetchPriority(level: .prefetch, order: 2))
        await loader.inner.waitForCalls(1)
        let reader = try #require(loader.readers.withLock { $0[7] })
        #expect(reader() == FetchPriority(level: .prefetch, order: 2))
        // The cell comes on screen: the running load is now a visible one.
        fetcher.prefetch([7], priority: .visible)
        #expect(reader() == .visible)
        // A fling carries the row away: the load sinks with it.
        fetcher.prefetch([7], priority: .background)
        #expect(reader()?.urgency == 5)
        // Nothing holds it any more: the reader says so.
        fetcher.cancelPrefetching([7])
        #expect(reader() == nil)
    }

    @Test func urgencyFollowsTheLevels() {
        #expect(FetchPriority(level: .visible, order: 4).urgency == 1)
        #expect(FetchPriority(level: FetchPriority.Level(rawValue: 500)).urgency == 1)
        #expect(FetchPriority.prefetch.urgency == 3)
        #expect(FetchPriority(level: FetchPriority.Level(rawValue: 150)).urgency == 3)
        #expect(FetchPriority(level: .speculative).urgency == 4)
        #expect(FetchPriority.background.urgency == 5)
        #expect(FetchPriority(level: FetchPriority.Level(rawValue: -10)).urgency == 5)
    }
}
