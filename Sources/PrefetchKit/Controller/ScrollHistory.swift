/// What a user's recent scrolling says about their next motion: how often they turned back, and
/// how far the latest motion went.
///
/// A ``PrefetchController`` keeps it from the frames it sees and hands it to its policy in
/// ``ScrollContext/history``. A *motion* runs from the first frame that is not at rest to the
/// next frame at rest (a drag, the fling after it, an animated scroll); motions that move the
/// viewport less than a quarter of its length are ignored. Each motion after the first counts
/// as a *reversal* when it goes the opposite way to the one before.
///
/// Recent motions weigh more: each finished motion multiplies the earlier counts by 0.8, so
/// ``motions`` and ``reversals`` are decayed counts, not whole numbers.
public struct ScrollHistory: Sendable, Hashable {
    /// The decayed number of motions that had a motion before them to compare with.
    public var motions: Double
    /// The decayed number of those motions that went back the way the previous one came.
    public var reversals: Double
    /// How far, in points, the latest motion moved the viewport (the current one while it
    /// runs); 0 after a jump (a new viewport with no motion) and before any motion.
    ///
    /// The content just travelled is the content a reversal comes back to; after a jump there
    /// is none.
    public var sweptLength: Double

    /// The weight each finished motion leaves on the counts before it: 0.8, so a motion five
    /// motions ago counts a third as much as the latest. Chosen on the generated training traces
    /// (seeds 1–50; the sweep is in `Benchmarks/NOTES.md`, "The window behind, from the user's
    /// habits").
    @usableFromInline static let decay = 0.8

    /// No motion seen yet.
    public static let none = ScrollHistory(motions: 0, reversals: 0, sweptLength: 0)

    /// Creates a history.
    ///
    /// Out-of-range values are clamped: negative or non-finite counts become 0, `reversals`
    /// never exceeds `motions`, and a negative or non-finite length becomes 0.
    package init(motions: Double, reversals: Double, sweptLength: Double) {
        let motions = motions.isFinite ? Swift.max(motions, 0) : 0
        self.motions = motions
        self.reversals = reversals.isFinite ? Swift.min(Swift.max(reversals, 0), motions) : 0
        self.sweptLength = sweptLength.isFinite ? Swift.max(sweptLength, 0) : 0
    }

    /// The estimated chance that the next motion reverses the last one: the share of reversals,
    /// starting from `prior` as if `priorWeight` motions had shown it.
    ///
    /// With no history it is `prior`; each observed motion pulls it toward what the user does.
    func reversalShare(prior: Double, priorWeight: Double) -> Double {
        let weight = priorWeight.isFinite ? Swift.max(priorWeight, 0) : 0
        let prior = prior.isFinite ? Swift.min(Swift.max(prior, 0), 1) : 0
        guard motions + weight > 0 else { return prior }
        return (reversals + prior * weight) / (motions + weight)
    }
}

/// Follows the frames a controller sees and keeps its ``ScrollHistory``.
@usableFromInline
struct ScrollHistoryTracker {
    @usableFromInline var history = ScrollHistory.none
    /// Where the viewport's leading edge was when the current motion began; nil at rest.
    @usableFromInline var motionStart: Double?
    /// The direction of the last motion counted: 1, -1, or 0 before any.
    @usableFromInline var lastDirection = 0

    init() {}

    /// Takes one frame. `previous` is the viewport of the frame before.
    @inlinable
    mutating func observe(_ state: ScrollState, previous: Range<Double>?) {
        let offset = state.viewport.lowerBound
        let atRest = state.phase == .idle && state.velocity == 0
        if !atRest {
            let start = motionStart ?? previous?.lowerBound ?? offset
            motionStart = start
            history.sweptLength = abs(offset - start)
            return
        }
        guard let start = motionStart else {
            // Still at rest: a viewport that moved a quarter of its length anyway was a jump,
            // with nothing travelled. (Smaller moves, such as pixel snapping, are not.)
            if let previous, abs(previous.lowerBound - offset) >= 0.25 * state.viewportLength { history.sweptLength = 0 }
            return
        }
        motionStart = nil
        let travelled = offset - start
        history.sweptLength = abs(travelled)
        guard abs(travelled) >= 0.25 * state.viewportLength else { return }
        let direction = travelled > 0 ? 1 : -1
        if lastDirection != 0 {
            history.motions = history.motions * ScrollHistory.decay + 1
            history.reversals = history.reversals * ScrollHistory.decay + (direction != lastDirection ? 1 : 0)
        }
        lastDirection = direction
    }
}
