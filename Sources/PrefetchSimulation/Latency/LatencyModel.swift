import Foundation
import PrefetchKit

/// How long a simulated load takes, and whether it fails: drawn from a seeded generator so the
/// same seed gives the same run.
///
/// ```swift
/// let mobile = try LatencyModel.logNormal(median: 0.150, p99: 1.5)   // seconds
/// let slowLink = try LatencyModel.bandwidth(base: 0.05, bytesPerSecond: 250_000)
/// ```
public struct LatencyModel: Sendable, Hashable, CustomStringConvertible {
    /// The shape of the distribution.
    public enum Distribution: Sendable, Hashable {
        /// Every load takes the same time, in seconds.
        case fixed(Double)
        /// Log-normal, from its median and 99th percentile, in seconds.
        case logNormal(median: Double, p99: Double)
        /// A fixed round trip plus the payload's transfer time at a bandwidth.
        case bandwidth(base: Double, bytesPerSecond: Double)
    }

    /// The distribution of one attempt's latency.
    public let distribution: Distribution
    /// The share of attempts that fail, from 0 to 1.
    public let failureRate: Double

    private init(distribution: Distribution, failureRate: Double) {
        self.distribution = distribution
        self.failureRate = failureRate
    }

    /// Every load takes `seconds`.
    /// - Throws: ``SimulationError`` when the latency is negative or not finite, or the failure rate is outside 0...1.
    public static func fixed(_ seconds: Double, failureRate: Double = 0) throws -> LatencyModel {
        try check(seconds, "fixed latency")
        return try LatencyModel(distribution: .fixed(seconds), failureRate: checkRate(failureRate))
    }

    /// Log-normal latency with the given median and 99th percentile, in seconds.
    /// - Throws: ``SimulationError`` when a value is negative, zero or not finite, or `p99 < median`.
    public static func logNormal(median: Double, p99: Double, failureRate: Double = 0) throws -> LatencyModel {
        try check(median, "log-normal median")
        try check(p99, "log-normal p99")
        guard median > 0 else { throw SimulationError("log-normal median is \(median) s, but it must be greater than 0") }
        guard p99 >= median else {
            throw SimulationError("log-normal p99 (\(p99) s) is below the median (\(median) s); the 99th percentile must be at least the median")
        }
        return try LatencyModel(distribution: .logNormal(median: median, p99: p99), failureRate: checkRate(failureRate))
    }

    /// A round trip of `base` seconds plus the payload at `bytesPerSecond`.
    /// - Throws: ``SimulationError`` when `base` is negative or the bandwidth is not positive.
    public static func bandwidth(base: Double, bytesPerSecond: Double, failureRate: Double = 0) throws -> LatencyModel {
        try check(base, "bandwidth base latency")
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else {
            throw SimulationError("bandwidth is \(bytesPerSecond) bytes/s, but it must be a finite number greater than 0")
        }
        return try LatencyModel(distribution: .bandwidth(base: base, bytesPerSecond: bytesPerSecond), failureRate: checkRate(failureRate))
    }

    /// A mobile network: log-normal with a median of 150 ms and a 99th percentile of 1.5 s.
    public static let mobile = try! LatencyModel.logNormal(median: 0.150, p99: 1.5)

    /// The same distribution with another failure rate.
    public func withFailureRate(_ rate: Double) throws -> LatencyModel {
        try LatencyModel(distribution: distribution, failureRate: Self.checkRate(rate))
    }

    /// Draws one attempt: its latency in seconds and whether it fails.
    ///
    /// The draw depends only on `seed`, `item`, `load` (how many loads of this item came before)
    /// and `attempt`, so a run can be repeated and a clairvoyant reference can know it in advance.
    public func draw(seed: UInt64, item: Int, load: Int, attempt: Int, payloadBytes: Int) -> (latency: Double, fails: Bool) {
        var rng = SplitMix64(seed: Self.mix(seed, UInt64(truncatingIfNeeded: item), UInt64(load), UInt64(attempt)))
        let u1 = rng.nextUnitInterval(), u2 = rng.nextUnitInterval(), u3 = rng.nextUnitInterval()
        let latency: Double
        switch distribution {
        case .fixed(let seconds):
            latency = seconds
        case .logNormal(let median, let p99):
            let sigma = log(p99 / median) / 2.326_347_874
            let normal = sqrt(-2 * log(max(u1, 1e-300))) * cos(2 * Double.pi * u2)
            latency = median * exp(sigma * normal)
        case .bandwidth(let base, let bytesPerSecond):
            latency = base + Double(payloadBytes) / bytesPerSecond
        }
        return (latency, u3 < failureRate)
    }

    /// A short form such as `logNormal(median 150 ms, p99 1500 ms)`.
    public var description: String {
        let ms = { (s: Double) in "\(Int((s * 1000).rounded())) ms" }
        let base: String
        switch distribution {
        case .fixed(let s): base = "fixed(\(ms(s)))"
        case .logNormal(let m, let p): base = "logNormal(median \(ms(m)), p99 \(ms(p)))"
        case .bandwidth(let b, let bps): base = "bandwidth(\(ms(b)) + payload at \(Int(bps)) B/s)"
        }
        return failureRate > 0 ? "\(base), \(failureRate * 100)% failures" : base
    }

    private static func check(_ value: Double, _ name: String) throws {
        guard value.isFinite, value >= 0 else {
            throw SimulationError("\(name) is \(value) s, but it must be a finite number, at least 0")
        }
    }

    private static func checkRate(_ rate: Double) throws -> Double {
        guard rate.isFinite, (0...1).contains(rate) else {
            throw SimulationError("failure rate is \(rate), but it must be between 0 and 1")
        }
        return rate
    }

    private static func mix(_ values: UInt64...) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for v in values {
            h ^= v
            h = h &* 0x1000_0000_01B3
            h ^= h >> 29
        }
        return h
    }
}
