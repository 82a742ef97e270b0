import ArgumentParser
import Foundation
import PrefetchToolSupport

/// The `prefetch-server` command-line flags, checked with ranges named in every error.
///
/// ```
/// prefetch-server --port 0 --items 100000 --thumb-size 16384 \
///     --latency-median-ms 40 --latency-p99-ms 400 --error-rate 0.05 --seed 7 --idle-timeout-ms 5000 \
///     --max-connections 256 --write-timeout-ms 10000
/// ```
public struct ServerOptions: ParsableArguments, Sendable {
    /// The address to bind.
    @Option(help: "The address to bind (loopback by default).")
    public var host: String = "127.0.0.1"

    /// The port; 0 picks a free one.
    @Option(help: "The port to bind, 0...65535; 0 picks a free ephemeral port.")
    public var port: Int = 8080

    /// The number of items in the feed.
    @Option(help: "How many items the feed has, 1...10000000.")
    public var items: Int = 100_000

    /// The thumbnail payload size.
    @Option(name: .customLong("thumb-size"), help: "Bytes per thumbnail, 0...67108864.")
    public var thumbSize: Int = 16 * 1024

    /// The largest page.
    @Option(name: .customLong("max-page"), help: "The largest page /items serves, 1...10000.")
    public var maxPage: Int = 500

    /// The seed of payloads and faults.
    @Option(help: "The seed of payloads and injected faults.")
    public var seed: UInt64 = 1

    /// The latency and the share of requests answered 503 (`--error-rate`, or `--failure-rate`).
    @OptionGroup(title: "Latency and 503s (none unless these say otherwise)")
    public var latency: LatencyOptions

    /// The bandwidth cap.
    @Option(help: "The most body bytes per second per response, 1024...10737418240.")
    public var bandwidth: Int?

    /// One bandwidth budget shared by every response.
    @Option(name: .customLong("server-bandwidth"), help: ArgumentHelp(
        "The most body bytes per second of all responses together, shared fairly among them, more urgent Priority headers first (default: unlimited): \(BandwidthRate.rule).",
        valueName: "rate"), transform: { try BandwidthRate.parse($0) })
    public var serverBandwidth: BandwidthRate?

    /// Share the `--server-bandwidth` budget alike among all bodies, whatever their `Priority` header.
    @Flag(name: .customLong("ignore-priority"),
          help: "With --server-bandwidth: share the link alike among all bodies, ignoring the requests' Priority headers (RFC 9218); by default more urgent bodies go first.")
    public var ignorePriority = false

    /// The reset rate.
    @Option(name: .customLong("reset-rate"), help: "The share of responses reset mid-body, 0...1.")
    public var resetRate: Double = 0

    /// The slow-body rate.
    @Option(name: .customLong("slow-body-rate"), help: "The share of responses whose body pauses between chunks, 0...1.")
    public var slowBodyRate: Double = 0

    /// The pause of a slow body.
    @Option(name: .customLong("slow-body-delay-ms"), help: "The pause between chunks of a slow body, 0...60000 ms.")
    public var slowBodyDelayMs: Double = 200

    /// Forced errors per path.
    @Option(name: .customLong("fail-first"), help: "Answer the first N requests to each path with 503, 0...1000.")
    public var failFirst: Int = 0

    /// Forced resets per path.
    @Option(name: .customLong("reset-first"), help: "Reset the next N requests to each path mid-body, 0...1000.")
    public var resetFirst: Int = 0

    /// The idle timeout: how long a connection may keep the server waiting before it is closed.
    @Option(name: .customLong("idle-timeout-ms"),
            help: "Close a connection that sends nothing, or stalls mid-request or between requests, for this long, 1...600000 ms.")
    public var idleTimeoutMs: Double = 5_000

    /// The most connections open at once.
    @Option(name: .customLong("max-connections"),
            help: "The most connections open at once, 1...65536 (fewer when the descriptor limit is low); beyond it a new connection takes the place of one that has kept the server waiting at least a second, or gets 503.")
    public var maxConnections: Int = 256

    /// The write timeout: how long a response may go unread before its connection is closed.
    @Option(name: .customLong("write-timeout-ms"),
            help: "Close a connection whose client has read none of its response for this long, 1...600000 ms.")
    public var writeTimeoutMs: Double = 10_000

    /// Creates the options with their defaults.
    public init() {}

    /// Checks every flag: the error names the flag, the value and the accepted range.
    public mutating func validate() throws {
        do {
            _ = try configuration()
        } catch let error as ServerConfigurationError {
            throw ValidationError(error.message)
        }
    }

    /// The server configuration these flags describe.
    ///
    /// - Throws: ``ServerConfigurationError`` naming the flag, the value and the accepted range.
    public func configuration() throws -> ServerConfiguration {
        func range<T: Comparable>(_ flag: String, _ value: T, _ range: ClosedRange<T>) throws {
            guard range.contains(value) else {
                throw ServerConfigurationError("\(flag) must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
            }
        }
        func rate(_ flag: String, _ value: Double) throws {
            guard value.isFinite, (0...1).contains(value) else {
                throw ServerConfigurationError("\(flag) must be in 0...1, got \(value)")
            }
        }
        func milliseconds(_ flag: String, _ value: Double) throws -> Duration {
            let upper = Double(ServerConfiguration.Limits.latencyMilliseconds.upperBound)
            guard value.isFinite, value >= 0, value <= upper else {
                throw ServerConfigurationError("\(flag) must be in 0...\(upper.formatted()) ms, got \(value)")
            }
            return .microseconds(Int64((value * 1000).rounded()))
        }
        typealias Limits = ServerConfiguration.Limits
        var c = ServerConfiguration()
        guard !host.isEmpty else { throw ServerConfigurationError("--host must not be empty") }
        c.host = host
        try range("--port", port, Limits.port); c.port = port
        try range("--items", items, Limits.itemCount); c.itemCount = items
        try range("--thumb-size", thumbSize, Limits.thumbnailSize); c.thumbnailSize = thumbSize
        try range("--max-page", maxPage, Limits.maxPageSize); c.maxPageSize = maxPage
        c.seed = seed
        do { c.faults.latency = try latency.model(default: c.faults.latency) } catch let error as ValidationError {
            throw ServerConfigurationError(error.message)
        }
        if let bandwidth { try range("--bandwidth", bandwidth, Limits.bandwidth) }
        c.faults.bandwidth = bandwidth
        c.sharedBandwidth = serverBandwidth?.bytesPerSecond
        if ignorePriority, serverBandwidth == nil {
            throw ServerConfigurationError("--ignore-priority only applies with --server-bandwidth (priority orders the bodies sharing that budget)")
        }
        c.honoursPriority = !ignorePriority
        try rate("--reset-rate", resetRate); c.faults.resetRate = resetRate
        try rate("--slow-body-rate", slowBodyRate); c.faults.slowBodyRate = slowBodyRate
        c.faults.slowBodyDelay = try milliseconds("--slow-body-delay-ms", slowBodyDelayMs)
        try range("--fail-first", failFirst, Limits.forcedFaults); c.faults.failFirst = failFirst
        try range("--reset-first", resetFirst, Limits.forcedFaults); c.faults.resetFirst = resetFirst
        let idleLimits = Double(Limits.idleTimeoutMilliseconds.lowerBound)...Double(Limits.idleTimeoutMilliseconds.upperBound)
        guard idleTimeoutMs.isFinite, idleLimits.contains(idleTimeoutMs) else {
            throw ServerConfigurationError("--idle-timeout-ms must be in \(Limits.idleTimeoutMilliseconds.lowerBound)...\(Limits.idleTimeoutMilliseconds.upperBound) ms, got \(idleTimeoutMs)")
        }
        c.idleTimeout = .microseconds(Int64((idleTimeoutMs * 1000).rounded()))
        try range("--max-connections", maxConnections, Limits.maxConnections); c.maxConnections = maxConnections
        let writeLimits = Double(Limits.writeTimeoutMilliseconds.lowerBound)...Double(Limits.writeTimeoutMilliseconds.upperBound)
        guard writeTimeoutMs.isFinite, writeLimits.contains(writeTimeoutMs) else {
            throw ServerConfigurationError("--write-timeout-ms must be in \(Limits.writeTimeoutMilliseconds.lowerBound)...\(Limits.writeTimeoutMilliseconds.upperBound) ms, got \(writeTimeoutMs)")
        }
        c.writeTimeout = .microseconds(Int64((writeTimeoutMs * 1000).rounded()))
        try c.validate()
        return c
    }
}
