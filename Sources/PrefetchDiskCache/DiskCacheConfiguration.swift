import Foundation

/// Where a ``DiskCache`` keeps its file, how much it holds, and how long entries live.
///
/// ```swift
/// var configuration = DiskCacheConfiguration(name: "thumbnails")
/// configuration.sizeLimit = 50 * 1024 * 1024
/// configuration.timeToLive = .seconds(24 * 3600)
/// let cache = try DiskCache<String>(configuration: configuration)
/// ```
public struct DiskCacheConfiguration: Sendable {
    /// The SQLite database file. Its directory is created if missing.
    ///
    /// Defaults to `<caches>/PrefetchKit/<name>.sqlite`, where `<caches>` is the user's caches
    /// directory (`~/Library/Caches` on Apple platforms, `$XDG_CACHE_HOME` or `~/.cache` on Linux),
    /// or the temporary directory when there is none. Set it to put the cache anywhere else.
    public var fileURL: URL
    /// The most bytes the cache keeps, keys and values counted (default 100 MiB). At least 1.
    ///
    /// After each write, expired entries go first, then least recently used ones, until the
    /// total is within the limit.
    public var sizeLimit: Int = 100 * 1024 * 1024
    /// How long a stored entry stays readable, or `nil` (the default) for no expiry.
    ///
    /// ``DiskCache/store(_:for:timeToLive:)`` overrides it per entry.
    public var timeToLive: Duration?
    /// The current time, for expiry and access times. Inject a fixed or manual time in tests.
    public var now: @Sendable () -> Date = { Date() }
    /// Called when the cache handles a problem on its own: a corrupt file it moved aside, or
    /// access times it could not save (see ``DiskCacheProblem``). `nil` (the default) reports
    /// nothing. Forward it to the app's logger. It is called synchronously from the cache call that
    /// met the problem (the initializer, or a read), so keep it quick and do not call back into the cache.
    public var problemHandler: (@Sendable (DiskCacheProblem) -> Void)?
    /// How many reads are remembered before their access times are written (default 256).
    ///
    /// Reads never write: they record the access in memory, and the next write (or ``DiskCache/flush()``)
    /// saves the access times in its transaction, before it evicts. At least 1.
    package var pendingAccessLimit: Int = 256

    /// Creates a configuration for a cache file named `name` in the default directory.
    ///
    /// - Parameter name: the file's base name; it may hold only letters, digits, `-`, `_` and `.`.
    public init(name: String = "PrefetchKit") {
        fileURL = Self.defaultDirectory.appendingPathComponent("\(Self.safeName(name)).sqlite", isDirectory: false)
    }

    /// Creates a configuration for the database file at `fileURL`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// `<caches>/PrefetchKit`, or `<tmp>/PrefetchKit` when the platform has no caches directory.
    public static var defaultDirectory: URL {
        let base = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("PrefetchKit", isDirectory: true)
    }

    /// Throws when a value is out of range, naming it and the rule.
    package func validate() throws {
        func fail(_ message: String) -> DiskCacheError { DiskCacheError(.invalidConfiguration, "DiskCacheConfiguration \(message)") }
        guard fileURL.isFileURL else { throw fail("fileURL must be a file URL, got \(fileURL.absoluteString)") }
        guard sizeLimit >= 1 else { throw fail("sizeLimit must be at least 1 byte, got \(sizeLimit)") }
        if let timeToLive, timeToLive <= .zero {
            throw fail("timeToLive must be positive or nil, got \(timeToLive)")
        }
        guard pendingAccessLimit >= 1 else { throw fail("pendingAccessLimit must be at least 1, got \(pendingAccessLimit)") }
    }

    private static func safeName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "PrefetchKit" : cleaned
    }
}
