import Foundation
import PrefetchSupport
import PrefetchTesting

/// How the simulated loads share the network: each on a link of its own, or all on one link.
///
/// On a phone every transfer shares one radio, so six loads at once take longer than one and a
/// prefetch that is never shown delays the cells that are. ``shared(_:)`` models that; it is
/// `prefetch-bench`'s default. ``independent`` is the simulator's first model, kept so older
/// numbers can be reproduced exactly.
///
/// ```swift
/// import PrefetchSimulation
/// import PrefetchTesting
///
/// var configuration = SimulationConfiguration()
/// configuration.latency = LatencyProfile.emerging.model
/// configuration.network = .shared(SharedLink(.emerging, http: .http1_1))
/// ```
public enum NetworkModel: Sendable, Hashable, CustomStringConvertible {
    /// Every attempt's latency is drawn on its own, whatever else is loading, and a load moves
    /// the scenario's fixed payload at its end: waste costs nothing but a counter.
    case independent
    /// Every attempt is a request round trip (the latency model's draw) followed by its payload's
    /// transfer through one link whose capacity the transfers running at that moment share equally.
    case shared(SharedLink)

    /// `independent`, or `shared` with the link, e.g. `shared(10.0 Mbit/s, HTTP/2, …)`.
    public var description: String {
        switch self {
        case .independent: "independent"
        case .shared(let link): "shared(\(link))"
        }
    }
}

/// One link that every transfer shares: its capacity, the HTTP version, and the payload sizes.
public struct SharedLink: Sendable, Hashable, CustomStringConvertible {
    /// The link's capacity, in bytes per second, shared equally by the transfers running at once.
    public let capacityBytesPerSecond: Double
    /// How requests reach the host.
    public let http: HTTPVersion
    /// The payload size of each item (unless the scenario gives its own).
    public let sizes: PayloadSizes

    /// A link of `capacityBytesPerSecond`.
    /// - Throws: ``SimulationError`` when the capacity is not a finite number greater than 0.
    public init(capacityBytesPerSecond: Double, http: HTTPVersion = .http2, sizes: PayloadSizes = .standard) throws {
        guard capacityBytesPerSecond.isFinite, capacityBytesPerSecond > 0 else {
            throw SimulationError("link capacity is \(capacityBytesPerSecond) bytes/s, but it must be a finite number greater than 0")
        }
        self.capacityBytesPerSecond = capacityBytesPerSecond
        self.http = http
        self.sizes = sizes
    }

    /// The link of a latency profile: its capacity (see `LatencyProfile/linkCapacityBytesPerSecond`).
    public init(_ profile: LatencyProfile, http: HTTPVersion = .http2, sizes: PayloadSizes = .standard) {
        self.capacityBytesPerSecond = profile.linkCapacityBytesPerSecond
        self.http = http
        self.sizes = sizes
    }

    /// `10.0 Mbit/s, HTTP/2, sizes logNormal(median 60000 B, p99 600000 B)`.
    public var description: String {
        "\(capacityBytesPerSecond * 8 / 1e6) Mbit/s, \(http), sizes \(sizes)"
    }
}

/// The HTTP version of a shared link, which decides how many requests can be under way at once.
public enum HTTPVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// At most six connections to the host (the browsers' and `URLSession`'s usual limit); a
    /// seventh request waits for one to free.
    case http1_1 = "1.1"
    /// Any number of streams on one connection.
    case http2 = "2"

    /// The most requests under way at once, or nil for no limit.
    var maxConnections: Int? { self == .http1_1 ? 6 : nil }

    /// `HTTP/1.1` or `HTTP/2`.
    public var description: String { "HTTP/\(rawValue)" }
}

/// The payload size of each item.
public enum PayloadSizes: Sendable, Hashable, CustomStringConvertible {
    /// Every item has the same size, in bytes.
    case fixed(Int)
    /// Sizes drawn per item (the same item always has the same size for a seed) from a
    /// log-normal distribution of this median and 99th percentile, in bytes.
    case logNormal(median: Int, p99: Int)
    /// The size of each item, by index (a trace's `itemBytes`); items past the end have the last size.
    case perItem([Int])

    /// Feed thumbnails: median 60 KB, 99th percentile 600 KB.
    public static let standard = PayloadSizes.logNormal(median: 60_000, p99: 600_000)

    /// Throws when a size is negative, or the log-normal's median is not above 0 or its p99 below the median.
    func validate() throws {
        switch self {
        case .fixed(let bytes) where bytes < 0:
            throw SimulationError("payload size is \(bytes) bytes, but it must be 0 or more")
        case .logNormal(let median, let p99) where median <= 0 || p99 < median:
            throw SimulationError("payload sizes median \(median) B, p99 \(p99) B: the median must be above 0 and the p99 at least the median")
        case .perItem(let sizes):
            guard !sizes.isEmpty else { throw SimulationError(path: "itemBytes", "needs at least one size") }
            if let i = sizes.firstIndex(where: { $0 < 0 }) {
                throw SimulationError(path: "itemBytes[\(i)]", "size \(sizes[i]) must be 0 or more")
            }
        default:
            break
        }
    }

    /// The size of `item` for `seed`, in bytes.
    func bytes(item: Int, seed: UInt64) -> Int {
        switch self {
        case .fixed(let bytes):
            return bytes
        case .perItem(let sizes):
            return sizes[min(max(item, 0), sizes.count - 1)]
        case .logNormal(let median, let p99):
            var rng = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: item) &* 0x9E37_79B9_7F4A_7C15) ^ 0x5349_5A45)
            let u1 = max(rng.nextUnitInterval(), 1e-300), u2 = rng.nextUnitInterval()
            let sigma = log(Double(p99) / Double(median)) / 2.326_347_874
            let normal = sqrt(-2 * log(u1)) * cos(2 * Double.pi * u2)
            return Int(min(Double(median) * exp(sigma * normal), 1e12).rounded())
        }
    }

    /// `fixed(50000 B)`, `logNormal(median 60000 B, p99 600000 B)` or `perItem(1000 sizes)`.
    public var description: String {
        switch self {
        case .fixed(let bytes): "fixed(\(bytes) B)"
        case .logNormal(let median, let p99): "logNormal(median \(median) B, p99 \(p99) B)"
        case .perItem(let sizes): "perItem(\(sizes.count) sizes)"
        }
    }
}

/// When each attempt on the network ends: a pure timeline, with no locks, clocks or tasks.
///
/// Under ``NetworkModel/independent`` an attempt ends at its start plus its drawn latency.
/// Under ``NetworkModel/shared(_:)`` it first waits for a connection (HTTP/1.1's six), then
/// spends its drawn latency on the request's round trip, then moves its bytes at the link's
/// capacity divided by the number of transfers running (a fluid model: rates change only
/// when a transfer starts or stops). A failing attempt fails at the end of its round trip,
/// having moved no bytes. ``SimulatedNetwork`` keeps one and asks it for the next event.
struct NetworkTimeline: Sendable {
    enum Phase: Sendable, Hashable {
        case waitingForConnection
        case roundTrip(end: Duration)
        case transfer(remaining: Double)
    }

    struct Attempt: Sendable, Hashable {
        var item: Int
        var bytes: Int
        var roundTrip: Duration
        var fails: Bool
        var phase: Phase
    }

    /// What the next event does.
    enum Event: Sendable, Hashable {
        /// The attempt `key` ends (with its bytes, or failing).
        case ends(key: Int)
        /// The attempt `key`'s round trip ends and its transfer begins: nothing the fetcher sees.
        case transferBegins(key: Int)
    }

    let model: NetworkModel
    private(set) var attempts: [Int: Attempt] = [:]
    /// Keys waiting for a connection, first come first served.
    private var connectionQueue: [Int] = []
    /// The time the transfers' remaining bytes were last brought up to date, in seconds.
    private var linkTime = 0.0
    /// Bytes moved over the link: finished payloads and parts of stopped ones.
    private(set) var bytesOnWire = 0.0
    /// Bytes moved by transfers stopped before their end.
    private(set) var bytesStopped = 0.0

    init(model: NetworkModel) { self.model = model }

    private var link: SharedLink? {
        if case .shared(let link) = model { link } else { nil }
    }

    private var transferCount: Int {
        attempts.values.count { if case .transfer = $0.phase { true } else { false } }
    }

    private var connectionsInUse: Int {
        attempts.values.count { $0.phase != .waitingForConnection }
    }

    /// Starts attempt `key` at `now`: its round trip (or, independent, its whole latency) is `roundTrip`.
    mutating func start(key: Int, item: Int, bytes: Int, roundTrip: Duration, fails: Bool, at now: Duration) {
        catchUp(to: now)
        var attempt = Attempt(item: item, bytes: bytes, roundTrip: roundTrip, fails: fails, phase: .roundTrip(end: now + roundTrip))
        if let limit = link?.http.maxConnections, connectionsInUse >= limit {
            attempt.phase = .waitingForConnection
            connectionQueue.append(key)
        }
        attempts[key] = attempt
    }

    /// Stops attempt `key` at `now` (cancelled): its bytes so far stay on the wire, counted as stopped.
    mutating func stop(key: Int, at now: Duration) {
        catchUp(to: now)
        guard let attempt = attempts.removeValue(forKey: key) else { return }
        connectionQueue.removeAll { $0 == key }
        if case .transfer(let remaining) = attempt.phase { bytesStopped += Double(attempt.bytes) - remaining }
        if attempt.phase != .waitingForConnection { admitWaiting(at: now) }
    }

    /// The next event and when it happens (ties by item, then key), or nil when nothing runs.
    func nextEvent() -> (time: Duration, item: Int, event: Event)? {
        let sharing = Double(max(transferCount, 1))
        var best: (time: Duration, item: Int, key: Int, event: Event)?
        for (key, attempt) in attempts {
            let candidate: (Duration, Event)
            switch attempt.phase {
            case .waitingForConnection:
                continue
            case .roundTrip(let end):
                candidate = (end, link == nil || attempt.fails ? .ends(key: key) : .transferBegins(key: key))
            case .transfer(let remaining):
                let seconds = linkTime + remaining * sharing / (link?.capacityBytesPerSecond ?? 1)
                candidate = (.seconds(exactly: seconds), .ends(key: key))
            }
            if best.map({ (candidate.0, attempt.item, key) < ($0.time, $0.item, $0.key) }) ?? true {
                best = (candidate.0, attempt.item, key, candidate.1)
            }
        }
        return best.map { ($0.time, $0.item, $0.event) }
    }

    /// Takes `event` at `time` (the time ``nextEvent()`` gave). Returns the attempt that ended, if one did.
    mutating func take(_ event: Event, at time: Duration) -> Attempt? {
        catchUp(to: time)
        switch event {
        case .transferBegins(let key):
            if let bytes = attempts[key]?.bytes { attempts[key]?.phase = .transfer(remaining: Double(bytes)) }
            return nil
        case .ends(let key):
            guard let attempt = attempts.removeValue(forKey: key) else { return nil }
            if case .transfer(let remaining) = attempt.phase {
                bytesOnWire += remaining   // the last sliver the clock's rounding left
            } else if link == nil, !attempt.fails {
                bytesOnWire += Double(attempt.bytes)   // independent: the payload arrives at the end
            }
            admitWaiting(at: time)
            return attempt
        }
    }

    /// When attempts waiting or running now are expected to end, by item, if the link's sharing
    /// stayed as it is: the clairvoyant reference plans with it.
    func expectedEnds(at now: Duration) -> [Int: Duration] {
        let capacity = link?.capacityBytesPerSecond ?? 1
        let sharing = Double(max(transferCount, 1))
        var ends: [Int: Duration] = [:]
        for attempt in attempts.values {
            switch attempt.phase {
            case .waitingForConnection:
                ends[attempt.item] = now + attempt.roundTrip + .seconds(exactly: Double(attempt.bytes) * (sharing + 1) / capacity)
            case .roundTrip(let end):
                ends[attempt.item] = link == nil || attempt.fails ? end
                    : end + .seconds(exactly: Double(attempt.bytes) * (sharing + 1) / capacity)
            case .transfer(let remaining):
                ends[attempt.item] = .seconds(exactly: linkTime + remaining * sharing / capacity)
            }
        }
        return ends
    }

    /// How long moving `bytes` takes when `sharers` transfers share the link (0 when independent).
    func transferSeconds(_ bytes: Int, sharers: Int) -> Double {
        guard let link else { return 0 }
        return Double(bytes) * Double(max(sharers, 1)) / link.capacityBytesPerSecond
    }

    /// Brings every running transfer's remaining bytes up to `time`.
    private mutating func catchUp(to time: Duration) {
        let t = max(time.seconds, linkTime)
        defer { linkTime = t }
        guard let link, t > linkTime else { return }
        let count = transferCount
        guard count > 0 else { return }
        let share = (t - linkTime) * link.capacityBytesPerSecond / Double(count)
        // In key order: a sum in the dictionary's order would differ in its last bits from run to run.
        for key in attempts.keys.sorted() {
            guard case .transfer(let remaining) = attempts[key]?.phase else { continue }
            let moved = min(share, remaining)
            bytesOnWire += moved
            attempts[key]?.phase = .transfer(remaining: remaining - moved)
        }
    }

    /// Gives freed connections to the attempts waiting longest; their round trips start at `now`.
    private mutating func admitWaiting(at now: Duration) {
        guard let limit = link?.http.maxConnections else { return }
        while connectionsInUse < limit, !connectionQueue.isEmpty {
            let key = connectionQueue.removeFirst()
            if let roundTrip = attempts[key]?.roundTrip { attempts[key]?.phase = .roundTrip(end: now + roundTrip) }
        }
    }
}
