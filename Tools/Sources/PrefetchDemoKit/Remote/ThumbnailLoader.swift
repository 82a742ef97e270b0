import Foundation
import PrefetchHTTP
import PrefetchKit
import PrefetchToolSupport

/// The demo's real network: loads a feed item's thumbnail from the item's `thumbnailURL` with
/// an `HTTPLoader`, and decodes it into the ``DisplayData`` a cell shows.
///
/// The fetcher loads by identifier; the URL of each identifier is registered when the item's
/// page arrives (``register(_:url:)``), and the data sources only ask for items whose page is
/// here, so a load always finds its URL. Registered URLs are kept after their page is dropped,
/// because a queued load may still need one (about 60 bytes per item seen).
package final class ThumbnailLoader: DataLoader, Sendable {
    private struct State: Sendable {
        var urls: [UUID: URL] = [:]
        var requests = 0
    }

    private let http: HTTPLoader<URL>
    private let state = Locked(State())

    package init(http: HTTPLoader<URL>) {
        self.http = http
    }

    /// Records where the thumbnail of `id` is.
    package func register(_ id: UUID, url: URL) {
        state.withLock { $0.urls[id] = url }
    }

    /// HTTP requests sent so far, retries included.
    package var requestCount: Int { state.withLock { $0.requests } }

    /// Loads and decodes the thumbnail of `id`.
    ///
    /// - Throws: `HTTPLoaderError` (retryable for 5xx, timeouts and resets), `CancellationError`,
    ///   or ``DemoError`` when no URL was registered for `id`.
    package func load(_ id: UUID) async throws -> DisplayData {
        let url = state.withLock { s -> URL? in
            guard let url = s.urls[id] else { return nil }
            s.requests += 1
            return url
        }
        guard let url else { throw DemoError("no thumbnail URL is known for item \(id): its page has not arrived") }
        return DisplayData(identifier: id, payload: try await http.data(from: url))
    }
}

/// The fetcher's second level: thumbnails as the server sent them, in a ``PrefetchDiskCache/DiskCache``
/// keyed by the item's identifier, decoded again on the way out.
///
/// Keys do not include the server's address, so every `--serve` run (each on a new port) shares
/// the cache; point `--disk-cache` at another file for a different server.
package struct ThumbnailDiskStore<Cache: DataStore<UUID, Data>>: DataStore {
    package let cache: Cache

    package init(_ cache: Cache) {
        self.cache = cache
    }

    package func value(for key: UUID) async throws -> DisplayData? {
        try await cache.value(for: key).map { DisplayData(identifier: key, payload: $0) }
    }

    package func store(_ value: DisplayData, for key: UUID) async throws {
        try await cache.store(value.payload, for: key)
    }

    package func removeValue(for key: UUID) async throws {
        try await cache.removeValue(for: key)
    }

    package func removeAll() async throws {
        try await cache.removeAll()
    }
}
