import ArgumentParser
import PrefetchKit

extension LatencyProfile: ExpressibleByArgument {}

/// The latency flags of `prefetch-bench run`, `prefetch-demo` and `prefetch-server`: one parser
/// and one set of rules, whose errors name the flag, the value and the rule broken.
///
/// Each command starts from its own network (the bench the `lte` profile, the demo a fixed
/// 300 ms, the server none). A profile replaces it; a median, a 99th percentile or a failure rate
/// changes that part of it; a fixed latency replaces the distribution. `--latency-ms` is a fixed
/// latency, or the median when `--latency-p99-ms` is given.
///
/// ```
/// prefetch-bench run --latency-profile emerging --failure-rate 0.05
/// prefetch-demo --latency-ms 150 --latency-p99-ms 1500
/// prefetch-server --latency-median-ms 40 --latency-p99-ms 400 --error-rate 0.05
/// ```
public struct LatencyOptions: ParsableArguments, Sendable {
    /// A named network.
    @Option(help: "A named network: wifi (log-normal, median 40 ms, p99 400 ms), lte (150 ms, 1.5 s) or emerging (400 ms, 4 s, 2% of attempts fail).")
    public var latencyProfile: LatencyProfile?

    /// A fixed latency, or the log-normal median when ``latencyP99Ms`` is given.
    @Option(name: .customLong("latency-ms"), help: ArgumentHelp(
        "A fixed delay per load, 0 to 60000 ms; the log-normal median when --latency-p99-ms is given.", valueName: "ms"))
    public var latencyMs: Double?

    /// A fixed latency.
    @Option(help: ArgumentHelp("A fixed delay per load instead of a distribution, 0 to 60000 ms.", valueName: "ms"))
    public var latencyFixedMs: Double?

    /// The log-normal median.
    @Option(help: ArgumentHelp("Log-normal delay: the median, above 0 and at most 60000 ms (default: the profile's).", valueName: "ms"))
    public var latencyMedianMs: Double?

    /// The log-normal 99th percentile.
    @Option(help: ArgumentHelp("Log-normal delay: the 99th percentile, from the median to 60000 ms (default: the profile's).", valueName: "ms"))
    public var latencyP99Ms: Double?

    /// The share of attempts that fail.
    @Option(name: [.customLong("failure-rate"), .customLong("error-rate")], help: ArgumentHelp(
        "The share of load attempts that fail (the server answers them 503), 0 to 1 (default: the profile's, or 0).", valueName: "rate"))
    public var failureRate: Double?

    /// Creates the options with no flag given.
    public init() {}

    /// The flags given, for a command to say where they do not apply.
    public var given: [String] {
        let flags: [(String, Any?)] = [("--latency-profile", latencyProfile), ("--latency-ms", latencyMs), ("--latency-fixed-ms", latencyFixedMs),
                                       ("--latency-median-ms", latencyMedianMs), ("--latency-p99-ms", latencyP99Ms), ("--failure-rate", failureRate)]
        return flags.filter { $0.1 != nil }.map(\.0)
    }

    /// The model the flags make of `base`, the command's network.
    ///
    /// - Parameter prefix: put after `--` in the flag names of errors (`server-` for the demo's
    ///   `--server-latency-ms`, which it checks with these rules).
    /// - Throws: `ValidationError` naming the flag, the value and the rule broken.
    public func model(default base: LatencyModel, prefix: String = "") throws -> LatencyModel {
        func flag(_ name: String) -> String { "--\(prefix)\(name)" }
        func duration(_ name: String, _ value: Double, _ range: ClosedRange<Double>, _ rule: String) throws -> Duration {
            guard value.isFinite, range.contains(value) else { throw ValidationError("\(flag(name)) must be \(rule); got \(Self.format(value))") }
            return .nanoseconds(Int64((value * 1e6).rounded()))
        }
        let base = latencyProfile?.model ?? base, upper = 60_000.0, most = "\(Self.format(upper)) ms"
        let rate = failureRate ?? base.failureRate
        guard rate.isFinite, (0...1).contains(rate) else { throw ValidationError("--failure-rate (or --error-rate) must be from 0 to 1; got \(Self.format(rate))") }
        // --latency-ms is the median when a 99th percentile is given, else a fixed latency.
        var fixed = latencyFixedMs.map { ("latency-fixed-ms", $0) }, median = latencyMedianMs.map { ("latency-median-ms", $0) }
        if let latencyMs {
            if let taken = latencyP99Ms == nil ? fixed : median {
                throw ValidationError("\(flag("latency-ms")) \(Self.format(latencyMs)) and \(flag(taken.0)) \(Self.format(taken.1)) both set the \(latencyP99Ms == nil ? "fixed latency" : "median"); give one")
            }
            if latencyP99Ms == nil { fixed = ("latency-ms", latencyMs) } else { median = ("latency-ms", latencyMs) }
        }
        if let fixed {
            for (other, given) in [("latency-profile", latencyProfile != nil), ("latency-median-ms", median != nil), ("latency-p99-ms", latencyP99Ms != nil)] where given {
                throw ValidationError("\(flag(fixed.0)) and \(flag(other)) cannot be combined: choose a fixed latency or a distribution")
            }
            return try LatencyModel(.fixed(duration(fixed.0, fixed.1, 0...upper, "from 0 to \(most)")), failureRate: rate)
        }
        guard median != nil || latencyP99Ms != nil else { return try LatencyModel(base.distribution, failureRate: rate) }
        // A log-normal distribution: what the flags leave out comes from the profile or the command's network.
        var (m, p): (Duration?, Duration?) = switch base.distribution {
        case .logNormal(let median, let p99): (median, p99)
        case .fixed(let latency): (latency, nil)   // the demo's fixed 300 ms is the median of a --latency-p99-ms alone
        case .bandwidth: (nil, nil)
        }
        if let median { m = try duration(median.0, median.1, .leastNonzeroMagnitude...upper, "above 0 and at most \(most) as the log-normal median") }
        guard let m, m > .zero else { throw ValidationError("\(flag("latency-p99-ms")) needs a log-normal median above 0 ms: give it with \(flag("latency-ms"))") }
        let medianMs = m / .milliseconds(1)
        if let latencyP99Ms { p = try duration("latency-p99-ms", latencyP99Ms, min(medianMs, upper)...upper, "from the median (\(Self.format(medianMs)) ms) to \(most)") }
        guard let p else { throw ValidationError("\(flag(median!.0)) needs \(flag("latency-p99-ms")): a log-normal distribution needs its 99th percentile") }
        guard p >= m else {
            throw ValidationError("\(flag(median!.0)) must be at most the 99th percentile (\(Self.format(p / .milliseconds(1))) ms); got \(Self.format(medianMs))")
        }
        return try LatencyModel(.logNormal(median: m, p99: p), failureRate: rate)
    }

    /// `value` as a flag takes it: `300`, `0.5`.
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
