import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IOTestSupport
import Logging
@testable import PrefetchServer
import Testing

/// Finding 4 of issue 12: the server keeps no per-request state that grows without bound.
@Suite("PrefetchServer stays bounded", .timeLimit(.minutes(TestTime.minutes(2))))
struct ServerMemoryTests {
    static let logger: Logger = {
        var logger = Logger(label: "server-memory-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test("1,500 requests for distinct paths and queries: the event log and the fault planner stay bounded")
    func distinctPathsStayBounded() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 100
        configuration.thumbnailSize = 16
        try await DataServer.withServer(configuration, logger: Self.logger) { server in
            let base = server.baseURL.absoluteString
            // Given 1,500 requests, each for a path or query never asked for before:
            // unknown thumbnails, and pages with an extra query parameter
            let urls = (0..<1_500).map { n in
                URL(string: n % 2 == 0 ? "\(base)/thumb/x\(n)" : "\(base)/items?offset=\(n % 50)&limit=1&n=\(n)")!
            }
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var statuses = 0
                        for url in urls[worker...].enumerated().filter({ $0.offset % 4 == 0 }).map(\.element) {
                            let (_, response) = try await session.data(from: url)
                            statuses += (response as? HTTPURLResponse)?.statusCode ?? 0
                        }
                        return statuses
                    }
                }
                for try await _ in group {}
            }
            // Then every request was counted, but the log keeps only its most recent events
            #expect(server.events.requestCount == 1_500)
            #expect(server.events.events.count <= 1_024, "\(server.events.events.count) events kept")
            // And the fault planner counts attempts only for the pages it served, keyed by what they mean
            #expect(server.faultPlanner.trackedCount <= 50, "\(server.faultPlanner.trackedCount) attempt counters")
        }
    }
}
