import Foundation
import PrefetchDiskCache
import PrefetchKit
import PrefetchTesting
import Testing

/// A time source a test moves by hand.
final class ManualNow: Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: @Sendable () -> Date { { [date] in date.withLock { $0 } } }
    func advance(seconds: Double) { date.withLock { $0 += seconds } }
}

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
struct TempDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("PrefetchDiskCacheTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var database: URL { url.appendingPathComponent("cache.sqlite") }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Keeps every problem a cache reports to its `problemHandler`, to check what it reported.
final class ProblemRecorder: Sendable {
    private let recorded = Locked([DiskCacheProblem]())
    var handler: @Sendable (DiskCacheProblem) -> Void { { [recorded] problem in recorded.withLock { $0.append(problem) } } }
    var problems: [DiskCacheProblem] { recorded.withLock { $0 } }
}

func bytes(_ count: Int, _ fill: UInt8) -> Data { Data(repeating: fill, count: count) }

@Suite("DiskCache")
struct DiskCacheTests {
    @Test("stores, reads, replaces and removes values; keys are data, not paths")
    func roundTrip() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
        // Given keys that would be dangerous as paths
        let keys = ["../../etc/passwd", "", "a/b\\c\u{0}d", "ünïcødé"]
        for (i, key) in keys.enumerated() { try await cache.store(bytes(10, UInt8(i)), for: key) }
        // Then each reads back intact, and no stray files appear beside the database
        for (i, key) in keys.enumerated() { #expect(try await cache.value(for: key) == bytes(10, UInt8(i))) }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(files.allSatisfy { $0.hasPrefix("cache.sqlite") })
        // When replaced and removed
        try await cache.store(bytes(3, 9), for: "")
        #expect(try await cache.value(for: "") == bytes(3, 9))
        try await cache.removeValue(for: "")
        #expect(try await cache.value(for: "") == nil)
        #expect(try await cache.count() == 3)
        #expect(try await cache.totalSize() == keys.filter { !$0.isEmpty }.reduce(0) { $0 + Data($1.utf8).count + 10 })
        try await cache.removeAll()
        #expect(try await cache.count() == 0)
        #expect(try await cache.totalSize() == 0)
    }

    @Test("evicts least recently used entries first when over the size limit")
    func evictionOrder() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.sizeLimit = 3 * 101   // three entries of a 1-byte key and 100-byte value
        let cache = try DiskCache<String>(configuration: configuration)
        // Given a, b, c stored in order and a read since
        for key in ["a", "b", "c"] { try await cache.store(bytes(100, 1), for: key) }
        #expect(try await cache.value(for: "a") != nil)
        // When d is stored, over the limit
        try await cache.store(bytes(100, 2), for: "d")
        // Then b, the least recently used, is gone; a survives its read
        #expect(try await cache.value(for: "b") == nil)
        #expect(try await cache.value(for: "a") != nil)
        #expect(try await cache.value(for: "c") != nil)
        #expect(try await cache.value(for: "d") != nil)
        // When a big entry needs two slots, the two least recently used (a, then c) go
        try await cache.store(bytes(201, 3), for: "e")
        #expect(try await cache.allEntries().map { String(decoding: $0.key, as: UTF8.self) } == ["d", "e"])
        #expect(try await cache.totalSize() <= configuration.sizeLimit)
    }

    @Test("an entry larger than the whole limit is refused, with a clear error, and nothing is evicted")
    func entryTooLarge() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.sizeLimit = 100
        let cache = try DiskCache<String>(configuration: configuration)
        try await cache.store(bytes(50, 1), for: "small")
        let error = await #expect(throws: DiskCacheError.self) { try await cache.store(bytes(200, 1), for: "big") }
        #expect(error?.code == .entryTooLarge)
        #expect(error?.message.contains("is 203 bytes") == true)
        #expect(error?.message.contains("size limit of 100 bytes") == true)
        #expect(try await cache.value(for: "small") != nil)
    }

    @Test("entries expire by the injected clock, per entry or by the default time to live")
    func expiry() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        let clock = ManualNow()
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.now = clock.now
        configuration.timeToLive = .seconds(60)
        let cache = try DiskCache<String>(configuration: configuration)
        try await cache.store(bytes(5, 1), for: "default")                             // 60 s
        try await cache.store(bytes(5, 2), for: "short", timeToLive: .seconds(10))
        try await cache.store(bytes(5, 3), for: "forever", timeToLive: nil)
        clock.advance(seconds: 9.5)
        #expect(try await cache.value(for: "short") != nil)
        clock.advance(seconds: 0.5)
        #expect(try await cache.value(for: "short") == nil)          // at its expiry instant
        #expect(try await cache.value(for: "default") != nil)
        clock.advance(seconds: 50)
        #expect(try await cache.value(for: "default") == nil)
        #expect(try await cache.value(for: "forever") != nil)
        // Expired rows are deleted by the next write or flush
        #expect(try await cache.count() == 3)
        try await cache.flush()
        #expect(try await cache.count() == 1)
        let error = await #expect(throws: DiskCacheError.self) {
            try await cache.store(bytes(1, 1), for: "bad", timeToLive: .seconds(-1))
        }
        #expect(error?.message.contains("timeToLive must be positive") == true)
    }

    @Test("values and recency persist across close and reopen")
    func persistence() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.sizeLimit = 3 * 101
        do {
            let cache = try DiskCache<String>(configuration: configuration)
            for key in ["a", "b", "c"] { try await cache.store(bytes(100, 7), for: key) }
            _ = try await cache.value(for: "a")    // pending access, saved by close()
            try await cache.close()
            await #expect(throws: DiskCacheError.self) { try await cache.value(for: "a") }
        }
        let reopened = try DiskCache<String>(configuration: configuration)
        #expect(reopened.movedAsideFileURL == nil)
        #expect(try await reopened.value(for: "c") == bytes(100, 7))
        #expect(try await reopened.count() == 3)
        try await reopened.store(bytes(100, 8), for: "d")
        // b was least recently used before the reopen (a was read, then c)
        #expect(try await reopened.value(for: "b") == nil)
        #expect(try await reopened.value(for: "a") != nil)
    }

    @Test("a file that is not a database is moved aside and a new cache created, reported to the problem handler")
    func garbageFileIsRecreated() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        try Data(repeating: 0x5A, count: 8192).write(to: dir.database)
        let recorder = ProblemRecorder()
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.problemHandler = recorder.handler
        let cache = try DiskCache<String>(configuration: configuration)
        let aside = try #require(cache.movedAsideFileURL)
        let problems = recorder.problems
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.kind == .movedAside)
        #expect(problem.message == "DiskCache database was unreadable; moved it aside and created a new one")
        #expect(problem.fileURL == dir.database)
        #expect(problem.movedTo == aside)
        #expect("\(problem.error)".contains("file is not a database"), "\(problem)")
        #expect(problem.description.contains("movedTo: \(aside.path)"), "\(problem)")
        #expect(aside.lastPathComponent.hasPrefix("cache.sqlite.corrupt-"))
        #expect(try Data(contentsOf: aside) == Data(repeating: 0x5A, count: 8192))
        #expect(try await cache.count() == 0)
        try await cache.store(bytes(4, 4), for: "works")
        #expect(try await cache.value(for: "works") == bytes(4, 4))
    }

    @Test("a database with scribbled pages fails its check and is recreated")
    func corruptPagesAreRecreated() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        do {
            let cache = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
            for i in 0..<200 { try await cache.store(bytes(3000, UInt8(i % 250)), for: "k\(i)") }
            try await cache.close()
        }
        // Given pages past the header overwritten with garbage
        let handle = try FileHandle(forUpdating: dir.database)
        try handle.seek(toOffset: 4096 * 2)
        handle.write(Data(repeating: 0xFF, count: 4096 * 20))
        try handle.close()
        // When opened, then it is moved aside and a fresh cache works
        let cache = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
        #expect(cache.movedAsideFileURL != nil)
        #expect(try await cache.count() == 0)
        try await cache.store(bytes(4, 4), for: "works")
        #expect(try await cache.value(for: "works") == bytes(4, 4))
    }

    @Test("bad configuration values are rejected, naming the value and the rule")
    func badConfiguration() throws {
        var configuration = DiskCacheConfiguration(name: "x")
        configuration.sizeLimit = 0
        let error = #expect(throws: DiskCacheError.self) { try DiskCache<String>(configuration: configuration) }
        #expect(error?.message == "DiskCacheConfiguration sizeLimit must be at least 1 byte, got 0")
        configuration = DiskCacheConfiguration(fileURL: URL(string: "https://example.com/cache.sqlite")!)
        let schemeError = #expect(throws: DiskCacheError.self) { try DiskCache<String>(configuration: configuration) }
        #expect(schemeError?.message.contains("must be a file URL") == true)
        // The default location: the caches directory, a safe file name
        let named = DiskCacheConfiguration(name: "../thumbs")
        #expect(named.fileURL.deletingLastPathComponent() == DiskCacheConfiguration.defaultDirectory)
        #expect(named.fileURL.lastPathComponent == ".._thumbs.sqlite")
    }

    @Test("works as an AsyncFetcher store: a disk hit skips the loader")
    func asFetcherStore() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache<Int>(configuration: DiskCacheConfiguration(fileURL: dir.database))
        try await cache.store(Data("from disk".utf8), for: 1)
        let loader = ScriptedLoader<Int, Data>(autoRespond: { Data("loaded \($0)".utf8) })
        let fetcher = try AsyncFetcher(store: cache, loader: loader)
        #expect(try await fetcher.value(for: 1) == Data("from disk".utf8))
        #expect(try await fetcher.value(for: 2) == Data("loaded 2".utf8))
        #expect(loader.calledIDs == [2])
        fetcher.shutdown()
    }
}
