import Foundation
import PrefetchToolSupport
import PrefetchTesting

/// Faults the server injects, each decided per request from the seed, the path and the attempt.
///
/// The same seed gives the same faults for the n-th request to a path, whatever the order in
/// which requests to different paths arrive.
public struct FaultConfiguration: Sendable, Hashable {
    /// Added latency before the response head (at most 60 s), and the share of requests answered
    /// `503 Service Unavailable` (the model's `failureRate`); none by default.
    public var latency = try! LatencyModel(.fixed(.zero))
    /// The most body bytes per second per response, or `nil` for no cap.
    public var bandwidth: Int?
    /// The share of responses whose connection is reset (TCP RST) half-way through the body, from 0 to 1.
    public var resetRate: Double = 0
    /// The share of responses whose body pauses ``slowBodyDelay`` between chunks, from 0 to 1.
    public var slowBodyRate: Double = 0
    /// The pause between body chunks of a slow body.
    public var slowBodyDelay: Duration = .milliseconds(200)
    /// The first this many requests to each path are answered `503`, before any other fault.
    public var failFirst: Int = 0
    /// The next this many requests to each path (after ``failFirst``) have their connection reset mid-body.
    public var resetFirst: Int = 0

    /// Creates a configuration with no faults.
    public init() {}
}

/// The settings of a ``DataServer``.
public struct ServerConfiguration: Sendable {
    /// The address to bind (default `127.0.0.1`, loopback only); an IPv6 address with or without
    /// brackets (`::1` or `[::1]`).
    public var host: String = "127.0.0.1"
    /// The port to bind; 0 picks a free ephemeral port (default 8080).
    public var port: Int = 8080
    /// How many items the feed has (default 100,000).
    public var itemCount: Int = 100_000
    /// The size of each thumbnail payload in bytes (default 16 KiB).
    public var thumbnailSize: Int = 16 * 1024
    /// The largest page `/items` serves (default 500).
    public var maxPageSize: Int = 500
    /// The seed of the payloads and of every injected fault.
    public var seed: UInt64 = 1
    /// The faults to inject.
    public var faults = FaultConfiguration()
    /// The most body bytes per second of all responses together, or `nil` (the default) for no limit.
    ///
    /// One budget for every connection, as one link is for a phone: the responses being sent
    /// share it fairly (chunk by chunk, in turn), so each of N concurrent bodies gets about 1/N
    /// of it, unless their `Priority` headers rank them (``honoursPriority``). It applies beside
    /// the per-response ``FaultConfiguration/bandwidth``.
    public var sharedBandwidth: Int?
    /// Whether the ``sharedBandwidth`` budget honours the requests' RFC 9218 `Priority` headers
    /// (default `true`).
    ///
    /// When it does, a body waits while bodies of more urgent requests (a lower `u`) are being
    /// sent and keep the link busy, and bodies of the same urgency share the link as above; when
    /// the more urgent bodies leave the link idle (held to their own ``FaultConfiguration/bandwidth``,
    /// paused, or not read by their client), the waiting ones use it meanwhile. A request without
    /// the header, or with one that is not valid, has the default urgency, 3. When it does not,
    /// every body shares the link alike, whatever its urgency. Without a ``sharedBandwidth`` it
    /// changes nothing.
    public var honoursPriority = true
    /// How long a connection may keep the server waiting for the client before the server closes it
    /// (default 5 s).
    ///
    /// It applies to every connection while the server waits on the client: one that sends nothing
    /// after it connects, one that stops half-way through a request head or body, and an idle
    /// keep-alive connection between requests. The clock restarts at each part of a request the
    /// server has parsed (the head, each body chunk) and when a response ends, so a head must arrive
    /// whole within the timeout however slowly it trickles in. It does not apply while the server
    /// answers: injected latency, bandwidth caps and slow bodies run as long as they take.
    ///
    /// Five seconds because every client of this server is on loopback, where a whole request head
    /// arrives within a millisecond of the connection, and the longest legitimate silence is the gap
    /// between two requests on a keep-alive connection, which a client closes or reuses quickly; a
    /// connection closed after a longer gap costs only a new loopback handshake. Five seconds frees
    /// the descriptor of a stalled or abandoned connection soon, and is far above any pause of a
    /// working client even on a loaded machine.
    public var idleTimeout: Duration = .seconds(5)
    /// The most connections open at once (default 256); the server holds fewer when its process
    /// may open few descriptors (``DataServer/connectionLimit``).
    ///
    /// A new connection beyond the limit takes the place of the open connection that has kept the
    /// server waiting for a request longest (idle, or sending its request slowly), if that one has
    /// waited at least a second; otherwise it is answered `503` and closed at once. Either way the
    /// server keeps descriptors to spare: one that ran out of them stopped accepting for a second
    /// at a time, and every client waited.
    public var maxConnections: Int = 256
    /// The longest request body the server reads, in bytes (default 1,024).
    ///
    /// No route takes a body. A request whose `Content-Length` is larger gets `413` and its
    /// connection is closed, before any route sees it; one whose body (chunked) grows past the
    /// limit has its connection closed.
    public var maxRequestBodySize: Int = 1_024
    /// How long a request body may take to arrive whole after its head, or `nil` (the default)
    /// for the ``idleTimeout``.
    ///
    /// The ``idleTimeout`` restarts at each body part, so without this a body sent a byte every
    /// few seconds held its connection for ever. The head itself must arrive within the
    /// ``idleTimeout``, so a whole request arrives within the two together or its connection is
    /// closed. By default a body that stalls is closed when the idle timeout would close it, and
    /// one that trickles no later.
    public var requestBodyTimeout: Duration?
    /// How long a response may go without progress before its connection is closed (default 10 s):
    /// bytes wait for the client, and it takes none of them.
    ///
    /// It counts only time when the server has bytes waiting for the client: the injected latency,
    /// bandwidth caps and slow bodies leave none, whatever their pauses. A stalled response holds
    /// one chunk (at most 16 KiB) and what NIO buffers for its socket until then, never its whole
    /// body: the bytes are made as they are sent.
    public var writeTimeout: Duration = .seconds(10)
    /// How long a server stopped by SIGTERM or SIGINT lets the responses under way finish before it
    /// closes every connection that is left (default 1 s).
    ///
    /// At the signal it stops accepting and closes its idle connections; then it waits for the
    /// others at most this long, so it exits within about this long whatever its clients do.
    public var shutdownGracePeriod: Duration = .seconds(1)
    /// How long a connection must have kept the server waiting for a request before a new
    /// connection at the limit may take its place (1 s): a working client on loopback sends its
    /// request within milliseconds of connecting.
    var connectionEvictionAge: Duration = .seconds(1)

    /// The accepted ranges, used by ``validate()`` and by the command line.
    public enum Limits {
        /// Ports.
        public static let port = 0...65_535
        /// Item counts.
        public static let itemCount = 1...10_000_000
        /// Thumbnail sizes, in bytes.
        public static let thumbnailSize = 0...(64 * 1024 * 1024)
        /// Page sizes.
        public static let maxPageSize = 1...10_000
        /// Latencies, in milliseconds.
        public static let latencyMilliseconds = 0...60_000
        /// Bandwidth caps, in bytes per second.
        public static let bandwidth = 1_024...(10 * 1024 * 1024 * 1024)
        /// Shared bandwidths, in bytes per second: 8 kbit/s to 100 Gbit/s.
        public static let sharedBandwidth = 1_000...12_500_000_000
        /// Rates.
        public static let rate = 0.0...1.0
        /// Counts of forced faults per path.
        public static let forcedFaults = 0...1_000
        /// Idle timeouts, in milliseconds: more than zero (a connection must get a chance to send its
        /// request) and at most 10 minutes.
        public static let idleTimeoutMilliseconds = 1...600_000
        /// Connection limits: at least one.
        public static let maxConnections = 1...65_536
        /// Request body limits, in bytes: none (0) to 1 MiB.
        public static let maxRequestBodySize = 0...(1024 * 1024)
        /// Request body timeouts, in milliseconds: more than zero and at most 10 minutes.
        public static let requestBodyTimeoutMilliseconds = 1...600_000
        /// Write timeouts, in milliseconds: more than zero and at most 10 minutes.
        public static let writeTimeoutMilliseconds = 1...600_000
        /// Shutdown grace periods, in milliseconds: none (0) to 1 minute.
        public static let shutdownGraceMilliseconds = 0...60_000
    }

    /// Creates a configuration with the defaults.
    public init() {}

    /// Whether `host` is a loopback address: `localhost`, `127.0.0.0/8` or `::1`.
    ///
    /// `prefetch-server` warns when it binds anything else: the server has no authentication.
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// `host` as it goes in a URL: an IPv6 address in brackets (`[::1]`, given as `::1` or
    /// `[::1]`, a zone's `%` escaped), anything else as given (`127.0.0.1`, `localhost`).
    package static func urlHost(_ host: String) -> String {
        let bare = bindHost(host)
        return bare.contains(":") ? "[\(bare.replacingOccurrences(of: "%", with: "%25"))]" : bare
    }

    /// `host` as the server binds it: an IPv6 address without the brackets a URL puts around it
    /// (`::1` for `[::1]`), anything else as given.
    static func bindHost(_ host: String) -> String {
        host.count > 2 && host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Throws ``ServerConfigurationError`` naming the first value out of range and the accepted range.
    public func validate() throws {
        func check<T: Comparable>(_ name: String, _ value: T, _ range: ClosedRange<T>) throws {
            guard range.contains(value) else {
                throw ServerConfigurationError("\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
            }
        }
        guard !host.isEmpty else { throw ServerConfigurationError("host must not be empty") }
        try check("port", port, Limits.port)
        try check("itemCount", itemCount, Limits.itemCount)
        try check("thumbnailSize", thumbnailSize, Limits.thumbnailSize)
        try check("maxPageSize", maxPageSize, Limits.maxPageSize)
        let longest = switch faults.latency.distribution {
        case .fixed(let latency), .logNormal(_, let latency), .bandwidth(let latency, _): latency   // a log-normal's p99
        }
        try check("latency (ms)", Self.milliseconds(longest), 0...Double(Limits.latencyMilliseconds.upperBound))
        if let bandwidth = faults.bandwidth { try check("bandwidth (bytes/s)", bandwidth, Limits.bandwidth) }
        if let sharedBandwidth { try check("sharedBandwidth (bytes/s)", sharedBandwidth, Limits.sharedBandwidth) }
        for (name, rate) in [("resetRate", faults.resetRate), ("slowBodyRate", faults.slowBodyRate)] {
            guard rate.isFinite else { throw ServerConfigurationError("\(name) must be in 0.0...1.0, got \(rate)") }
            try check(name, rate, Limits.rate)
        }
        try check("slowBodyDelay (ms)", Self.milliseconds(faults.slowBodyDelay), 0...Double(Limits.latencyMilliseconds.upperBound))
        try check("failFirst", faults.failFirst, Limits.forcedFaults)
        try check("resetFirst", faults.resetFirst, Limits.forcedFaults)
        try check("idleTimeout (ms)", Self.milliseconds(idleTimeout), Self.doubles(Limits.idleTimeoutMilliseconds))
        try check("maxConnections", maxConnections, Limits.maxConnections)
        try check("maxRequestBodySize (bytes)", maxRequestBodySize, Limits.maxRequestBodySize)
        if let requestBodyTimeout {
            try check("requestBodyTimeout (ms)", Self.milliseconds(requestBodyTimeout), Self.doubles(Limits.requestBodyTimeoutMilliseconds))
        }
        try check("writeTimeout (ms)", Self.milliseconds(writeTimeout), Self.doubles(Limits.writeTimeoutMilliseconds))
        try check("shutdownGracePeriod (ms)", Self.milliseconds(shutdownGracePeriod), Self.doubles(Limits.shutdownGraceMilliseconds))
        try check("connectionEvictionAge (ms)", Self.milliseconds(connectionEvictionAge), 0...600_000)
    }

    private static func doubles(_ range: ClosedRange<Int>) -> ClosedRange<Double> {
        Double(range.lowerBound)...Double(range.upperBound)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15
    }
}

/// A server setting out of its range: the message names the value and the accepted range.
public struct ServerConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The value, the rule, and what was given.
    public let message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
