import PrefetchTesting
@testable import PrefetchKit

struct Flaky: RetryableError, Equatable {
    var isRetryable: Bool
}

/// Collects completion results so a test can await them in order.
final class Inbox<Value: Sendable>: Sendable {
    let stream: AsyncStream<Result<Value, any Error>>
    private let continuation: AsyncStream<Result<Value, any Error>>.Continuation
    private let received = Locked(0)

    init() { (stream, continuation) = AsyncStream.makeStream() }

    var handler: @Sendable (Result<Value, any Error>) -> Void {
        { result in
            self.received.withLock { $0 += 1 }
            self.continuation.yield(result)
        }
    }

    var count: Int { received.withLock { $0 } }

    func next() async -> Result<Value, any Error>? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

func makeFetcher(
    cap: Int = 6, retry: RetryPolicy = .none, clock: ManualClock = ManualClock(),
    store: (any DataStore<Int, String>)? = nil, loader: ScriptedLoader<Int, String>
) throws -> AsyncFetcher<Int, String> {
    var configuration = FetcherConfiguration()
    configuration.maxConcurrentLoads = cap
    configuration.retry = retry
    return try AsyncFetcher(configuration: configuration, clock: clock, store: store, loader: loader)
}

/// A fetcher that is shut down already, and the ids of the `rejected` (shutdown) events it emits.
func makeShutDownFetcher() throws -> (AsyncFetcher<Int, String>, rejected: Locked<[Int]>) {
    let rejected = Locked<[Int]>([])
    let fetcher = try AsyncFetcher<Int, String>(
        clock: ManualClock(),
        onEvent: { if case .rejected(let id, let error) = $0, error.code == .shutdown { rejected.withLock { $0.append(id) } } },
        load: { "\($0)" })
    fetcher.shutdown()
    return (fetcher, rejected)
}
