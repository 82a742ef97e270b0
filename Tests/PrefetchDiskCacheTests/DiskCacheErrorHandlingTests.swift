import Foundation
import GRDB
@testable import PrefetchDiskCache
import PrefetchKit
import Testing

/// Findings 5 and 6 of issue 12: a healthy cache is never thrown away for an error that is not
/// corruption, and a read that found its value returns it even when saving its access time fails.
@Suite("DiskCache error handling")
struct DiskCacheErrorHandlingTests {
    @Test("only NOTADB and CORRUPT move a file aside; every other SQLite error keeps it", arguments: [
        (ResultCode.SQLITE_NOTADB, true), (.SQLITE_CORRUPT, true),
        (.SQLITE_CANTOPEN, false), (.SQLITE_IOERR, false), (.SQLITE_PERM, false), (.SQLITE_READONLY, false),
        (.SQLITE_AUTH, false), (.SQLITE_FULL, false), (.SQLITE_BUSY, false), (.SQLITE_LOCKED, false),
        (.SQLITE_NOMEM, false), (.SQLITE_INTERRUPT, false), (.SQLITE_ERROR, false), (.SQLITE_PROTOCOL, false),
    ])
    func onlyCorruptionMovesAside(code: ResultCode, movesAside: Bool) {
        #expect(DatabaseOpener.isWorthMovingAside(DatabaseError(resultCode: code)) == movesAside, "\(code)")
    }

    @Test("a -wal that cannot be opened is a clear error; the file and its entries stay")
    func unopenableWALKeepsTheCache() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        // Given a healthy cache with an entry, closed
        do {
            let cache = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
            try await cache.store(bytes(100, 7), for: "kept")
            try await cache.close()
            // Everything in the main file, so removing the -wal below loses nothing
            let queue = try DatabaseQueue(path: dir.database.path)
            try await queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try queue.close()
        }
        // When its -wal path cannot be opened (a directory stands there: even root cannot open it)
        let wal = URL(fileURLWithPath: dir.database.path + "-wal")
        try? FileManager.default.removeItem(at: wal)
        try FileManager.default.createDirectory(at: wal, withIntermediateDirectories: false)
        let recorder = ProblemRecorder()
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.problemHandler = recorder.handler
        let error = #expect(throws: DiskCacheError.self) { try DiskCache<String>(configuration: configuration) }
        // Then opening fails with an error naming the file, nothing is moved aside, nothing is reported as corrupt
        #expect(error?.code == .openFailed)
        #expect(error?.message.contains(dir.database.path) == true, "\(String(describing: error))")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(!files.contains { $0.contains("corrupt") }, "\(files)")
        #expect(recorder.problems.isEmpty, "\(recorder.problems)")
        // And once the obstacle is gone, the entry is still there
        try FileManager.default.removeItem(at: wal)
        let reopened = try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
        #expect(reopened.movedAsideFileURL == nil)
        #expect(try await reopened.value(for: "kept") == bytes(100, 7))
        try await reopened.close()
    }

    @Test("a newer schema version is a clear error, not corruption: the file stays")
    func newerSchemaKeepsTheFile() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        // Given a database written by a later version of the cache
        do {
            let queue = try DatabaseQueue(path: dir.database.path)
            try await queue.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
            try queue.close()
        }
        // When opened, then it fails naming the version, and the file is not moved aside
        let error = #expect(throws: DiskCacheError.self) {
            try DiskCache<String>(configuration: DiskCacheConfiguration(fileURL: dir.database))
        }
        #expect(error?.code == .openFailed)
        #expect(error?.description.contains("schema version 99") == true, "\(String(describing: error))")
        #expect(FileManager.default.fileExists(atPath: dir.database.path))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(!files.contains { $0.contains("corrupt") }, "\(files)")
    }

    @Test("a hit stays a hit when saving its access time fails (the database is locked by another writer)")
    func hitSurvivesAFailedAccessTimeFlush() async throws {
        let dir = try TempDirectory()
        defer { dir.cleanUp() }
        // Given a cache that saves access times on every read, with an entry
        let recorder = ProblemRecorder()
        var configuration = DiskCacheConfiguration(fileURL: dir.database)
        configuration.pendingAccessLimit = 1
        configuration.problemHandler = recorder.handler
        let cache = try DiskCache<String>(configuration: configuration)
        try await cache.store(bytes(64, 3), for: "hit")
        // And another connection holding the write lock (reads still work in WAL mode)
        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true      // the test holds a transaction across calls on purpose
        let other = try DatabaseQueue(path: dir.database.path, configuration: unsafe)
        try await withLockedDatabase(other) {
            // When the entry is read, and its access-time write cannot get the lock
            let value = try await cache.value(for: "hit")
            // Then the read returns the value rather than throwing, and the failed save is reported
            #expect(value == bytes(64, 3))
            let problems = recorder.problems
            #expect(problems.map(\.kind) == [.accessTimesNotSaved], "\(problems)")
            #expect(problems.first?.fileURL == dir.database)
            #expect(problems.first?.movedTo == nil)
        }
        try other.close()
        // And the access time is saved by a later write, once the lock is free
        try await cache.flush()
        #expect(try await cache.value(for: "hit") == bytes(64, 3))
        try await cache.close()
    }

    /// Runs `body` while `queue` holds an open write transaction (BEGIN IMMEDIATE).
    func withLockedDatabase(_ queue: DatabaseQueue, _ body: () async throws -> Void) async throws {
        try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        do {
            try await body()
        } catch {
            try queue.inDatabase { db in try db.execute(sql: "ROLLBACK") }
            throw error
        }
        try queue.inDatabase { db in try db.execute(sql: "ROLLBACK") }
    }
}
