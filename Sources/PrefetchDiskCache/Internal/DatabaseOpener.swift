import Foundation
import GRDB

/// Opens the cache database, moving a corrupt or unreadable file aside and starting fresh.
struct DatabaseOpener {
    struct Opened {
        var pool: DatabasePool
        var maxTick: Int64
        var movedAside: URL?
    }

    /// The integrity check failed: the file opened but its pages are damaged.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// The file was written by a later version of the cache: not corrupt, so it is left alone.
    struct NewerSchema: Error, CustomStringConvertible {
        var description: String
    }

    static let schemaVersion = 1

    let configuration: DiskCacheConfiguration

    func open() throws -> Opened {
        let url = configuration.fileURL
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DiskCacheError(.openFailed, "DiskCache could not create the directory \(directory.path)", cause: error)
        }
        do {
            var opened = try attempt()
            opened.movedAside = nil
            return opened
        } catch {
            guard Self.isWorthMovingAside(error), FileManager.default.fileExists(atPath: url.path) else {
                throw DiskCacheError(.openFailed,
                    "DiskCache could not open \(url.path) and left it as it is (only a corrupt file is moved aside)", cause: error)
            }
            let aside = try moveAside(url, because: error)
            do {
                var opened = try attempt()
                opened.movedAside = aside
                return opened
            } catch {
                throw DiskCacheError(.openFailed,
                    "DiskCache could not create a new database at \(url.path) after moving the old one aside", cause: error)
            }
        }
    }

    private func attempt() throws -> Opened {
        var config = Configuration()
        config.label = "PrefetchDiskCache"
        config.prepareDatabase { db in
            // WAL (DatabasePool's default) with NORMAL sync: a process crash loses nothing committed;
            // a power loss may lose the latest transactions, never half of one.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool = try DatabasePool(path: configuration.fileURL.path, configuration: config)
        do {
            let maxTick = try pool.write { db -> Int64 in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if version > Self.schemaVersion {
                    throw NewerSchema(description: "schema version \(version) is newer than the supported \(Self.schemaVersion)")
                }
                try Self.createSchema(db)
                return try Int64.fetchOne(db, sql: "SELECT MAX(accessTick) FROM entry") ?? 0
            }
            let check = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw Unusable(description: "PRAGMA quick_check reported: \(check.prefix(3).joined(separator: "; "))")
            }
            return Opened(pool: pool, maxTick: maxTick, movedAside: nil)
        } catch {
            try? pool.close()
            throw error
        }
    }

    static func createSchema(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS entry (
                key BLOB NOT NULL UNIQUE,
                value BLOB NOT NULL,
                size INTEGER NOT NULL,
                accessTick INTEGER NOT NULL,
                accessedAt REAL NOT NULL,
                expiresAt REAL
            );
            CREATE INDEX IF NOT EXISTS entry_access ON entry(accessTick);
            CREATE INDEX IF NOT EXISTS entry_expiry ON entry(expiresAt) WHERE expiresAt IS NOT NULL;
            CREATE TABLE IF NOT EXISTS usage (id INTEGER PRIMARY KEY CHECK (id = 1), totalSize INTEGER NOT NULL);
            INSERT OR IGNORE INTO usage (id, totalSize) VALUES (1, 0);
            CREATE TRIGGER IF NOT EXISTS entry_insert AFTER INSERT ON entry BEGIN
                UPDATE usage SET totalSize = totalSize + NEW.size WHERE id = 1;
            END;
            CREATE TRIGGER IF NOT EXISTS entry_delete AFTER DELETE ON entry BEGIN
                UPDATE usage SET totalSize = totalSize - OLD.size WHERE id = 1;
            END;
            CREATE TRIGGER IF NOT EXISTS entry_resize AFTER UPDATE OF size ON entry BEGIN
                UPDATE usage SET totalSize = totalSize - OLD.size + NEW.size WHERE id = 1;
            END;
            PRAGMA user_version = \(schemaVersion);
            """)
    }

    /// Whether an open failure means the file itself is corrupt: SQLite's NOTADB or CORRUPT, or a
    /// failed integrity check. Everything else (permissions, a read-only file, a `-wal` or `-shm`
    /// that cannot be opened, no file descriptors left, I/O errors, locks, a full disk, a newer
    /// schema) leaves a healthy file where it is.
    static func isWorthMovingAside(_ error: any Error) -> Bool {
        if error is Unusable { return true }
        guard let dbError = error as? DatabaseError else { return false }
        return dbError.resultCode == .SQLITE_NOTADB || dbError.resultCode == .SQLITE_CORRUPT
    }

    private func moveAside(_ url: URL, because error: any Error) throws -> URL {
        let stamp = Int64((configuration.now().timeIntervalSince1970 * 1000).rounded())
        let aside = url.appendingPathExtension("corrupt-\(stamp)")
        let fm = FileManager.default
        do {
            try? fm.removeItem(at: aside)
            try fm.moveItem(at: url, to: aside)
            for suffix in ["-wal", "-shm"] {
                let side = URL(fileURLWithPath: url.path + suffix)
                guard fm.fileExists(atPath: side.path) else { continue }
                let sideAside = URL(fileURLWithPath: aside.path + suffix)
                try? fm.removeItem(at: sideAside)
                try fm.moveItem(at: side, to: sideAside)
            }
        } catch {
            throw DiskCacheError(.openFailed, "DiskCache could not move the unreadable database \(url.path) aside", cause: error)
        }
        configuration.problemHandler?(DiskCacheProblem(
            kind: .movedAside, message: "DiskCache database was unreadable; moved it aside and created a new one",
            fileURL: url, movedTo: aside, error: error))
        return aside
    }
}
