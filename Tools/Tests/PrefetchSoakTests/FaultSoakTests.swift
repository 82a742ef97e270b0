import Foundation
import IOTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The fault soak (issue 12): `soak-client` scrolls a headless view for 60 s of real time through
/// PagedFeed → AsyncFetcher → DiskCache → HTTPLoader against a `prefetch-server` child on
/// 127.0.0.1 that injects latency spikes, 503s, resets and slow bodies and is killed and restarted
/// half-way. Both run in processes of their own, so their memory and descriptors are measured alone.
///
/// Real I/O in real time, bounded: 60 s of scrolling, at most 30 s to settle and 30 s to recover
/// failed cells; the whole run is killed after a deadline (scaled by `PREFETCH_TEST_TIME_SCALE`).
@Suite("Fault soak", .serialized, .timeLimit(.minutes(TestTime.minutes(4))))
struct FaultSoakTests {
    /// Ceilings, well above what was measured (see the README's Security section), far below a leak.
    static let clientRSSCeilingMiB = 400.0 * TestTime.scale.squareRoot()
    static let clientRSSGrowthCeilingMiB = 120.0
    static let serverRSSCeilingMiB = 250.0 * TestTime.scale.squareRoot()
    static let fdCeiling = 200

    @Test("60 s of scrolling through faults and a server restart: no wrong or stuck cell, bounded memory and fds, no partial cache entry")
    func soak() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fault-soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = Process()
        client.executableURL = BuiltProducts.executable("soak-client")
        client.arguments = [BuiltProducts.executable("prefetch-server").path, directory.path, "60", "7"]
        let stdout = Pipe()
        client.standardOutput = stdout
        client.standardError = FileHandle.nullDevice
        try client.run()
        defer { if client.isRunning { kill(client.processIdentifier, SIGKILL) } }
        let lines = await OutputReader(stdout.fileHandleForReading).waitForLines(timeout: TestTime.scaled(.seconds(180))) { lines in
            lines.contains { $0.hasPrefix("{") }
        }
        let line = try #require(lines.first { $0.hasPrefix("{") }, "soak-client printed no report: \(lines)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("fault soak report: \(line)")
        func number(_ key: String) throws -> Double { try #require((report[key] as? NSNumber)?.doubleValue, "no \(key) in \(line)") }

        // It really scrolled for 60 s through the faults and the restart
        #expect(try number("secondsScrolled") >= 60)
        #expect(try number("serverRestarts") == 1)
        let errors = report["loadErrorsByCode"] as? [String: Any] ?? [:]
        #expect(errors["serverError"] != nil, "no 503 seen: \(errors)")
        #expect(errors["connectionFailed"] != nil, "no reset or refused connection seen: \(errors)")
        // No cell ever showed another item's data, and every visible cell ended with its data
        #expect(try number("wrongCells") == 0, "\(report["wrongCellExamples"] ?? [])")
        #expect(try number("stuckCells") == 0)
        #expect(try number("failedCellsRecoveredOnScrollBack") == number("failedCellsAtRest"))
        // Memory and descriptors of both processes stayed under their ceilings
        #expect(try number("clientRSSPeakMiB") <= Self.clientRSSCeilingMiB)
        #expect(try number("clientRSSPeakMiB") - number("clientRSSBaselineMiB") <= Self.clientRSSGrowthCeilingMiB)
        #expect(try number("clientFDsPeak") <= Double(Self.fdCeiling))
        #expect(try number("serverRSSPeakMiB") <= Self.serverRSSCeilingMiB)
        #expect(try number("serverFDsPeak") <= Double(Self.fdCeiling))
        // Nothing in the disk cache is partial
        #expect(try number("diskEntries") > 0)
        #expect(try number("partialDiskEntries") == 0)
        client.waitUntilExit()
        #expect(client.terminationStatus == 0)
    }
}
