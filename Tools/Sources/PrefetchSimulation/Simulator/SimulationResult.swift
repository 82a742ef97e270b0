import Foundation

/// The measurements of one run: one scenario under one policy in the simulator, or a session of the
/// demo; what ``ReadinessMeter/result(scenario:policy:duration:)`` returns.
///
/// The definitions are in the article <doc:Metrics>. On virtual time every field but
/// `frameTime` is deterministic: the same scenario, policy and seed give the same values.
public struct SimulationResult: Sendable, Codable, Hashable {
    /// The scenario's name.
    public var scenario: String
    /// The policy's name.
    public var policy: String
    /// Cell appearances (`willDisplay` calls) after the first screen.
    public var displayed = 0
    /// The share of appearances whose data was already there, from 0 to 1 (with previews: the
    /// full data).
    public var displayReadyRate = 1.0
    /// With previews: the share of appearances that showed at least a preview, from 0 to 1; nil
    /// (and not encoded) when the run had no previews.
    public var previewReadyRate: Double?
    /// The mean time an appearing cell waited for its data, zeros included, in ms.
    public var visibleWaitMeanMs = 0.0
    /// The 95th percentile of that wait, in ms.
    public var visibleWaitP95Ms = 0.0
    /// The total time cells were on screen without their data, in seconds.
    public var blankCellSeconds = 0.0
    /// A lower bound on ``blankCellSeconds`` that no policy can beat on this run's shared link and
    /// trace (`BlankTimeBound`), in seconds; nil (and not encoded) under independent latencies.
    public var blankLowerBound: Double?
    /// Loads started.
    public var loadsStarted = 0
    /// Loads that ended with a value.
    var loadsCompleted = 0
    /// Loads cancelled because every interest left.
    public var loadsCancelled = 0
    /// Loads that failed after their retries (not encoded: the bench's JSON has no such key).
    var loadsFailed = 0
    /// Loads completed for items never displayed during the run.
    public var loadsWasted = 0
    /// The wasted loads whose items were still in the view's prefetch window when the run ended:
    /// loaded for where the user was heading. A longer session would likely have shown them; the
    /// other wasted loads went where the user turned away from or jumped past.
    var loadsWastedAtEnd = 0
    /// The bytes spent on items never shown: each wasted load's payload, plus the bytes that
    /// stopped transfers had moved (none under the independent model, where a load moves its
    /// payload at its end).
    public var bytesWasted = 0
    /// Every byte the network moved: finished payloads and parts of stopped transfers.
    public var bytesOnWire = 0
    /// The share of the shared link's capacity the run used, from 0 to 1 (0 when loads had
    /// independent latencies).
    public var linkUtilisation = 0.0
    /// Completed loads whose item never showed its data on screen: the wasted ones, plus loads of
    /// items that were on screen only while blank. Never fewer than ``loadsWasted``.
    var loadsNeverShown = 0
    /// Times scrolling stopped, each with a settle time.
    var settles = 0
    /// The mean settle time (from a stop of scrolling until every visible cell shows its data), in ms.
    var settleMeanMs = 0.0
    /// The 95th percentile of settle times, in ms.
    var settleP95Ms = 0.0
    /// The most loads in flight at once.
    public var peakInFlight = 0
    /// The most memory the fetcher held at once, in bytes: its cache plus its loads in flight,
    /// each value costing `SimulationConfiguration.valueBytes` (`FetchStatistics.peakMemoryHeld`).
    /// Bytes on the wire come from the network model, not from here.
    public var peakMemoryBytes = 0
    /// Loads started per second.
    var requestsPerSecond = 0.0
    /// The run's duration, in seconds.
    var duration = 0.0
    /// Real time spent per frame in the view and the data source (not deterministic; not encoded).
    var frameTime = FrameTime()

    /// Real time per frame, in microseconds.
    struct FrameTime: Sendable, Hashable {
        /// The mean.
        var meanMicroseconds: Double = 0
        /// The 95th percentile.
        var p95Microseconds: Double = 0
    }

    /// An empty result of `scenario` under `policy`.
    init(scenario: String = "", policy: String = "") {
        self.scenario = scenario
        self.policy = policy
    }

    /// The result as one JSON object (`prefetch-demo --json`): keys sorted, rates rounded to 0.0001,
    /// times to 0.001, and `extra`'s keys beside the result's.
    /// - Throws: what encoding `extra` throws.
    public func roundedJSON(adding extra: (any Encodable)? = nil) throws -> String {
        struct Both: Encodable {
            var result: SimulationResult, extra: (any Encodable)?
            func encode(to encoder: any Encoder) throws {
                try result.encode(to: encoder)
                try extra?.encode(to: encoder)
            }
        }
        var rounded = self
        func round(_ value: inout Double, _ scale: Double = 1_000) { value = (value * scale).rounded() / scale }
        round(&rounded.displayReadyRate, 10_000)
        if var preview = rounded.previewReadyRate {
            round(&preview, 10_000)
            rounded.previewReadyRate = preview
        }
        for path in [\SimulationResult.visibleWaitMeanMs, \.visibleWaitP95Ms, \.blankCellSeconds, \.settleMeanMs, \.settleP95Ms,
                     \.requestsPerSecond, \.duration] { round(&rounded[keyPath: path]) }
        round(&rounded.linkUtilisation, 10_000)
        if var bound = rounded.blankLowerBound {
            round(&bound)
            rounded.blankLowerBound = bound
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(Both(result: rounded, extra: extra)), as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey {
        case scenario, policy, displayed, displayReadyRate, previewReadyRate, visibleWaitMeanMs, visibleWaitP95Ms, blankCellSeconds, blankLowerBound,
            loadsStarted, loadsCompleted, loadsCancelled, loadsWasted, loadsWastedAtEnd, bytesWasted, bytesOnWire, linkUtilisation, loadsNeverShown, settles, settleMeanMs, settleP95Ms, peakInFlight,
            peakMemoryBytes, requestsPerSecond, duration
    }
}

/// What happened over time in one run, for the report's timeline: samples of the viewport and
/// the prefetch window (about 20 per second, as item ranges), every load, every blank period of
/// a visible cell, all in seconds since the start.
struct SimulationTimeline: Sendable {
    struct Frame: Sendable {
        var time: Double
        var visible, prefetch: ClosedRange<Int>?
    }

    /// One load: `end` is when it ended with `outcome` (or the run ended while it was `running`).
    struct Load: Sendable {
        enum Outcome: String, Sendable { case completed, failed, cancelled, running }
        var item: Int
        var start, end: Double
        var outcome: Outcome
    }

    /// From when a visible cell appeared without data until its data came or it left the screen.
    struct Blank: Sendable {
        var item: Int
        var start, end: Double
    }

    var frames: [Frame] = []
    var loads: [Load] = []
    var blanks: [Blank] = []
    var itemCount = 0
    var duration = 0.0
}
