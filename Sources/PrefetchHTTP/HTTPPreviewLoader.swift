import Foundation
import PrefetchKit

/// Where an ``HTTPPreviewLoader`` finds an item's preview: a prefix of the body, or another URL.
///
/// ```swift
/// let photos = try HTTPLoader<Int> { id in URL(string: "http://127.0.0.1:8080/photos/\(id).jpg")! }
/// let firstScans = try HTTPPreviewLoader(photos, preview: .firstScan())
/// let thumbnails = try HTTPPreviewLoader(photos, preview: .variant { id in
///     URL(string: "http://127.0.0.1:8080/photos/\(id).jpg?variant=thumb")!
/// })
/// ```
public struct HTTPPreview<ID: Hashable & Sendable>: Sendable {
    enum Kind: Sendable {
        case firstScan(window: Int)
        case prefix(@Sendable (ID) -> Int)
        case variant(@Sendable (ID) throws -> URL)
    }

    let kind: Kind

    /// The first scan of a progressive JPEG (`ProgressiveJPEG.firstScanEnd(in:)`): the body
    /// up to its second start-of-scan marker.
    ///
    /// A preview load asks for the first `window` bytes (`Range: bytes=0-…`), then for windows
    /// twice as far, until the first scan's end is among the bytes received; a window never moves
    /// a byte twice, and the bytes past the prefix are kept for the full load. Choose `window`
    /// near a typical first scan (the default, 16 KiB, holds the first scan of a 1170 px photo of
    /// about 100 KB): a smaller one costs round trips, a larger one moves bytes of later scans
    /// early (not wasted: the full load does not ask for them again). At least 1 byte.
    public static func firstScan(window: Int = 16 * 1024) -> Self { Self(kind: .firstScan(window: window)) }

    /// The first `bytes(id)` bytes of the body (a length the app's model carries, or one the
    /// server announced). A preview load asks for exactly those bytes; `bytes(id)` must be at least 1.
    public static func prefix(bytes: @escaping @Sendable (ID) -> Int) -> Self { Self(kind: .prefix(bytes)) }

    /// A separate, smaller representation at `url(id)` (a thumbnail): a preview load is its own
    /// request, and a full load loads the item's own URL.
    public static func variant(_ url: @escaping @Sendable (ID) throws -> URL) -> Self { Self(kind: .variant(url)) }
}

/// An ``HTTPLoader`` that brings a preview of each item before, or instead of, its body: a
/// `PreviewLoader` for an `AsyncFetcher` that loads items at the quality its interests ask for.
///
/// A preview that is a prefix of the body (``HTTPPreview/firstScan(window:)``,
/// ``HTTPPreview/prefix(bytes:)``) is fetched with a range request, and the bytes received are
/// kept as a stopped transfer, so the full load later asks only for the rest (`Range: bytes=N-`
/// with `If-Range`): no byte is fetched twice. A full load hands its preview to the fetcher as
/// soon as the prefix has arrived (at once when a preview load kept it), then returns the whole
/// body. See <doc:LoadingPreviews>.
///
/// A preview load whose item a cell comes to want in full while it runs (a fling stops on it;
/// ``/PrefetchKit/FetchLoadContext/liveQuality`` reads `.full` when the preview is in) hands the
/// preview on and goes on for the rest in the same load, the prefix's bytes kept, then says the
/// value is full (``/PrefetchKit/FetchLoadContext/recordFullQuality()``): the fetcher starts no
/// second load for the upgrade.
///
/// - A server that ignores `Range` answers a preview load's request with the whole body: the
///   load stops reading once the prefix is in, returns it, and keeps what arrived; the full load
///   then gets the whole body again (a `200`), so the prefix's bytes move twice.
/// - A body that is not a progressive JPEG has no first scan: the preview load returns the whole
///   body, which the fetcher then holds as a preview.
/// - A response without a validator (no strong `ETag` or usable `Last-Modified`) cannot be
///   continued: the preview is returned and the full load starts from the first byte.
public final class HTTPPreviewLoader<ID: Hashable & Sendable>: PreviewLoader, Sendable {
    /// The loaded value: the body, or its preview.
    public typealias Value = Data

    /// The loader that makes the requests and keeps the stopped transfers.
    public let base: HTTPLoader<ID>
    /// Where the preview comes from.
    public let preview: HTTPPreview<ID>

    /// Creates a preview loader on `base`.
    ///
    /// - Throws: ``HTTPLoaderError`` with code ``HTTPLoaderError/Code/invalidConfiguration`` when a
    ///   prefix preview meets a base that does not resume (``HTTPLoaderConfiguration/maxPartialTransfers``
    ///   or ``HTTPLoaderConfiguration/maxPartialBytes`` is 0, or its headers set `Range`), or a
    ///   first-scan window is below 1 byte.
    public init(_ base: HTTPLoader<ID>, preview: HTTPPreview<ID>) throws {
        switch preview.kind {
        case .firstScan(let window) where window < 1:
            throw HTTPLoaderError(.invalidConfiguration,
                "HTTPPreview.firstScan(window: \(window)) must ask for at least 1 byte at a time")
        case .firstScan, .prefix:
            guard base.partials != nil else {
                throw HTTPLoaderError(.invalidConfiguration,
                    "HTTPPreviewLoader with a prefix preview needs a base HTTPLoader that resumes transfers: "
                    + "maxPartialTransfers (\(base.configuration.maxPartialTransfers)) and maxPartialBytes "
                    + "(\(base.configuration.maxPartialBytes)) above 0, and no Range or If-Range among its headers")
            }
        case .variant: break
        }
        self.base = base
        self.preview = preview
    }

    /// Loads `id`'s preview (`quality` ``/PrefetchKit/FetchQuality/preview``) or its whole body,
    /// calling `preview` with the prefix as soon as it has arrived.
    ///
    /// - Throws: ``HTTPLoaderError`` (``HTTPLoaderError/Code/invalidConfiguration`` when
    ///   ``HTTPPreview/prefix(bytes:)`` gives a length below 1), the URL closures' errors, or
    ///   `CancellationError`.
    public func load(_ id: ID, quality: FetchQuality, preview: @escaping @Sendable (Data) -> Void) async throws -> Data {
        let url = try base.makeURL(id)
        let find: Scanner
        let window: Int
        switch self.preview.kind {
        case .variant(let variantURL):
            guard quality == .preview else { return try await base.data(from: url) }
            let thumbnail = try await base.data(from: try variantURL(id))
            guard Self.wantedInFull else { return thumbnail }
            preview(thumbnail)
            let body = try await base.data(from: url)
            FetchLoadContext.recordFullQuality()
            return body
        case .firstScan(let size):
            find = { ProgressiveJPEG.scan($0) }
            window = size
        case .prefix(let bytes):
            let count = bytes(id)
            guard count >= 1 else {
                throw HTTPLoaderError(.invalidConfiguration,
                    "HTTPPreview.prefix gave \(count) bytes for \(id): a prefix must be at least 1 byte", url: url)
            }
            find = { body in body.count >= count ? .ends(count) : .needsMore }
            window = count
        }
        guard quality == .preview else { return try await full(url, find: find, preview: preview) }
        let (value, isWhole) = try await prefix(url, find: find, window: window)
        guard !isWhole, Self.wantedInFull else { return value }
        // A cell came to want the whole body while the prefix arrived: the preview is shown on the
        // way, and the rest is asked for now, in this load, instead of in a second one.
        preview(value)
        let body = try await full(url, find: find, preview: { _ in })
        FetchLoadContext.recordFullQuality()
        return body
    }

    /// A preview load's answer when it holds the whole body: the whole body, said to be at full
    /// quality when a cell wants it in full now (else the fetcher keeps it as a preview).
    private static func asPreview(whole body: Data) -> (value: Data, isWhole: Bool) {
        guard wantedInFull else { return (body, false) }
        FetchLoadContext.recordFullQuality()
        return (body, true)
    }

    /// Whether the interests in the load under way want the whole body now
    /// (``/PrefetchKit/FetchLoadContext/liveQuality``).
    private static var wantedInFull: Bool { FetchLoadContext.liveQuality?() == .full }

    /// What the bytes so far say about the preview's end.
    typealias Scanner = @Sendable (Data) -> ProgressiveJPEG.Scan

    /// A preview load of a prefix: windows of the body until the prefix is in; the bytes received
    /// are kept for the full load. `isWhole`: the value is the whole body, at full quality (the
    /// body came whole while a cell wanted it in full; said to the fetcher here).
    private func prefix(_ url: URL, find: @escaping Scanner, window: Int) async throws -> (value: Data, isWhole: Bool) {
        try HTTPLoader<ID>.validate(url)
        var kept = base.partials?.take(url)
        // A cap on the windows: each at least doubles the bytes, so 64 cover any body.
        for _ in 0..<64 {
            try Task.checkCancellation()
            let start = kept?.body.count ?? 0
            if let kept {
                switch find(kept.body) {
                case .ends(let end):
                    base.partials?.keep(kept, for: url)
                    return (Data(kept.body.prefix(end)), false)
                case .never:
                    // Not a progressive JPEG: the whole body is the preview.
                    base.partials?.keep(kept, for: url)
                    return Self.asPreview(whole: try await base.data(from: url))
                case .needsMore: break
                }
            }
            let end = start + max(window, start)
            let watch = Self.watch(find, stops: true, onPrefix: { _ in })
            let received: (body: Data, outcome: Exchange.Outcome)
            do {
                received = try await base.transfer(url, resume: kept, rangeEnd: end, watch: watch)
            } catch is AskAgainFromFirstByte {
                kept = nil
                continue
            }
            let (body, outcome) = received
            // The watch stopped a body that came whole (the server ignored `Range`) at the prefix.
            if outcome.prefixFound, !outcome.rangeHonoured { return (body, false) }
            let whole = !outcome.rangeHonoured || outcome.totalLength.map { body.count >= $0 } ?? false
            if whole {
                if !Self.wantedInFull, case .ends(let end) = find(body) { return (Data(body.prefix(end)), false) }
                return Self.asPreview(whole: body)
            }
            guard let validator = outcome.validator else {
                // The part cannot be continued later: the preview if it is in, else the whole body.
                if case .ends(let end) = find(body) { return (Data(body.prefix(end)), false) }
                return Self.asPreview(whole: try await base.data(from: url))
            }
            kept = PartialTransfer(body: body, validator: validator, totalLength: outcome.totalLength)
        }
        throw HTTPLoaderError(.invalidResponse, "GET \(url.absoluteString) did not bring its preview's end in 64 ranges", url: url)
    }

    /// A full load: the body, with the preview handed on as soon as it is in (at once when a
    /// preview load kept it).
    private func full(_ url: URL, find: @escaping Scanner, preview: @escaping @Sendable (Data) -> Void) async throws -> Data {
        if let kept = base.partials?.take(url) {
            base.partials?.keep(kept, for: url)
            if case .ends(let end) = find(kept.body) {
                preview(Data(kept.body.prefix(end)))
                return try await base.data(from: url)
            }
        }
        return try await base.data(from: url, watch: Self.watch(find, stops: false, onPrefix: preview))
    }

    /// A watch for the prefix `find` finds.
    private static func watch(_ find: @escaping Scanner, stops: Bool,
                              onPrefix: @escaping @Sendable (Data) -> Void) -> PrefixWatch {
        PrefixWatch(find: { body in
            if case .ends(let end) = find(body) { return end }
            return nil
        }, stops: stops, onPrefix: onPrefix)
    }
}
