import ArgumentParser
import Foundation
import PrefetchSimulation

extension DemoLayout: ExpressibleByArgument {}
extension PolicyName: ExpressibleByArgument {}
extension Script: ExpressibleByArgument {}

/// The accepted ranges of the numeric options, used by the parser, the help and `validate()`.
enum Limits {
    static let latencyMs = 0.0...10_000
    static let latencyP99Ms = 1.0...60_000
    static let duration = 0.1...600.0

    static func describe(_ range: ClosedRange<Double>) -> String {
        "\(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Parses a number for `flag`, naming the accepted range when it is not one.
    static func number(_ text: String, _ flag: String, _ range: ClosedRange<Double>, unit: String) throws -> Double {
        guard let value = Double(text), value.isFinite else {
            throw ValidationError("\(flag) takes a number from \(describe(range)) \(unit); '\(text)' is not a number")
        }
        return value
    }
}

/// The options of `prefetch-demo`, each checked by ``validate()`` with a message naming the
/// option and its accepted range.
public struct DemoOptions: ParsableArguments, Sendable {
    /// Grid or list.
    @Option(help: "grid: the seeds' two-column collection view; list: the tutorial's table view (title + thumbnail, 4 loads at most).")
    public var layout: DemoLayout = .grid

    /// A built-in scroll scenario to run without input.
    @Option(help: ArgumentHelp("Run a built-in scroll scenario to its end, on virtual time (repeatable with --seed).", valueName: "scenario"))
    public var script: Script?

    /// The longest a run lasts, in (simulated) seconds.
    @Option(help: ArgumentHelp("Stop after this many seconds (\(Limits.describe(Limits.duration))); simulated seconds in scripted runs.", valueName: "seconds"),
            transform: { try Limits.number($0, "--duration", Limits.duration, unit: "seconds") })
    public var duration: Double?

    /// No escape codes: progress lines and a summary.
    @Flag(help: "Print progress lines and a summary instead of drawing the screen (the default when stdout is not a terminal).")
    public var plain = false

    /// Print the summary as one JSON object.
    @Flag(help: "Print only the summary, as one JSON object (implies --plain).")
    public var json = false

    /// Turn prefetching off.
    @Flag(name: .customLong("no-prefetch"), help: "Turn prefetching off (isPrefetchingEnabled = false).")
    public var noPrefetch = false

    /// Seeds the identifiers and the network's delays.
    @Option(help: ArgumentHelp("Seed for the identifiers and the simulated delays (0 to \(UInt64.max)).", valueName: "n"),
            transform: { text in
                guard let value = UInt64(text) else {
                    throw ValidationError("--seed takes a whole number from 0 to \(UInt64.max); '\(text)' is not one")
                }
                return value
            })
    public var seed: UInt64 = 1

    /// The simulated network's latency (the median when log-normal).
    @Option(name: .customLong("latency-ms"),
            help: ArgumentHelp("Simulated network delay per load in ms (\(Limits.describe(Limits.latencyMs))); the median when --latency-p99-ms is given.", valueName: "ms"),
            transform: { try Limits.number($0, "--latency-ms", Limits.latencyMs, unit: "ms") })
    public var latencyMs: Double = 300

    /// The 99th percentile of a log-normal latency.
    @Option(name: .customLong("latency-p99-ms"),
            help: ArgumentHelp("Make the delay log-normal with this 99th percentile in ms (\(Limits.describe(Limits.latencyP99Ms)), at least --latency-ms).", valueName: "ms"),
            transform: { try Limits.number($0, "--latency-p99-ms", Limits.latencyP99Ms, unit: "ms") })
    public var latencyP99Ms: Double?

    /// The prefetch policy.
    @Option(help: "The prefetch policy.")
    public var policy: PolicyName = .uikitLike

    /// Creates the defaults.
    public init() {}

    /// Checks every value against its range, naming the option and the range.
    public func validate() throws {
        func outside(_ flag: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String) -> ValidationError {
            ValidationError("\(flag) must be from \(Limits.describe(range)) \(unit); got \(Limits.format(value))")
        }
        guard Limits.latencyMs.contains(latencyMs) else { throw outside("--latency-ms", latencyMs, Limits.latencyMs, "ms") }
        if let p99 = latencyP99Ms {
            guard Limits.latencyP99Ms.contains(p99) else { throw outside("--latency-p99-ms", p99, Limits.latencyP99Ms, "ms") }
            guard latencyMs > 0 else {
                throw ValidationError("--latency-ms must be from 1 to \(Limits.format(Limits.latencyMs.upperBound)) ms when --latency-p99-ms is given (it is the log-normal median); got 0")
            }
            guard p99 >= latencyMs else {
                throw ValidationError("--latency-p99-ms must be from --latency-ms (\(Limits.format(latencyMs))) to \(Limits.format(Limits.latencyP99Ms.upperBound)) ms; got \(Limits.format(p99))")
            }
        }
        if let duration, !Limits.duration.contains(duration) {
            throw outside("--duration", duration, Limits.duration, "seconds")
        }
    }

    /// The run's settings.
    public func settings() throws -> DemoSettings {
        var settings = DemoSettings()
        settings.layout = layout
        settings.prefetching = !noPrefetch
        settings.policy = policy
        settings.seed = seed
        if let p99 = latencyP99Ms {
            settings.latency = try .logNormal(median: latencyMs / 1000, p99: p99 / 1000)
        } else {
            settings.latency = try .fixed(latencyMs / 1000)
        }
        return settings
    }
}
