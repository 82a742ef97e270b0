/// The measurements of one scenario under one policy.
///
/// Every field but ``frameTime`` is deterministic: the same scenario, policy and seed give the same values.
public struct SimulationResult: Sendable, Codable, Hashable {
    /// The scenario's name.
    public var scenario: String
    /// The policy's name.
    public var policy: String
    /// Cell appearances (`willDisplay` calls).
    public var displayed: Int
    /// The share of appearances whose data was already there, from 0 to 1.
    public var displayReadyRate: Double
    /// The mean time an appearing cell waited for its data, in ms (0 for ready cells).
    public var visibleWaitMeanMs: Double
    /// The 95th percentile of that wait, in ms.
    public var visibleWaitP95Ms: Double
    /// The total time cells were on screen without their data, in seconds.
    public var blankCellSeconds: Double
    /// Loads started.
    public var loadsStarted: Int
    /// Loads that ended with a value.
    public var loadsCompleted: Int
    /// Loads cancelled because every interest left.
    public var loadsCancelled: Int
    /// Loads completed for items never displayed during the run.
    public var loadsWasted: Int
    /// The wasted loads whose items were still in the view's prefetch window when the run ended
    /// (``Readiness/loadsWastedAtEnd``): the part of the waste a longer session would likely
    /// have shown.
    public var loadsWastedAtEnd: Int
    /// The bytes those wasted loads fetched: `loadsWasted × payloadBytes`.
    public var bytesWasted: Int
    /// Completed loads whose item never showed its data on screen: the wasted ones, plus loads of
    /// items that were on screen only while blank. Never fewer than ``loadsWasted``.
    public var loadsNeverShown: Int
    /// Times scrolling stopped, each with a settle time.
    public var settles: Int
    /// The mean settle time (from a stop of scrolling until every visible cell shows its data), in ms.
    public var settleMeanMs: Double
    /// The 95th percentile of settle times, in ms.
    public var settleP95Ms: Double
    /// The most loads in flight at once.
    public var peakInFlight: Int
    /// Loads started per simulated second.
    public var requestsPerSecond: Double
    /// The simulated duration, in seconds.
    public var duration: Double
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

    /// Creates a result from a meter's figures.
    public init(scenario: String, policy: String, readiness r: Readiness, duration: Double, payloadBytes: Int = 0, frameTimes: [Double] = []) {
        self.scenario = scenario
        self.policy = policy
        displayed = r.displayed
        displayReadyRate = r.displayReadyRate
        visibleWaitMeanMs = r.visibleWaitMeanMs
        visibleWaitP95Ms = r.visibleWaitP95Ms
        blankCellSeconds = r.blankCellSeconds
        loadsStarted = r.loadsStarted
        loadsCompleted = r.loadsCompleted
        loadsCancelled = r.loadsCancelled
        loadsWasted = r.loadsWasted
        loadsWastedAtEnd = r.loadsWastedAtEnd
        bytesWasted = r.loadsWasted * payloadBytes
        loadsNeverShown = r.loadsNeverShown
        settles = r.settles
        settleMeanMs = r.settleMeanMs
        settleP95Ms = r.settleP95Ms
        peakInFlight = r.peakInFlight
        requestsPerSecond = duration > 0 ? Double(r.loadsStarted) / duration : 0
        self.duration = duration
        let sorted = frameTimes.sorted()
        frameTime.meanMicroseconds = frameTimes.isEmpty ? 0 : frameTimes.reduce(0, +) / Double(frameTimes.count)
        frameTime.p95Microseconds = percentile(sorted, 0.95)
    }

    /// The figures the meter measured (without `loadsFailed`, which a result does not keep).
    public var readiness: Readiness {
        var r = Readiness()
        r.displayed = displayed
        r.displayReadyRate = displayReadyRate
        r.visibleWaitMeanMs = visibleWaitMeanMs
        r.visibleWaitP95Ms = visibleWaitP95Ms
        r.blankCellSeconds = blankCellSeconds
        r.loadsStarted = loadsStarted
        r.loadsCompleted = loadsCompleted
        r.loadsCancelled = loadsCancelled
        r.loadsWasted = loadsWasted
        r.loadsWastedAtEnd = loadsWastedAtEnd
        r.loadsNeverShown = loadsNeverShown
        r.peakInFlight = peakInFlight
        r.settles = settles
        r.settleMeanMs = settleMeanMs
        r.settleP95Ms = settleP95Ms
        return r
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
