import Foundation
import PrefetchKit

/// How long a simulated load takes, and whether it fails: drawn from a seeded generator, so the
/// same seed gives the same run. `PrefetchSimulation`'s network and `prefetch-server` draw from it.
///
/// ```swift
/// import PrefetchToolSupport
///
/// let mobile = try LatencyModel(.logNormal(median: .milliseconds(150), p99: .milliseconds(1_500)))
/// let slowLink = try LatencyModel(.bandwidth(base: .milliseconds(50), bytesPerSecond: 250_000), failureRate: 0.02)
/// let attempt = mobile.draw(seed: 1, item: 7, load: 0, attempt: 1)   // the same for seed 1 everywhere
/// print(attempt.latency, attempt.fails, slowLink)
/// ```
public struct LatencyModel: Sendable, Hashable, CustomStringConvertible {
    /// The shape of the distribution.
    public enum Distribution: Sendable, Hashable {
        /// Every attempt takes the same time.
        case fixed(Duration)
        /// Log-normal, from its median and 99th percentile.
        case logNormal(median: Duration, p99: Duration)
        /// A fixed round trip plus the payload's transfer time at a bandwidth.
        case bandwidth(base: Duration, bytesPerSecond: Double)
    }

    /// The distribution of one attempt's latency.
    public let distribution: Distribution
    /// The share of attempts that fail, from 0 to 1.
    public let failureRate: Double

    /// A model of `distribution` where a share `failureRate` of the attempts fail.
    /// - Throws: `PrefetchError` (`invalidConfiguration`) naming the value and the rule: a latency
    ///   below 0, a log-normal median not above 0 or a p99 below it, a bandwidth not above 0, a
    ///   failure rate outside 0...1.
    public init(_ distribution: Distribution, failureRate: Double = 0) throws {
        func fail(_ message: String) -> PrefetchError { PrefetchError(.invalidConfiguration, message) }
        switch distribution {
        case .fixed(let latency) where latency < .zero:
            throw fail("fixed latency is \(latency), but it must be at least 0")
        case .logNormal(let median, _) where median <= .zero:
            throw fail("log-normal median is \(median), but it must be greater than 0")
        case .logNormal(let median, let p99) where p99 < median:
            throw fail("log-normal p99 (\(p99)) is below the median (\(median)); the 99th percentile must be at least the median")
        case .bandwidth(let base, _) where base < .zero:
            throw fail("bandwidth base latency is \(base), but it must be at least 0")
        case .bandwidth(_, let bytesPerSecond) where !(bytesPerSecond.isFinite && bytesPerSecond > 0):
            throw fail("bandwidth is \(bytesPerSecond) bytes/s, but it must be a finite number greater than 0")
        default:
            break
        }
        guard failureRate.isFinite, (0...1).contains(failureRate) else {
            throw fail("failure rate is \(failureRate), but it must be from 0 to 1")
        }
        self.distribution = distribution
        self.failureRate = failureRate
    }

    /// Draws one attempt: how long it takes, to the nanosecond, and whether it fails.
    ///
    /// The draw depends only on `seed`, `item`, `load` (how many loads of this item came before)
    /// and `attempt`, so a run repeats and a clairvoyant reference can know it in advance.
    public func draw(seed: UInt64, item: Int, load: Int, attempt: Int, payloadBytes: Int = 0) -> (latency: Duration, fails: Bool) {
        let (seconds, fails) = drawSeconds(seed: seed, item: item, load: load, attempt: attempt, payloadBytes: payloadBytes)
        return (.nanoseconds(Int64(min(seconds * 1e9, 9e18).rounded())), fails)   // at most 285 years: never traps
    }

    /// ``draw(seed:item:load:attempt:payloadBytes:)`` before rounding, in seconds: the simulator
    /// plans with these values, and its arithmetic stays the same as when the model was in seconds.
    package func drawSeconds(seed: UInt64, item: Int, load: Int, attempt: Int, payloadBytes: Int) -> (latency: Double, fails: Bool) {
        var rng = SplitMix64(seed: Self.mix(seed, UInt64(truncatingIfNeeded: item), UInt64(load), UInt64(attempt)))
        let u1 = rng.nextUnitInterval(), u2 = rng.nextUnitInterval(), u3 = rng.nextUnitInterval()
        let latency: Double
        switch distribution {
        case .fixed(let fixed):
            latency = Self.seconds(fixed)
        case .logNormal(let median, let p99):
            let median = Self.seconds(median)
            let sigma = log(Self.seconds(p99) / median) / 2.326_347_874
            let normal = sqrt(-2 * log(max(u1, 1e-300))) * cos(2 * Double.pi * u2)
            latency = median * exp(sigma * normal)
        case .bandwidth(let base, let bytesPerSecond):
            latency = Self.seconds(base) + Double(payloadBytes) / bytesPerSecond
        }
        return (latency, u3 < failureRate)
    }

    /// A short form such as `logNormal(median 150 ms, p99 1500 ms)`.
    public var description: String {
        let ms = { (d: Duration) in "\(Int((Self.seconds(d) * 1000).rounded())) ms" }
        let base = switch distribution {
        case .fixed(let d): "fixed(\(ms(d)))"
        case .logNormal(let m, let p): "logNormal(median \(ms(m)), p99 \(ms(p)))"
        case .bandwidth(let b, let bps): "bandwidth(\(ms(b)) + payload at \(Int(bps)) B/s)"
        }
        return failureRate > 0 ? "\(base), \(failureRate * 100)% failures" : base
    }

    /// `duration` in seconds, correctly rounded for whole nanoseconds (so `.milliseconds(ms)` gives `ms / 1000`).
    package static func seconds(_ duration: Duration) -> Double {
        (Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9) / 1e9
    }

    private static func mix(_ values: UInt64...) -> UInt64 {
        values.reduce(0xCBF2_9CE4_8422_2325) { h, v in let m = (h ^ v) &* 0x1000_0000_01B3; return m ^ (m >> 29) }
    }
}

/// A named network: the latency distributions (and, for a simulated shared link, the link
/// capacities) the tools offer as `--latency-profile`.
///
/// | profile | log-normal median | p99 | failed attempts | link capacity |
/// |---|---|---|---|---|
/// | `wifi` | 40 ms | 400 ms | none | 50 Mbit/s |
/// | `lte` (the simulator's and `prefetch-bench`'s default) | 150 ms | 1.5 s | none | 10 Mbit/s |
/// | `emerging` | 400 ms | 4 s | 2 %, retried by the fetcher's `RetryPolicy` | 1 Mbit/s |
///
/// The capacities are deliberately modest: 50 Mbit/s is a home connection well below the
/// median fixed-broadband download speeds that Ookla's Speedtest Global Index reports; 10 Mbit/s
/// is a mobile connection at the low end of the national 4G download averages that OpenSignal
/// publishes; 1 Mbit/s is the average connection speed Instagram's engineers reported for
/// their users in India when they built for emerging markets.
///
/// ```swift
/// import PrefetchToolSupport
///
/// let network = LatencyProfile.emerging.model
/// let named = LatencyProfile(rawValue: "wifi")   // nil for an unknown name
/// print(network, named?.model ?? network)
/// ```
public enum LatencyProfile: String, Sendable, CaseIterable {
    /// A home or office network.
    case wifi
    /// A good mobile network.
    case lte
    /// A congested or distant mobile network, where some attempts fail.
    case emerging

    /// The profile's latency model.
    public var model: LatencyModel {
        let (median, p99, failureRate): (Duration, Duration, Double) = switch self {
        case .wifi: (.milliseconds(40), .milliseconds(400), 0)
        case .lte: (.milliseconds(150), .milliseconds(1_500), 0)
        case .emerging: (.milliseconds(400), .seconds(4), 0.02)
        }
        return try! LatencyModel(.logNormal(median: median, p99: p99), failureRate: failureRate)
    }

    /// The capacity of the profile's link, in bytes per second, for a simulated link that every
    /// transfer shares (the table above, in bits).
    package var linkCapacityBytesPerSecond: Double {
        switch self {
        case .wifi: 50e6 / 8
        case .lte: 10e6 / 8
        case .emerging: 1e6 / 8
        }
    }
}
