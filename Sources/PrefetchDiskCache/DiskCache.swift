import Foundation
import GRDB
import PrefetchKit

/// A persistent, size-bounded, crash-safe `DataStore` of `Data` values in SQLite.
///
/// Use it as the second level of an `AsyncFetcher`, between the memory cache and the loader:
///
/// ```swift
/// let disk = try DiskCache<Int>(configuration: DiskCacheConfiguration(name: "thumbnails"))
/// let fetcher = try AsyncFetcher(store: disk, loader: httpLoader)
/// ```
///
/// - Storage: one SQLite database (through GRDB's `DatabasePool`) in WAL mode, so reads run
///   concurrently with each other and with a write. Keys are stored as `BLOB`s
///   (``DiskCacheKey/diskCacheKeyData``) and never become file names.
/// - Size: after every write, expired entries are deleted, then the least recently used ones,
///   until keys and values total at most ``DiskCacheConfiguration/sizeLimit`` bytes.
/// - Recency: a read does not write; it remembers the access in memory, and the next write saves
///   the pending access times in its own transaction, before it evicts. Access times not yet
///   saved when the process dies are lost (the entries stay, a little older).
/// - Expiry: an entry stored with a time to live is not returned after it; time comes from
///   ``DiskCacheConfiguration/now``.
/// - Crash safety: every write is one SQLite transaction, so a crash or `SIGKILL` in the middle of a
///   write leaves the previous state, never a partial entry.
/// - Corruption: a file SQLite reports as not a database or corrupt (`SQLITE_NOTADB`,
///   `SQLITE_CORRUPT`), or that fails `PRAGMA quick_check`, is renamed to
///   `<file>.corrupt-<timestamp>` and a new, empty cache is created, reported to
///   ``DiskCacheConfiguration/problemHandler``. Any other
///   failure to open (permissions, a read-only file, no file descriptors left, an I/O error, a
///   newer schema) throws ``DiskCacheError/Code/openFailed`` and leaves the file as it is.
/// - Access times: a read that found its value returns it even when saving access times fails.
///
/// One process should open a given file through one `DiskCache` at a time.
public final class DiskCache<Key: DiskCacheKey>: DataStore, Sendable {
    /// The stored value type: bytes.
    public typealias Value = Data

    private struct Touch: Sendable {
        var tick: Int64
        var accessedAt: Double
    }

    private struct State: Sendable {
        var tick: Int64
        var pendingTouches: [Data: Touch] = [:]
        var isClosed = false
    }

    private let pool: DatabasePool
    private let state: Locked<State>
    /// The configuration the cache was opened with.
    public let configuration: DiskCacheConfiguration
    /// The URL of the file moved aside when the cache was opened, if it was corrupt; `nil` otherwise.
    public let movedAsideFileURL: URL?

    /// Opens (or creates) the cache at ``DiskCacheConfiguration/fileURL``.
    ///
    /// A corrupt file is moved aside and replaced by an empty cache (see ``movedAsideFileURL``).
    /// Any other failure throws and leaves the file where it is, with its entries.
    /// - Throws: ``DiskCacheError`` with code ``DiskCacheError/Code/invalidConfiguration`` or
    ///   ``DiskCacheError/Code/openFailed``.
    public init(configuration: DiskCacheConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        let opened = try DatabaseOpener(configuration: configuration).open()
        pool = opened.pool
        movedAsideFileURL = opened.movedAside
        state = Locked(State(tick: opened.maxTick))
    }

    // MARK: DataStore

    /// Returns the value for `key`, or `nil` when there is none or it expired.
    ///
    /// Runs on a reader connection, concurrently with other reads and a write.
    /// - Complexity: O(log n) in the number of entries.
    public func value(for key: Key) async throws -> Data? {
        let keyData = key.diskCacheKeyData
        try checkOpen()
        let found: (value: Data, expiresAt: Double?)?
        do {
            found = try await pool.read { db in
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT value, expiresAt FROM entry WHERE key = ?", arguments: [keyData])
                else { return nil }
                let value: Data = row["value"]
                let expiresAt: Double? = row["expiresAt"]
                return (value, expiresAt)
            }
        } catch {
            throw wrap(error, "read the entry for key \(key)")
        }
        guard let found else { return nil }
        let now = configuration.now().timeIntervalSince1970
        if let expiresAt = found.expiresAt, expiresAt <= now { return nil }
        let flushNeeded = state.withLock { s -> Bool in
            s.tick += 1
            s.pendingTouches[keyData] = Touch(tick: s.tick, accessedAt: now)
            return s.pendingTouches.count >= configuration.pendingAccessLimit
        }
        if flushNeeded {
            // The value was read: a failure to save access times must not turn the hit into a miss.
            // The times stay pending and go with the next write.
            do {
                try await flush()
            } catch {
                configuration.problemHandler?(DiskCacheProblem(
                    kind: .accessTimesNotSaved, message: "DiskCache could not save access times; they stay pending",
                    fileURL: configuration.fileURL, error: error))
            }
        }
        return found.value
    }

    /// Stores `value` for `key` with the configured time to live, then evicts down to the size limit.
    ///
    /// - Throws: ``DiskCacheError`` with code ``DiskCacheError/Code/entryTooLarge`` when the entry
    ///   alone exceeds the size limit (nothing is stored), or ``DiskCacheError/Code/database``.
    public func store(_ value: Data, for key: Key) async throws {
        try await store(value, for: key, timeToLive: configuration.timeToLive)
    }

    /// Stores `value` for `key`, readable for `timeToLive` (`nil`: no expiry), in one transaction.
    ///
    /// The transaction also saves pending access times and evicts expired, then least recently
    /// used, entries until the total is within the size limit. The new entry is the most recent, so
    /// it is evicted last.
    /// - Complexity: O(log n) plus O(k log n) for k evicted entries.
    public func store(_ value: Data, for key: Key, timeToLive: Duration?) async throws {
        let keyData = key.diskCacheKeyData
        let size = keyData.count + value.count
        let limit = configuration.sizeLimit
        guard size <= limit else {
            throw DiskCacheError(.entryTooLarge,
                "DiskCache entry for key \(key) is \(size) bytes; entries must fit the size limit of \(limit) bytes")
        }
        if let timeToLive, timeToLive <= .zero {
            throw DiskCacheError(.invalidConfiguration, "DiskCache timeToLive must be positive or nil, got \(timeToLive)")
        }
        let now = configuration.now().timeIntervalSince1970
        let expiresAt = timeToLive.map { now + Self.seconds($0) }
        let (touches, tick) = try takeTouchesAndTick()
        do {
            try await pool.write { db in
                try Self.save(touches, in: db)
                try db.execute(
                    sql: """
                        INSERT INTO entry (key, value, size, accessTick, accessedAt, expiresAt)
                        VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(key) DO UPDATE SET
                            value = excluded.value, size = excluded.size, accessTick = excluded.accessTick,
                            accessedAt = excluded.accessedAt, expiresAt = excluded.expiresAt
                        """,
                    arguments: [keyData, value, size, tick, now, expiresAt])
                try Self.evict(in: db, now: now, limit: limit)
            }
        } catch {
            restore(touches)
            throw wrap(error, "store \(value.count) bytes for key \(key)")
        }
    }

    /// Removes the value for `key`, if any.
    public func removeValue(for key: Key) async throws {
        let keyData = key.diskCacheKeyData
        try checkOpen()
        state.withLock { _ = $0.pendingTouches.removeValue(forKey: keyData) }
        do {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [keyData])
            }
        } catch {
            throw wrap(error, "remove the entry for key \(key)")
        }
    }

    /// Removes every value.
    public func removeAll() async throws {
        try checkOpen()
        state.withLock { $0.pendingTouches.removeAll() }
        do {
            try await pool.write { db in try db.execute(sql: "DELETE FROM entry") }
        } catch {
            throw wrap(error, "remove all entries")
        }
    }

    // MARK: Maintenance

    /// Saves pending access times and evicts expired entries (and any excess over the size limit).
    ///
    /// When the write fails, the access times stay pending for the next write.
    public func flush() async throws {
        let (touches, _) = try takeTouchesAndTick()
        let now = configuration.now().timeIntervalSince1970
        let limit = configuration.sizeLimit
        do {
            try await pool.write { db in
                try Self.save(touches, in: db)
                try Self.evict(in: db, now: now, limit: limit)
            }
        } catch {
            restore(touches)
            throw wrap(error, "save access times")
        }
    }

    /// The number of stored entries, expired ones not yet evicted included.
    package func count() async throws -> Int {
        try checkOpen()
        do {
            return try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
        } catch {
            throw wrap(error, "count entries")
        }
    }

    /// The bytes stored, keys and values counted.
    public func totalSize() async throws -> Int {
        try checkOpen()
        do {
            return try await pool.read { db in try Int.fetchOne(db, sql: "SELECT totalSize FROM usage WHERE id = 1") ?? 0 }
        } catch {
            throw wrap(error, "read the total size")
        }
    }

    /// Every stored entry, least recently used first: each key as its ``DiskCacheKey`` bytes, and
    /// its value. Expired entries that no write has evicted yet are included.
    ///
    /// Reads the whole cache into memory, so it is meant for diagnostics, tools and tests (the
    /// crash test reads back what a killed writer left), not for an app's hot path.
    ///
    /// - Throws: ``DiskCacheError/Code/database`` when the read fails, or
    ///   ``DiskCacheError/Code/closed`` after ``close()``.
    public func allEntries() async throws -> [(key: Data, value: Data)] {
        try checkOpen()
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT key, value FROM entry ORDER BY accessTick ASC").map { row in
                    (key: row["key"] as Data, value: row["value"] as Data)
                }
            }
        } catch {
            throw wrap(error, "read every entry")
        }
    }

    /// Saves pending access times and closes the database; later calls throw ``DiskCacheError/Code/closed``.
    public func close() async throws {
        try await flush()
        state.withLock { $0.isClosed = true }
        do { try pool.close() } catch { throw wrap(error, "close") }
    }

    // MARK: Internals

    private func checkOpen() throws {
        if state.withLock({ $0.isClosed }) {
            throw DiskCacheError(.closed, "DiskCache at \(configuration.fileURL.path) is closed")
        }
    }

    private func takeTouchesAndTick() throws -> ([Data: Touch], Int64) {
        let result = state.withLock { s -> ([Data: Touch], Int64)? in
            guard !s.isClosed else { return nil }
            let touches = s.pendingTouches
            s.pendingTouches.removeAll(keepingCapacity: true)
            s.tick += 1
            return (touches, s.tick)
        }
        guard let result else {
            throw DiskCacheError(.closed, "DiskCache at \(configuration.fileURL.path) is closed")
        }
        return result
    }

    /// Puts back access times a failed write took, unless a later read recorded a newer one.
    private func restore(_ touches: [Data: Touch]) {
        guard !touches.isEmpty else { return }
        state.withLock { s in
            s.pendingTouches.merge(touches) { newer, older in newer.tick >= older.tick ? newer : older }
        }
    }

    private func wrap(_ error: any Error, _ action: String) -> any Error {
        if error is CancellationError || error is DiskCacheError { return error }
        return DiskCacheError(.database, "DiskCache could not \(action) in \(configuration.fileURL.path)", cause: error)
    }

    private static func save(_ touches: [Data: Touch], in db: Database) throws {
        for (key, touch) in touches {
            try db.execute(
                sql: "UPDATE entry SET accessTick = ?, accessedAt = ? WHERE key = ? AND accessTick < ?",
                arguments: [touch.tick, touch.accessedAt, key, touch.tick])
        }
    }

    private static func evict(in db: Database, now: Double, limit: Int) throws {
        try db.execute(sql: "DELETE FROM entry WHERE expiresAt IS NOT NULL AND expiresAt <= ?", arguments: [now])
        var total = try Int.fetchOne(db, sql: "SELECT totalSize FROM usage WHERE id = 1") ?? 0
        guard total > limit else { return }
        var victims: [Int64] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT rowid, size FROM entry ORDER BY accessTick ASC")
        while total > limit, let row = try rows.next() {
            victims.append(row[0])
            total -= row[1] as Int
        }
        for chunk in stride(from: 0, to: victims.count, by: 500) {
            let ids = victims[chunk..<min(chunk + 500, victims.count)]
            try db.execute(
                sql: "DELETE FROM entry WHERE rowid IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(Array(ids)))
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
