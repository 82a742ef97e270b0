/// Decides which part of a scrolling list to prefetch, given where the viewport is and how it moves.
///
/// A policy works along the scroll axis only: every distance is in points from the start of
/// the content. It chooses *where* to hold interest; a ``PrefetchController`` asks it for a
/// ``PrefetchPlan`` every frame, turns the plan's regions (and the viewport) into items through
/// the surface's ``ItemGeometry``, ranks every item by when it will be on screen and for how
/// long, and requests and withdraws loads as items enter and leave the plan.
///
/// ```swift
/// let plan = PrefetchPolicies.uikitLike.plan(for: context)
/// for region in plan.regions { print(region) }
/// ```
public protocol PrefetchPolicy: Sendable {
    /// A short, stable name used in logs, tables and reports.
    var name: String { get }

    /// Returns the regions to prefetch for one moment of scrolling, most urgent first.
    ///
    /// - Complexity: Expected O(1); a policy runs on every frame.
    func plan(for context: ScrollContext) -> PrefetchPlan
}

/// What a ``PrefetchPolicy`` knows about one moment of scrolling.
///
/// All lengths are points along the scroll axis; velocities are points per second, positive
/// toward the end of the content. A ``PrefetchController`` builds it every frame from the
/// surface's ``ScrollState`` and its target's latency.
public struct ScrollContext: Sendable, Hashable {
    /// The visible part of the content, in content coordinates along the scroll axis.
    public var viewport: Range<Double>
    /// The total length of the content along the scroll axis.
    public var contentLength: Double
    /// The current scroll velocity, in points per second; positive toward the end of the content.
    public var velocity: Double
    /// What moves the content: at rest, a drag, a fling with its resting offset, or an animated
    /// scroll with its destination.
    public var phase: MotionPhase
    /// The direction of the latest motion: `1` toward the end, `-1` toward the start. At rest it
    /// keeps the direction of the motion that ended (`1` before any motion), so a policy can keep
    /// looking the way the user was going.
    public var heading: Int
    /// The expected time from starting a load to having its data (a high percentile): the
    /// latency the controller ranks with, its fallback until the target has measured one.
    public var expectedLatency: Duration
    /// The user's recent motions: how often they turned back, and how far the latest motion
    /// went. ``ScrollHistory/none`` unless a ``PrefetchController`` (or the caller) says more.
    public var history: ScrollHistory

    /// Creates a scroll context.
    ///
    /// - Parameters:
    ///   - viewport: The visible span along the scroll axis, in points from the content's start.
    ///   - contentLength: The length of all the content along the scroll axis.
    ///   - velocity: Points per second, positive toward the end; 0 at rest.
    ///   - phase: What moves the content (``MotionPhase/idle`` by default).
    ///   - heading: The direction of the latest motion; by default the sign of `velocity`, or `1`
    ///     at rest.
    ///   - expectedLatency: By default 300 ms, the controller's standard fallback.
    ///   - history: The user's recent motions; ``ScrollHistory/none`` by default.
    public init(
        viewport: Range<Double>,
        contentLength: Double,
        velocity: Double = 0,
        phase: MotionPhase = .idle,
        heading: Int? = nil,
        expectedLatency: Duration = LatencyEstimate.standardFallback,
        history: ScrollHistory = .none
    ) {
        self.viewport = viewport
        self.contentLength = contentLength
        self.velocity = velocity
        self.phase = phase
        self.heading = heading.map { $0 < 0 ? -1 : 1 } ?? (velocity < 0 ? -1 : 1)
        self.expectedLatency = expectedLatency
        self.history = history
    }

    /// The viewport's length along the scroll axis.
    public var viewportLength: Double { viewport.upperBound - viewport.lowerBound }

    /// The direction of travel: `1` toward the end, `-1` toward the start, `0` at rest.
    var direction: Int { velocity > 0 ? 1 : (velocity < 0 ? -1 : 0) }
}

/// The regions a ``PrefetchPolicy`` wants loaded.
///
/// The plan says where to hold interest, not in which order: a ``PrefetchController`` ranks the
/// items of every region by when they will be on screen. Keep regions contiguous with the
/// viewport where you can: an item that leaves the plan and comes back a frame later has its
/// load cancelled and started again.
public struct PrefetchPlan: Sendable, Hashable {
    /// Ranges of content coordinates along the scroll axis. They may overlap each other and the
    /// viewport; parts outside the content are ignored.
    public var regions: [Range<Double>]

    /// Creates a plan from regions.
    public init(regions: [Range<Double>]) {
        self.regions = regions
    }

    /// A plan that prefetches nothing.
    public static let empty = PrefetchPlan(regions: [])
}
