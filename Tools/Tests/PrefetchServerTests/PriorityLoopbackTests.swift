import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IOTestSupport
import Logging
import PrefetchServer
import Testing

/// RFC 9218's `Priority` over loopback: a background load (`u=5`) that started first and a visible
/// cell's load (`u=1`) on one shared link, with priority honoured and ignored, and with both held
/// to a per-response cap far below the link.
@Suite("PrefetchServer priority over loopback", .serialized, .timeLimit(.minutes(TestTime.minutes(1))))
struct PriorityLoopbackTests {
    /// 400 KB/s shared (slower under a scaled build). The background load asks for half of a 1 MB
    /// thumbnail, the visible one for all of it: 1.25 s and 2.5 s of the link alone. The visible
    /// load starts about 0.2 s after the background one (URLSession's start on Linux), which
    /// narrows the first test's margin by that much; these sizes leave it above 1 s.
    static let rate = Int(400_000 / TestTime.scale)
    static let size = 1_000_000

    /// Which load ended first, and when each ended (seconds after the background load began).
    struct Outcome {
        var first: String
        var seconds: [String: Double]
    }

    /// Starts the background load (`backgroundBytes` of a thumbnail), then the visible one
    /// (`visibleBytes`) as soon as the server has answered the first's head, and returns the order
    /// in which their bodies arrived whole. `cap` is the per-response `--bandwidth`, if any.
    func race(
        honoursPriority: Bool, cap: Int? = nil, backgroundBytes: Int = size / 2, visibleBytes: Int = size
    ) async throws -> Outcome {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 10
        configuration.thumbnailSize = Self.size
        configuration.sharedBandwidth = Self.rate
        configuration.honoursPriority = honoursPriority
        configuration.faults.bandwidth = cap
        var logger = Logger(label: "server-priority-test")
        logger.logLevel = .critical
        return try await DataServer.withServer(configuration, logger: logger) { server in
            let clock = ContinuousClock()
            let start = clock.now
            func load(_ id: Int, priority: String, range: String?) async throws -> (String, Int, Double) {
                var request = URLRequest(url: server.baseURL.appendingPathComponent("thumb/\(id)"))
                request.setValue(priority, forHTTPHeaderField: "Priority")
                request.setValue(range, forHTTPHeaderField: "Range")
                let (data, _) = try await URLSession.shared.data(for: request)
                return (priority, data.count, (clock.now - start) / .seconds(1))
            }
            let ended = try await withThrowingTaskGroup(of: (String, Int, Double).self) { group in
                group.addTask { try await load(1, priority: "u=5", range: "bytes=0-\(backgroundBytes - 1)") }
                await server.events.wait(for: { $0 == .responded(path: "/thumb/1", status: 206) })
                group.addTask {
                    try await load(2, priority: "u=1", range: visibleBytes < Self.size ? "bytes=0-\(visibleBytes - 1)" : nil)
                }
                return try await group.reduce(into: [(String, Int, Double)]()) { $0.append($1) }
            }
            #expect(Set(ended.map { "\($0.0) \($0.1)" }) == ["u=5 \(backgroundBytes)", "u=1 \(visibleBytes)"])
            let first = try #require(ended.min { $0.2 < $1.2 })
            return Outcome(first: first.0, seconds: Dictionary(uniqueKeysWithValues: ended.map { ($0.0, $0.2) }))
        }
    }

    @Test("honoured: the visible cell's load, started second and twice as large, arrives first")
    func visibleFirst() async throws {
        // The visible body has the link from its first chunk: it ends about 2.5 s after it
        // starts, while the background one, paused meanwhile, ends after about 3.75 s (1.25 s of
        // its own, 2.5 s waiting).
        // Sharing the link alike, the background body would end first (see below).
        let outcome = try await race(honoursPriority: true)
        #expect(outcome.first == "u=1", "ended after \(outcome.seconds)")
        print("measured: u=1 (\(Self.size) bytes, started second) and u=5 (\(Self.size / 2) bytes) over \(Self.rate) B/s, priority honoured, ended after \(outcome.seconds)")
    }

    @Test("ignored: the two share the link, and the smaller background load, started first, arrives first")
    func sharedAlike() async throws {
        // Each gets half the link: the background body ends after about 2.5 s, less the time it
        // had the link alone; the visible one after about 3.75 s.
        let outcome = try await race(honoursPriority: false)
        #expect(outcome.first == "u=5", "ended after \(outcome.seconds)")
        print("measured: u=1 (\(Self.size) bytes, started second) and u=5 (\(Self.size / 2) bytes) over \(Self.rate) B/s, priority ignored, ended after \(outcome.seconds)")
    }

    @Test("honoured, work-conserving: bodies held to their own cap leave the link idle, and the background one uses it meanwhile")
    func cappedVisible() async throws {
        // Each body is held to a tenth of the link (`--bandwidth`, which applies to every
        // response), so the visible one leaves the link idle most of the time. The background
        // body (60 KB, 1.5 s at its cap) goes on in those gaps and ends long before the visible
        // one (160 KB, 4 s). A rule that held it back while the visible body was registered
        // would end it after the visible one, about 5.5 s in.
        let cap = Self.rate / 10
        let outcome = try await race(honoursPriority: true, cap: cap, backgroundBytes: 60_000, visibleBytes: 160_000)
        #expect(outcome.first == "u=5", "ended after \(outcome.seconds)")
        let background = try #require(outcome.seconds["u=5"]), visible = try #require(outcome.seconds["u=1"])
        #expect(background < 0.75 * visible, "ended after \(outcome.seconds)")
        print("measured: u=1 (160000 bytes, started second) and u=5 (60000 bytes), each capped to \(cap) B/s, over \(Self.rate) B/s, priority honoured, ended after \(outcome.seconds)")
    }
}
