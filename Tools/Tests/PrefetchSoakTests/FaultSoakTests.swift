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
/// Each loaded thumbnail becomes a decoded value of 1 MiB (allocated and written, its fetcher cost)
/// under a 64 MiB `FetcherConfiguration.memoryBudget` (issue #27): the fetcher must hold at most
/// the budget, and the client's resident memory must grow by at most the budget plus 32 MiB (the
/// visible cells' values, which the fetcher no longer holds, and the allocator's slack). This is
/// the one soak, in the configuration of issue #27 rather than beside the thumbnails-only one it
/// replaced: a second 60 s run would double the soak's share of CI, and every assertion of the
/// old run (wrong, stuck and partial data; descriptors; the server) holds in this one as well.
///
/// Real I/O in real time, bounded: 60 s of scrolling, at most 30 s to settle and 30 s to recover
/// failed cells; the whole run is killed after a deadline (scaled by `PREFETCH_TEST_TIME_SCALE`).
@Suite("Fault soak", .serialized, .timeLimit(.minutes(TestTime.minutes(4))))
struct FaultSoakTests {
    /// Ceilings, well above what was measured (see the engineering report's security notes, Benchmarks/README.md), far below a leak.
    static let clientRSSCeilingMiB = 400.0 * TestTime.scale.squareRoot()
    /// Issue #27: 1 MiB values under a 64 MiB budget.
    static let valueBytes = 1 << 20
    static let memoryBudgetMiB = 64
    /// Issue #27's goal, tighter than the 120 MiB of growth the thumbnails-only soak allowed: the
    /// client's resident memory grows by at most the budget plus 32 MiB. Under ThreadSanitizer (the
    /// CI's scaled pass) every byte the program writes also writes shadow memory (twice as many
    /// bytes), so there the bound is 5 times the goal; the goal itself holds on uninstrumented runs.
    static let clientRSSGrowthCeilingMiB = Double(memoryBudgetMiB + 32) * (TestTime.scale > 1 ? 5 : 1)
    static let serverRSSCeilingMiB = 250.0 * TestTime.scale.squareRoot()
    static let fdCeiling = 200

    @Test("60 s of scrolling through faults and a server restart: no wrong or stuck cell, bounded memory and fds, no partial cache entry")
    func soak() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fault-soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = Process()
        client.executableURL = BuiltProducts.executable("soak-client")
        client.arguments = [BuiltProducts.executable("prefetch-server").path, directory.path, "60", "7",
                            "--value-bytes", "\(Self.valueBytes)", "--memory-budget-mb", "\(Self.memoryBudgetMiB)"]
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
        // Issue #27: the values were 1 MiB each, the fetcher held at most its budget, and the
        // process grew by at most the budget plus 32 MiB
        #expect(try number("valueBytes") == Double(Self.valueBytes))
        #expect(try number("memoryBudgetMiB") == Double(Self.memoryBudgetMiB))
        #expect(try number("fetcherPeakMemoryHeldBytes") > Double(8 * Self.valueBytes), "the fetcher never held decoded values")
        #expect(try number("fetcherPeakMemoryHeldBytes") <= Double(Self.memoryBudgetMiB << 20))
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

    @Test("bad soak-client flags are refused with an error naming the value and the rule", arguments: [
        (["--value-bytes", "0"], "--value-bytes must be a whole number of bytes from 1 to 16777216, got \"0\""),
        (["--value-bytes", "1MB"], "--value-bytes must be a whole number of bytes from 1 to 16777216, got \"1MB\""),
        (["--memory-budget-mb", "-64"], "--memory-budget-mb must be a whole number of MiB from 1 to 4096, got \"-64\""),
        (["--memory-budget-mb"], "--memory-budget-mb needs a value"),
        (["--budget", "64"], "unknown option --budget"),
    ])
    func badFlags(flags: [String], message: String) async throws {
        let arguments = [BuiltProducts.executable("prefetch-server").path, "/nonexistent", "60"] + flags
        let output = try await BoundedProcess.run(BuiltProducts.executable("soak-client"), arguments, timeout: .seconds(30))
        #expect(output.status == 64)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }
}
