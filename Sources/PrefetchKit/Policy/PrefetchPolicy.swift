/// Decides which part of a scrolling list to prefetch, given where the viewport is and how it moves.
///
/// A policy works along the scroll axis only: every distance is in points from the start of
/// the content. The collection view asks its policy for a ``PrefetchPlan`` after each layout
/// pass, turns the plan's regions into items through its layout, and sends the items that
/// enter the plan to `prefetchItemsAt` and the ones that leave it to `cancelPrefetchingForItemsAt`.
///
/// ```swift
/// let plan = PrefetchPolicies.uikitLike.plan(for: context)
/// for region in plan.regions { print(region.range) }
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
/// toward the end of the content.
public struct ScrollContext: Sendable, Hashable {
    /// The visible part of the content, in content coordinates along the scroll axis.
    public var viewport: Range<Double>
    /// The total length of the content along the scroll axis.
    public var contentLength: Double
    /// The current scroll velocity, in points per second; positive toward the end of the content.
    public var velocity: Double
    /// Whether the view is coasting after a fling (so ``decelerationRate`` predicts where it stops).
    public var isDecelerating: Bool
    /// The deceleration rate per millisecond while coasting (UIKit's normal rate is 0.998).
    public var decelerationRate: Double
    /// The expected time from starting a load to having its data, if the fetcher has measured one.
    public var expectedLatency: Duration?
    /// How many loads may run at once, if the policy should plan within a cap.
    public var concurrencyLimit: Int?

    /// Creates a scroll context.
    public init(
        viewport: Range<Double>,
        contentLength: Double,
        velocity: Double = 0,
        isDecelerating: Bool = false,
        decelerationRate: Double = 0.998,
        expectedLatency: Duration? = nil,
        concurrencyLimit: Int? = nil
    ) {
        self.viewport = viewport
        self.contentLength = contentLength
        self.velocity = velocity
        self.isDecelerating = isDecelerating
        self.decelerationRate = decelerationRate
        self.expectedLatency = expectedLatency
        self.concurrencyLimit = concurrencyLimit
    }

    /// The viewport's length along the scroll axis.
    public var viewportLength: Double { viewport.upperBound - viewport.lowerBound }

    /// The direction of travel: `1` toward the end, `-1` toward the start, `0` at rest.
    public var direction: Int { velocity > 0 ? 1 : (velocity < 0 ? -1 : 0) }
}

/// The regions a ``PrefetchPolicy`` wants loaded, most urgent first.
public struct PrefetchPlan: Sendable, Hashable {
    /// Ranges of content coordinates along the scroll axis, most urgent first.
    ///
    /// Items that overlap an earlier region come before items of a later one; within a region
    /// the view orders items nearest to the viewport first. Parts of a region that lie in the
    /// viewport or outside the content are ignored.
    public var regions: [Range<Double>]

    /// Creates a plan from regions given most urgent first.
    public init(regions: [Range<Double>]) {
        self.regions = regions
    }

    /// A plan that prefetches nothing.
    public static let empty = PrefetchPlan(regions: [])
}
