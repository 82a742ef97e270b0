import Foundation

/// Timeouts, size limit and connection cap of an ``HTTPLoader``, checked when the loader is created.
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
    public var connectTimeout: Duration = .seconds(10)
    /// The longest a whole request may take, body included (default 30 s). At least ``connectTimeout``.
    public var totalTimeout: Duration = .seconds(30)
    /// The largest body accepted, in bytes (default 10 MiB). At least 0.
    ///
    /// A larger body fails with ``HTTPLoaderError/Code/responseTooLarge``: at once when the
    /// `Content-Length` says so, otherwise as soon as the streamed bytes pass the limit. The
    /// download is cancelled and its connection closed; nothing is returned, so nothing is cached.
    public var maxResponseSize: Int = 10 * 1024 * 1024
    /// The most connections open to one host at once (default 6). At least 1.
    public var maxConnectionsPerHost: Int = 6
    /// Header fields added to every request, such as `Accept` or `Authorization`.
    ///
    /// They are sent to the origin (scheme, host and port) of the URL asked for, and kept across a
    /// redirect within that origin. A redirect to another origin carries none of them, nor any
    /// `Authorization`, `Cookie` or `Proxy-Authorization`; a redirect from `https` to `http` is
    /// refused with ``HTTPLoaderError/Code/insecureRedirect``.
    public var headers: [String: String] = [:]

    /// Creates a configuration with the defaults.
    public init() {}

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
    }
}
