import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import Logging
import PrefetchHTTP
import PrefetchKit
import IOTestSupport
import Testing
import PrefetchToolSupport

/// A loopback server that redirects (`/redirect?to=URL`) and echoes the credentials (`/echo`) or
/// the `Priority` header (`/priority`) it was sent, to check what an `HTTPLoader` sends where.
final class EchoServer: Sendable {
    let port: Int
    /// The `Authorization` and `X-Api-Key` values each `/echo` request carried ("-" for none).
    let seen: Locked<[String]>
    private let task: Task<Void, any Error>

    var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, seen: Locked<[String]>, task: Task<Void, any Error>) {
        self.port = port
        self.seen = seen
        self.task = task
    }

    static func start() async throws -> EchoServer {
        let seen = Locked([String]())
        let apiKey = HTTPField.Name("X-Api-Key")!
        let router = Router()
        router.get("echo") { request, _ -> String in
            let line = "\(request.headers[.authorization] ?? "-") \(request.headers[apiKey] ?? "-")"
            seen.withLock { $0.append(line) }
            return line
        }
        router.get("priority") { request, _ -> String in
            request.headers[HTTPField.Name("Priority")!] ?? "-"
        }
        router.get("redirect") { request, _ -> Response in
            let target = request.uri.queryParameters.get("to").map { String($0) } ?? "/"
            return Response(status: .found, headers: [.location: target])
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: quietLogger)
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw HTTPLoaderError(.invalidConfiguration, "the echo server stopped before it listened")
        }
        return EchoServer(port: port, seen: seen, task: task)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// Finding 3 of issue 12: credentials must not follow a redirect to another origin, and an https
/// request must not be redirected to plain http. The rule itself is tested without a server in the
/// root package (`PrefetchHTTPTests`, `RedirectRuleTests`).
@Suite("HTTPLoader redirects", .timeLimit(.minutes(TestTime.minutes(1))))
struct RedirectTests {
    func loader() throws -> HTTPLoader<URL> {
        var configuration = HTTPLoaderConfiguration()
        configuration.headers = ["Authorization": "Bearer s3cret", "X-Api-Key": "k3y"]
        return try HTTPLoader<URL>(configuration: configuration)
    }

    @Test("configured headers go to the origin asked for, and to a redirect within that origin")
    func sameOriginKeepsHeaders() async throws {
        let server = try await EchoServer.start()
        defer { Task { await server.stop() } }
        let loader = try loader()
        // Given a direct request and a redirect to the same scheme, host and port
        let direct = try await loader.load(try HTTPLoader<URL>.url("\(server.baseURL)/echo"))
        let redirected = try await loader.load(try HTTPLoader<URL>.url("\(server.baseURL)/redirect?to=\(server.baseURL)/echo"))
        // Then both carry the configured headers
        #expect(String(decoding: direct, as: UTF8.self) == "Bearer s3cret k3y")
        #expect(String(decoding: redirected, as: UTF8.self) == "Bearer s3cret k3y")
        await server.stop()
    }

    @Test("a redirect to another origin (another port) carries none of the configured headers")
    func crossOriginStripsHeaders() async throws {
        let first = try await EchoServer.start()
        let other = try await EchoServer.start()
        let loader = try loader()
        // When the first server redirects to the other one
        let body = try await loader.load(try HTTPLoader<URL>.url("\(first.baseURL)/redirect?to=\(other.baseURL)/echo"))
        // Then the other origin saw neither the Authorization header nor the other configured header
        #expect(String(decoding: body, as: UTF8.self) == "- -")
        #expect(other.seen.withLock { $0 } == ["- -"])
        await first.stop()
        await other.stop()
    }
}
