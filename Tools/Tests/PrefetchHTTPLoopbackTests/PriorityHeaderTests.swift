import Foundation
import Hummingbird
import PrefetchHTTP
import PrefetchKit
import PrefetchTesting
import IOTestSupport
import Testing

/// What `HTTPLoader` tells the server of a load's urgency: the `Priority` header of RFC 9218,
/// from the priority the fetcher runs the load at.
@Suite("HTTPLoader priority signals", .timeLimit(.minutes(TestTime.minutes(1))))
struct PriorityHeaderTests {
    func fetcher(_ configure: (inout HTTPLoaderConfiguration) -> Void = { _ in }) throws -> AsyncFetcher<URL, Data> {
        var configuration = HTTPLoaderConfiguration()
        configure(&configuration)
        return try AsyncFetcher(clock: ManualClock(), loader: try HTTPLoader<URL>(configuration: configuration))
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test("a visible cell's load asks for urgency 1, a prefetch for 3, a load outside a fetcher says nothing")
    func urgencyFollowsTheFetchPriority() async throws {
        let server = try await EchoServer.start()
        let fetcher = try fetcher()
        let visible = try await fetcher.value(for: try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=1"))
        let prefetch = try await fetcher.value(for: try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=2"), priority: .prefetch)
        let background = try await fetcher.value(for: try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=3"), priority: .background)
        let bare = try await HTTPLoader<URL>().load(try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=4"))
        #expect([text(visible), text(prefetch), text(background), text(bare)] == ["u=1", "u=3", "u=5", "-"])
        await server.stop()
    }

    @Test("with sendsPriority off nothing is sent, and a Priority in the configured headers is sent as given")
    func theAppDecides() async throws {
        let server = try await EchoServer.start()
        let silent = try fetcher { $0.sendsPriority = false }
        let own = try fetcher { $0.headers = ["Priority": "u=0, i"] }
        let off = try await silent.value(for: try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=5"))
        let given = try await own.value(for: try HTTPLoader<URL>.url("\(server.baseURL)/priority?n=6"))
        #expect(text(off) == "-")
        #expect(text(given) == "u=0, i")
        await server.stop()
    }

    @Test("a retry asks with the load's priority at that moment: a prefetch that came on screen before it sends u=1")
    func retryFollowsTheLivePriority() async throws {
        let body = Data(repeating: 7, count: 1_000)
        try await ScriptedBodyServer.with(body: body, answer: { index, _ in
            index == 0 ? .init(status: .serviceUnavailable, bytes: 0..<0) : .whole(body.count)
        }) { base, server in
            let url = base.appendingPathComponent("thumb")
            // The fetcher waits between attempts on a manual clock; the loader's timers use real time.
            let clock = ManualClock()
            var configuration = FetcherConfiguration()
            configuration.retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(100), jitter: 0)
            let fetcher = try AsyncFetcher(configuration: configuration, clock: clock,
                                           loader: try HTTPLoader<URL>(configuration: .scaledForTests))
            fetcher.prefetch([url])
            await clock.waitForSleepers(1)   // the first attempt got its 503; the retry waits
            // The cell comes on screen: a visible consumer joins the load before the retry.
            let (results, continuation) = AsyncStream<Result<Data, any Error>>.makeStream()
            fetcher.fetchAsync(url, priority: .visible) { result in
                continuation.yield(result)
                continuation.finish()
            }
            clock.advance(by: .milliseconds(100))
            var iterator = results.makeAsyncIterator()
            #expect(try await iterator.next()?.get() == body)
            #expect(server.requests.map(\.priority) == ["u=3", "u=1"])
            fetcher.shutdown()
        }
    }
}
