import Foundation
import IOTestSupport
import Logging
@testable import PrefetchServer
import Testing

/// An IPv6 host (`::1`, `[::1]`): bound without the brackets, put in URLs with them. Before, the
/// server passed `[::1]` to the bind as it was, and built `http://::1:PORT`, which is no URL.
///
/// The requests go over a raw socket: on Linux, URLSession refuses an IPv6 literal
/// (`http://[::1]:PORT` fails with NSURLErrorBadURL), whatever the server does.
@Suite("PrefetchServer on IPv6 loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct IPv6Tests {
    @Test("hosts in URLs and for the bind", arguments: [
        ("::1", "[::1]", "::1"), ("[::1]", "[::1]", "::1"), ("0:0:0:0:0:0:0:1", "[0:0:0:0:0:0:0:1]", "0:0:0:0:0:0:0:1"),
        ("fe80::1%lo", "[fe80::1%25lo]", "fe80::1%lo"), ("127.0.0.1", "127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost", "localhost"), ("[]", "[]", "[]"),
    ])
    func hosts(host: String, url: String, bind: String) {
        #expect(ServerConfiguration.urlHost(host) == url)
        #expect(ServerConfiguration.bindHost(host) == bind)
    }

    @Test("a server on ::1, given with or without brackets, serves pages whose thumbnail URLs work", arguments: ["::1", "[::1]"])
    func serves(host: String) async throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = 0
        configuration.itemCount = 10
        configuration.thumbnailSize = 500
        var logger = Logger(label: "ipv6-test")
        logger.logLevel = .critical
        try await DataServer.withServer(configuration, logger: logger) { server in
            #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
            let (status, data) = try await get("/items", port: server.port)
            #expect(status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any])
            let items = try #require(json["items"] as? [[String: Any]])
            #expect(items.count == 10)
            let thumbnailText = try #require(items.first?["thumbnailURL"] as? String)
            let thumbnail = try #require(URL(string: thumbnailText))
            #expect(thumbnail.absoluteString == "http://[::1]:\(server.port)/thumb/0")
            #expect(thumbnail.host == "::1" && thumbnail.port == server.port)
            let (thumbStatus, bytes) = try await get(thumbnail.path, port: server.port)
            #expect(thumbStatus == 200)
            #expect(bytes.count == 500)
        }
    }

    @Test("prefetch-server --host ::1 prints a listening URL that works")
    func command() async throws {
        let process = Process()
        process.executableURL = BuiltProducts.executable("prefetch-server")
        process.arguments = ["--host", "::1", "--port", "0", "--items", "10"]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let lines = await OutputReader(stdout.fileHandleForReading).waitForLines(timeout: TestTime.scaled(.seconds(20))) { !$0.isEmpty }
        let line = try #require(lines.first, "prefetch-server printed nothing")
        let prefix = "listening on "
        try #require(line.hasPrefix(prefix + "http://[::1]:"), "\(line)")
        let base = try #require(URL(string: String(line.dropFirst(prefix.count))), "\(line)")
        #expect(base.host == "::1")
        let (status, data) = try await get("/health", port: try #require(base.port))
        #expect(status == 200)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
    }

    /// GET `path` from `[::1]:port`, over a raw socket.
    private func get(_ path: String, port: Int) async throws -> (status: Int, body: [UInt8]) {
        try await onBlockingThread {
            let connection = try RawConnection(port: port, host: "::1")
            try connection.send("GET \(path) HTTP/1.1\r\nHost: [::1]:\(port)\r\nConnection: close\r\n\r\n")
            return try connection.readResponse(timeout: TestTime.scaled(.seconds(10)))
        }
    }
}
