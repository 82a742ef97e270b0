/// The measurements of one run: one scenario under one policy in the simulator, or a session of the
/// demo; what ``ReadinessMeter/result(scenario:policy:duration:payloadBytes:frameTimes:)`` returns.
///
/// The definitions are in the article <doc:Metrics>. On virtual time every field but
/// ``frameTime`` is deterministic: the same scenario, policy and seed give the same values.
public struct SimulationResult: Sendable, Codable, Hashable {
    /// The scenario's name.
    public var scenario: String
    /// The policy's name.
    public var policy: String
    /// Cell appearances (`willDisplay` calls) after the first screen.
    public var displayed = 0
    /// The share of appearances whose data was already there, from 0 to 1.
    public var displayReadyRate = 1.0
    /// The mean time an appearing cell waited for its data, zeros included, in ms.
    public var visibleWaitMeanMs = 0.0
    /// The 95th percentile of that wait, in ms.
    public var visibleWaitP95Ms = 0.0
    /// The total time cells were on screen without their data, in seconds.
    public var blankCellSeconds = 0.0
    /// Loads started.
    public var loadsStarted = 0
    /// Loads that ended with a value.
    public var loadsCompleted = 0
    /// Loads cancelled because every interest left.
    public var loadsCancelled = 0
    /// Loads that failed after their retries (not encoded: the bench's JSON has no such key).
    public var loadsFailed = 0
    /// Loads completed for items never displayed during the run.
    public var loadsWasted = 0
    /// The wasted loads whose items were still in the view's prefetch window when the run ended:
    /// loaded for where the user was heading. A longer session would likely have shown them; the
    /// other wasted loads went where the user turned away from or jumped past.
    public var loadsWastedAtEnd = 0
    /// The bytes those wasted loads fetched: `loadsWasted × payloadBytes`.
    public var bytesWasted = 0
    /// Completed loads whose item never showed its data on screen: the wasted ones, plus loads of
    /// items that were on screen only while blank. Never fewer than ``loadsWasted``.
    public var loadsNeverShown = 0
    /// Times scrolling stopped, each with a settle time.
    public var settles = 0
    /// The mean settle time (from a stop of scrolling until every visible cell shows its data), in ms.
    public var settleMeanMs = 0.0
    /// The 95th percentile of settle times, in ms.
    public var settleP95Ms = 0.0
    /// The most loads in flight at once.
    public var peakInFlight = 0
    /// Loads started per second.
    public var requestsPerSecond = 0.0
    /// The run's duration, in seconds.
    public var duration = 0.0
    /// Real time spent per frame in the view and the data source (not deterministic; not encoded).
    public var frameTime = FrameTime()

    /// Real time per frame, in microseconds.
    public struct FrameTime: Sendable, Hashable {
        /// The mean.
        public var meanMicroseconds: Double = 0
        /// The 95th percentile.
        public var p95Microseconds: Double = 0
        /// Creates an empty measurement.
        public init() {}
    }

    /// An empty result of `scenario` under `policy`.
    public init(scenario: String = "", policy: String = "") {
        self.scenario = scenario
        self.policy = policy
    }

    private enum CodingKeys: String, CodingKey {
        case scenario, policy, displayed, displayReadyRate, visibleWaitMeanMs, visibleWaitP95Ms, blankCellSeconds,
            loadsStarted, loadsCompleted, loadsCancelled, loadsWasted, loadsWastedAtEnd, bytesWasted, loadsNeverShown, settles, settleMeanMs, settleP95Ms, peakInFlight,
            requestsPerSecond, duration
    }
}

/// What happened over time in one run, for the report's timeline.
public struct SimulationTimeline: Sendable {
    /// The viewport and the prefetch window at one moment, as item indices.
    public struct Frame: Sendable {
        /// Seconds since the start.
        public var time: Double
        /// The first and last visible items.
        public var visible: ClosedRange<Int>?
        /// The lowest and highest items pending prefetch.
        public var prefetch: ClosedRange<Int>?
    }

    /// One load of one item.
    public struct Load: Sendable {
        /// How a load ended.
        public enum Outcome: String, Sendable {
            /// With a value.
            case completed
            /// With an error, after any retries.
            case failed
            /// Cancelled: nobody wanted it any more.
            case cancelled
            /// Still running when the run ended.
            case running
        }
        /// The item.
        public var item: Int
        /// When it started.
        public var start: Double
        /// When it ended (or the run ended).
        public var end: Double
        /// How it ended.
        public var outcome: Outcome
    }

    /// A period when a visible cell had no data.
    public struct Blank: Sendable {
        /// The item.
        public var item: Int
        /// When it appeared without data.
        public var start: Double
        /// When its data came, or it left the screen.
        public var end: Double
    }

    /// Samples of the viewport and window (about 20 per second).
    public var frames: [Frame] = []
    /// Every load.
    public var loads: [Load] = []
    /// Every blank period.
    public var blanks: [Blank] = []
    /// The number of items.
    public var itemCount = 0
    /// The run's duration.
    public var duration = 0.0

    /// Creates an empty timeline.
    public init() {}
}
