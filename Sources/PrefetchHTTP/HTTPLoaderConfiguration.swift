import Foundation

/// Timeouts, size limit, connection cap and resumption bounds of an ``HTTPLoader``, checked when
/// the loader is created.
///
/// ```swift
/// var configuration = HTTPLoaderConfiguration()
/// configuration.connectTimeout = .seconds(2)
/// configuration.maxResponseSize = 2 * 1024 * 1024
/// let loader = try HTTPLoader<Int>(configuration: configuration) { id in
///     URL(string: "https://cdn.example.com/thumb/\(id)")!
/// }
/// ```
public struct HTTPLoaderConfiguration: Sendable {
    /// The longest wait from starting a request until the response head arrives (default 10 s).
    ///
    /// It covers name resolution, the TCP and TLS handshakes and the server's time to the first
    /// byte: URLSession on Linux exposes no separate handshake timeout. More than zero.
    /// It also counts the time a request waits for a connection behind ``maxConnectionsPerHost``.
    public var connectTimeout: Duration = .seconds(10)
    /// The longest a whole request may take, body included (default 30 s). At least ``connectTimeout``.
    ///
    /// It counts from the moment the request is started, so time spent waiting behind ``maxConnectionsPerHost`` counts too.
    public var totalTimeout: Duration = .seconds(30)
    /// The largest body accepted, in bytes (default 10 MiB). At least 0.
    ///
    /// A larger body fails with ``HTTPLoaderError/Code/responseTooLarge``: at once when the
    /// `Content-Length` says so, otherwise as soon as the streamed bytes pass the limit. The
    /// download is cancelled and its connection closed; nothing is returned, so nothing is cached.
    public var maxResponseSize: Int = 10 * 1024 * 1024
    /// The most connections open to one host at once (default 12). At least 1.
    ///
    /// Over HTTP/1.1 a connection carries one request at a time, so at most this many loads of a
    /// host run at once, whatever the fetcher's cap. A fetcher with preview slots runs up to
    /// `maxConcurrentLoads + previewSlots` loads (6 + 6 by default), and the default gives each a
    /// connection: with fewer, its previews wait for a connection behind the full values. A fetcher
    /// without previews runs at most `maxConcurrentLoads`, so the connections it does not use are
    /// never opened. HTTP/2 and HTTP/3 carry every request on one connection.
    public var maxConnectionsPerHost: Int = 12
    /// Header fields added to every request, such as `Accept` or `Authorization`.
    ///
    /// They are sent to the origin (scheme, host and port) of the URL asked for, and kept across a
    /// redirect within that origin. A redirect to another origin carries none of them, nor any
    /// `Authorization`, `Cookie` or `Proxy-Authorization`; a redirect from `https` to `http` is
    /// refused with ``HTTPLoaderError/Code/insecureRedirect``.
    ///
    /// A `Range` among them asks each URL for part of its body: the server's `206` is the value.
    public var headers: [String: String] = [:]
    /// The most stopped transfers whose bytes are kept for resuming (default 16). At least 0; 0 turns
    /// resuming off.
    ///
    /// When a load is cancelled or its connection fails mid-body, and its response carried a
    /// validator (a strong `ETag`, or a `Last-Modified` at least a second older than its `Date`),
    /// the bytes received so far are kept; the next load of the same URL asks only for the rest,
    /// with `Range: bytes=N-` and `If-Range`. A `206` with a matching `Content-Range` continues the
    /// kept bytes; a `200` starts over (the resource changed, or the server ignores ranges); a `416`
    /// or a `Content-Range` that does not fit asks again from the first byte. Kept bytes are never
    /// returned on their own: a load returns a whole body or throws. The least recently stopped
    /// transfer is forgotten first. Resuming is off when ``headers`` set `Range` or `If-Range`.
    public var maxPartialTransfers: Int = 16
    /// The most bytes kept across all stopped transfers (default 8 MiB). At least 0; 0 turns
    /// resuming off. A stopped transfer larger than this on its own is not kept.
    public var maxPartialBytes: Int = 8 * 1024 * 1024
    /// Whether each request carries its load's urgency (default on): the `Priority` header of
    /// HTTP's extensible priorities (RFC 9218), `u=1` for a visible cell's load and `u=3` for a
    /// prefetch (``/PrefetchKit/FetchPriority/urgency``), and a matching `URLSessionTask.priority`, which moves
    /// as the load's priority changes while it runs (a prefetched cell comes on screen).
    ///
    /// On a saturated link a server or CDN that honours priorities sends the visible cells'
    /// bytes before the prefetches'; one that does not ignores the header. Outside a fetcher's
    /// load nothing is sent, and a `Priority` in ``headers`` is sent as given instead.
    public var sendsPriority = true
    /// Called with the number of body bytes of each chunk as it arrives, and the URL asked for
    /// (default none): the bytes on the wire, counting those of loads later cancelled or failed
    /// and not those a resumed load did not ask for again.
    ///
    /// It runs on the session's delegate queue; keep it short and do not block.
    public var onBytesReceived: (@Sendable (_ url: URL, _ bytes: Int) -> Void)?

    /// Creates a configuration with the defaults.
    public init() {}

    /// Whether stopped transfers are kept and resumed: both bounds above zero, and no `Range` or
    /// `If-Range` among the configured headers.
    var resumes: Bool {
        maxPartialTransfers > 0 && maxPartialBytes > 0
            && !headers.keys.contains { ["range", "if-range"].contains($0.lowercased()) }
    }

    /// Throws ``HTTPLoaderError`` with code ``HTTPLoaderError/Code/invalidConfiguration`` naming a value out of range.
    package func validate() throws {
        func fail(_ message: String) -> HTTPLoaderError {
            HTTPLoaderError(.invalidConfiguration, "HTTPLoaderConfiguration \(message)")
        }
        guard connectTimeout > .zero else { throw fail("connectTimeout must be more than zero, got \(connectTimeout)") }
        guard totalTimeout >= connectTimeout else {
            throw fail("totalTimeout (\(totalTimeout)) must be at least connectTimeout (\(connectTimeout))")
        }
        guard maxResponseSize >= 0 else { throw fail("maxResponseSize must be 0 or more bytes, got \(maxResponseSize)") }
        guard maxConnectionsPerHost >= 1 else {
            throw fail("maxConnectionsPerHost must be at least 1, got \(maxConnectionsPerHost)")
        }
        guard maxPartialTransfers >= 0 else {
            throw fail("maxPartialTransfers must be 0 (no resuming) or more, got \(maxPartialTransfers)")
        }
        guard maxPartialBytes >= 0 else {
            throw fail("maxPartialBytes must be 0 (no resuming) or more bytes, got \(maxPartialBytes)")
        }
    }
}
