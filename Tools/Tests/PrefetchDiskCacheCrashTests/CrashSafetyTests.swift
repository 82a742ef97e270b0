import Foundation
import IOTestSupport
import PrefetchDiskCache
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a writing child process with SIGKILL, again and again, and checks what survives.
///
/// This test is about real processes and real I/O, so it waits for real: for the child's
/// "ready" line and for a short, seeded, random moment before each kill.
@Suite("DiskCache crash safety", .serialized)
struct CrashSafetyTests {
    static let rounds = 50

    @Test("50 SIGKILLs mid-write: the database always opens and every readable entry is complete")
    func killedWhileWriting() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        let crasher = BuiltProducts.executable("disk-cache-crasher")
        try #require(FileManager.default.isExecutableFile(atPath: crasher.path),
                     "build the helper first: swift build --package-path Tools --product disk-cache-crasher (looked in \(crasher.path))")
        var random = UInt64(0xC0FFEE)
        var totalEntries = 0
        for round in 0..<Self.rounds {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let delayMicros = UInt32((random >> 33) % 40_000)
            let path = dir.database.path
            let (ready, killed) = try await onBlockingThread { () throws -> (String?, Bool) in
                // Given a child writing checksummed entries (each write a transaction with eviction)
                let process = Process()
                process.executableURL = crasher
                process.arguments = [path, "\(round)", "1500000"]
                let stdout = Pipe()
                process.standardOutput = stdout
                try process.run()
                let ready = stdout.fileHandleForReading.readLine()
                // When it is killed at a random moment while writing
                usleep(delayMicros)
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return (ready, process.terminationReason == .uncaughtSignal)
            }
            #expect(ready == "ready", "round \(round): the child said \(ready ?? "nothing")")
            #expect(killed, "round \(round): the child exited early")
            // Then the database opens without being moved aside, and every entry is whole
            let cache = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
            #expect(cache.movedAsideFileURL == nil, "round \(round): the database was unreadable")
            let entries = try await cache.allEntries()
            let torn = entries.filter { !ChecksummedPayload.isComplete($0.value) }
            #expect(torn.isEmpty, "round \(round): \(torn.count) torn entries")
            #expect(try await cache.totalSize() == entries.reduce(0) { $0 + $1.key.count + $1.value.count })
            #expect(try await cache.totalSize() <= 1_500_000)
            totalEntries += entries.count
            try await cache.close()
        }
        #expect(totalEntries > 0)
    }
}
