import Foundation
import PrefetchToolSupport
import IOTestSupport
import Logging
@testable import PrefetchServer
import PrefetchTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The in-flight count of the event log balances however a request ends. Before, a response that
/// Hummingbird dropped without running its body closure (a head it could not write because the
/// client had gone during the injected latency) was never counted out, so the count, and every
/// later ``ServerEventLog/peakInFlight``, stayed one too high for good, and its `responded` event
/// was recorded all the same.
@Suite("PrefetchServer in-flight count", .timeLimit(.minutes(TestTime.minutes(1))))
struct InFlightTests {
    @Test("a request is counted out exactly once: by leave(), or when released unsent, never twice")
    func countedOutOnce() {
        let events = ServerEventLog()
        do {
            let request = InFlightRequest(events)
            #expect(events.inFlight == 1)
            request.leave()
            request.leave()
            #expect(events.inFlight == 0)
        }
        #expect(events.inFlight == 0, "released after leave(): counted out again")
        // A body closure that holds the request and is dropped without running, as Hummingbird
        // drops the body of a response whose head it could not write.
        var body: (@Sendable () -> Void)? = { [request = InFlightRequest(events)] in request.leave() }
        #expect(events.inFlight == 1)
        withExtendedLifetime(body) { #expect(events.peakInFlight == 1) }
        body = nil
        #expect(events.inFlight == 0)
    }

    /// The server's end is watched through `/proc` (the only way to know, without a hook in the
    /// server, that it has closed its end before the latency ends), so this runs where there is one.
    @Test("a client that resets its connection during the injected latency is counted out once the latency ends, and no response is recorded",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp"), "needs /proc/net/tcp and /proc/self/fd"))
    func clientGoneDuringLatency() async throws {
        let clock = ManualClock()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 10
        configuration.thumbnailSize = 700
        configuration.faults.latency = try LatencyModel(.fixed(.seconds(1)))
        var logger = Logger(label: "in-flight-test")
        logger.logLevel = .critical
        let server = try await DataServer.start(configuration, logger: logger, clock: clock)
        // Given a request that waits out its injected latency on the manual clock
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /thumb/2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await clock.waitForSleepers(1)
        #expect(server.events.inFlight == 1)
        let socket = try #require(ServerSocket(port: server.port, peerPort: connection.localPort()), "no server socket in /proc/net/tcp")
        // When its client resets the connection, and the server has closed its end
        connection.resetOnClose()
        let resetDeadline = ContinuousClock.now + TestTime.scaled(.seconds(10))
        _ = consume connection
        while socket.isOpen(), ContinuousClock.now < resetDeadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(!socket.isOpen(), "the server kept its end of the reset connection open")
        // Then, the latency over, the head cannot be written, and the request is counted out all the same
        clock.advance(by: .seconds(1))
        let deadline = ContinuousClock.now + TestTime.scaled(.seconds(5))
        while server.events.inFlight != 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.events.inFlight == 0, "the request whose head could not be written is still counted in flight")
        #expect(!server.events.events.contains { if case .responded = $0 { true } else { false } },
                "a response was recorded for a head that was never sent: \(server.events.events)")
        await server.stop()
    }
}

extension RawConnection {
    /// The connection's own port.
    func localPort() -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Makes the close (when the connection is released) a reset (RST) rather than a FIN.
    func resetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}

/// The server's end of a loopback connection in this process, found by its socket's inode.
struct ServerSocket {
    let inode: String

    /// The socket on 127.0.0.1:`port` connected to 127.0.0.1:`peerPort`, from `/proc/net/tcp`.
    init?(port: Int, peerPort: Int) {
        let local = String(format: "0100007F:%04X", port), remote = String(format: "0100007F:%04X", peerPort)
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        guard let row = table.split(separator: "\n").map({ $0.split(separator: " ") })
                  .first(where: { $0.count > 9 && $0[1] == local && $0[2] == remote }) else { return nil }
        inode = String(row[9])
    }

    /// Whether a descriptor of this process still refers to the socket.
    func isOpen() -> Bool {
        let target = "socket:[\(inode)]"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == target }
    }
}
