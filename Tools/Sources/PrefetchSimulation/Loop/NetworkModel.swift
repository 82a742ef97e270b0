import Foundation
import PrefetchToolSupport
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
/// import PrefetchToolSupport
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
    /// Whether a stopped transfer's bytes are kept and a later load of the item moves only the
    /// rest, as `PrefetchHTTP`'s `HTTPLoader` does with a range request (at most 16 transfers
    /// and 8 MiB kept, the loader's defaults; the oldest kept is dropped first).
    public var resumesStoppedTransfers = true
    /// Whether the most urgent transfers take the link first (off by default: the transfers
    /// running at once share it equally). On, only the transfers of the most urgent level move,
    /// sharing the link equally, while the others wait: a server that honours HTTP's priority
    /// signals (RFC 9218) over HTTP/2 or HTTP/3, with each load's urgency following its fetch
    /// priority while it runs (``/PrefetchKit/FetchPriority/urgency``, as `HTTPLoader` sends it).
    public var sharesByPriority = false
    /// What makes the link behave like a phone's (queueing, slow start, the radio's wake-up,
    /// slow round trips in runs): none by default, the classic fluid link. See <doc:APhonesLink>.
    public var phone = PhoneEffects()

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

    /// `10.0 Mbit/s, HTTP/2, sizes logNormal(median 60000 B, p99 600000 B)`, with `, no resuming`
    /// when stopped transfers start over and `, by priority` when the most urgent go first.
    public var description: String {
        "\(capacityBytesPerSecond * 8 / 1e6) Mbit/s, \(http), sizes \(sizes)" + (resumesStoppedTransfers ? "" : ", no resuming")
            + (sharesByPriority ? ", by priority" : "") + phoneSuffix
    }

    /// `, ` and the phone's effects when any is on; empty on the classic link.
    private var phoneSuffix: String { phone.isClassic ? "" : ", \(phone)" }
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
    /// Sizes that follow the cell's image (see ``CellImages``): a scenario turns them into a
    /// log-normal around its layout's cell; without one, a 66-point list row's thumbnail.
    case cell(CellImages)

    /// Feed thumbnails: median 60 KB, 99th percentile 600 KB.
    public static let standard = PayloadSizes.logNormal(median: 60_000, p99: 600_000)

    /// Throws when a size is negative, or the log-normal's median is not above 0 or its p99 below the median.
    func validate() throws {
        switch self {
        case .fixed(let bytes) where bytes < 0:
            throw SimulationError("payload size is \(bytes) bytes, but it must be 0 or more")
        case .cell(let images) where !(images.scale.isFinite && images.scale > 0 && images.p99Ratio.isFinite && images.p99Ratio >= 1):
            throw SimulationError("cell images at scale \(images.scale), p99 ratio \(images.p99Ratio): the scale must be above 0 and the ratio at least 1")
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
        case .cell(let images):
            return images.sizes(layout: ScenarioLayout.list(), viewport: Viewport(width: 390, height: 844)).bytes(item: item, seed: seed)
        case .logNormal(let median, let p99):
            var rng = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: item) &* 0x9E37_79B9_7F4A_7C15) ^ 0x5349_5A45)
            let u1 = max(rng.nextUnitInterval(), 1e-300), u2 = rng.nextUnitInterval()
            let sigma = log(Double(p99) / Double(median)) / 2.326_347_874
            let normal = sqrt(-2 * log(u1)) * cos(2 * Double.pi * u2)
            return Int(min(Double(median) * exp(sigma * normal), 1e12).rounded())
        }
    }

    /// `fixed(50000 B)`, `logNormal(median 60000 B, p99 600000 B)`, `perItem(1000 sizes)` or `cell(thumbnail jpeg (0.35 B/px, 3x))`.
    public var description: String {
        switch self {
        case .fixed(let bytes): "fixed(\(bytes) B)"
        case .logNormal(let median, let p99): "logNormal(median \(median) B, p99 \(p99) B)"
        case .perItem(let sizes): "perItem(\(sizes.count) sizes)"
        case .cell(let images): "cell(\(images))"
        }
    }
}
