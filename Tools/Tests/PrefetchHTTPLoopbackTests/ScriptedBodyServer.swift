import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PrefetchToolSupport

/// A loopback server of one body (at any path) whose every answer the test writes, for the
/// cases the data server never produces on its own: a server that ignores ranges, answers 416,
/// sends a `Content-Range` that does not fit, names no validator, or drops a body half-way.
///
/// A body may stop after some bytes and wait for ``Gate`` (opened when the server stops), so a
/// test can cancel a load at an exact byte count; the server records each request's path,
/// `Range`, `If-Range` and `Priority`.
final class ScriptedBodyServer: Sendable {
    /// What one request got.
    struct Answer: Sendable {
        var status: HTTPResponse.Status = .ok
        var headers: HTTPFields = [:]
        /// The bytes of the body sent.
        var bytes: Range<Int>
        /// Send this many bytes, then wait for the gate (the test cancels meanwhile).
        var pauseAfter: Int?
        /// Send this many bytes, then close the connection.
        var dropAfter: Int?
    }

    /// One request as the server saw it.
    struct Request: Sendable, Equatable {
        var path: String
        var range: String?
        var ifRange: String?
        var priority: String?
    }

    /// Opens once; everything waiting on it goes on.
    final class Gate: Sendable {
        private let state = Locked((open: false, waiters: [CheckedContinuation<Void, Never>]()))

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let open = state.withLock { s -> Bool in
                    if !s.open { s.waiters.append(continuation) }
                    return s.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.open = true
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    struct Dropped: Error {}

    let body: Data
    let gate = Gate()
    private let recorded = Locked([Request]())

    private init(body: Data) {
        self.body = body
    }

    /// The requests so far, oldest first.
    var requests: [Request] { recorded.withLock { $0 } }

    /// Runs a server of `body` on 127.0.0.1 whose `n`-th request (0 first) gets `answer(n, request)`,
    /// calls `test` with its base URL, and stops it (opening the gate) however `test` ends.
    static func with<T: Sendable>(
        body: Data,
        answer: @escaping @Sendable (Int, Request) -> Answer,
        _ test: (URL, ScriptedBodyServer) async throws -> T
    ) async throws -> T {
        let server = ScriptedBodyServer(body: body)
        let router = Router()
        router.get(":name") { request, _ -> Response in
            let seen = Request(path: request.uri.path, range: request.headers[.range], ifRange: request.headers[.ifRange],
                               priority: request.headers[HTTPField.Name("Priority")!])
            let index = server.recorded.withLock { r -> Int in
                r.append(seen)
                return r.count - 1
            }
            return server.response(answer(index, seen))
        }
        var logger = Logger(label: "scripted-body-server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        func stop() async {
            server.gate.open()
            task.cancel()
            _ = try? await task.value
        }
        guard let port = await iterator.next() else {
            await stop()
            throw Dropped()
        }
        do {
            let result = try await test(URL(string: "http://127.0.0.1:\(port)")!, server)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    private func response(_ answer: Answer) -> Response {
        let slice = ByteBuffer(bytes: body[answer.bytes])
        let gate = gate
        return Response(status: answer.status, headers: answer.headers,
                        body: ResponseBody(contentLength: slice.readableBytes) { writer in
            let stop = [answer.pauseAfter, answer.dropAfter].compactMap { $0 }.min() ?? slice.readableBytes
            try await writer.write(slice.getSlice(at: slice.readerIndex, length: stop)!)
            if answer.dropAfter != nil { throw Dropped() }
            if answer.pauseAfter != nil { await gate.wait() }
            try await writer.write(slice.getSlice(at: slice.readerIndex + stop, length: slice.readableBytes - stop)!)
            try await writer.finish(nil)
        })
    }
}

extension ScriptedBodyServer.Answer {
    /// The whole body with `headers`, stopping after `pauseAfter` bytes when given.
    static func whole(_ count: Int, headers: HTTPFields = [:], pauseAfter: Int? = nil) -> Self {
        Self(headers: headers, bytes: 0..<count, pauseAfter: pauseAfter)
    }

    /// The field that carries a validator.
    enum ValidatorField: Sendable { case eTag, lastModified }

    /// What a server that honours ranges sends for `request` of a body of `count` bytes whose
    /// validator is `validator` (sent as `field`): a 206 from the asked first byte, when the range
    /// is `bytes=N-` and `If-Range` is the validator, else the whole body.
    static func honouring(_ request: ScriptedBodyServer.Request, count: Int, field: ValidatorField, validator: String,
                          dropAfter: Int? = nil) -> Self {
        var headers: HTTPFields = [.acceptRanges: "bytes"]
        switch field {
        case .eTag: headers[.eTag] = validator
        case .lastModified: headers[.lastModified] = validator
        }
        guard let range = request.range, range.hasPrefix("bytes="), range.hasSuffix("-"), request.ifRange == validator,
              let first = Int(range.dropFirst(6).dropLast()), first < count else { return .whole(count, headers: headers) }
        headers[.contentRange] = "bytes \(first)-\(count - 1)/\(count)"
        return Self(status: .partialContent, headers: headers, bytes: first..<count, dropAfter: dropAfter)
    }
}
