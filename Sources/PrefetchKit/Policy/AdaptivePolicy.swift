import Foundation

extension PrefetchPolicies {
    /// A policy that sizes and aims its window from how the view moves and how long loads take.
    ///
    /// It only says where to hold interest; the ``PrefetchController`` ranks the items by when
    /// they will be on screen and for how long, so a cell that a fling carries past cannot take a
    /// load slot from the cells where the fling comes to rest.
    ///
    /// - **Dragging.** Ahead of the viewport it covers `speed × expected latency × latencyMultiplier
    ///   + margin`, between `minimumLead` and `maximumLead` viewports: a slow scroll keeps a
    ///   small window (little waste), a fast one reaches far enough that loads finish in time.
    /// - **Flings.** While the view coasts it covers the whole way to the resting viewport, the
    ///   resting viewport, and `idleLead` viewports past it. The controller ranks the way: the
    ///   cells where the fling stops load first, then the cells it passes slowly enough to show
    ///   their data, and the cells it flies past take no slot. The way is bounded by the
    ///   deceleration itself (about half a second of the release velocity at UIKit's normal rate).
    /// - **Animated scrolls.** The destination's viewport and `idleLead` viewports past it.
    /// - **At rest.** `idleLead` viewports the way the user was going (``ScrollContext/heading``),
    ///   so the next fling that way starts on loaded cells. Fling endings keep the same window, so
    ///   nothing is cancelled when the view stops.
    /// - **Behind.** `behind` viewports behind the viewport at rest and while scrolling slowly (up
    ///   to half a viewport per second), fading to nothing at a viewport per second: during fast
    ///   scrolling the items just passed would enter and leave every frame. The fade, rather
    ///   than a switch at one speed, keeps the row at the band's edge from coming and going when
    ///   the speed read from frame to frame wavers around a threshold.
    /// - **Users who turn back.** The controller's ``ScrollContext/history`` estimates how often
    ///   the user reverses (the share of reversals among its motions, starting from
    ///   `reversalPrior` as if a few motions had shown it). At rest the window behind grows with the odds of a reversal `p/(1−p)`:
    ///   `2 × idleLead × p/(1−p)` viewports, at most `idleLead` (both after `aggressiveness`);
    ///   with the prior 0.2 that is 1.5 viewports. While a fling coasts, a user whose share is above 0.25 keeps
    ///   `reversalBehind` viewports behind, so the loads of rows just passed finish instead of
    ///   being cancelled. Both stop at the content the latest motion travelled
    ///   (``ScrollHistory/sweptLength``): after a jump nothing behind was seen, and loading it
    ///   would be waste.
    /// - **Latency.** ``ScrollContext/expectedLatency``: the latency the controller ranks with (an
    ///   `AsyncFetcher` reports its recent 90th percentile; the controller's fallback stands in
    ///   before any load has finished).
    /// - **Budget.** `aggressiveness` scales every length ahead: the knob a frontier sweeps to
    ///   trade wasted loads for blank cells.
    public struct Adaptive: PrefetchPolicy, Hashable {
        // The parameters, as the initialiser describes them.
        let margin, minimumLead, maximumLead, idleLead, behind, latencyMultiplier: Double
        let reversalPrior, reversalBehind, aggressiveness: Double

        /// The defaults: margin 0.5, lead 1.25 to 4 viewports while dragging, 3 at rest, 0.1
        /// behind, 3.5 × the expected latency, reversal prior 0.2, 1.5
        /// viewports behind a coasting fling for users who turn back, aggressiveness 1.
        ///
        /// Chosen on generated training traces only (seeds 1–10 of each profile, every latency
        /// profile); the sweeps are in `Benchmarks/NOTES.md`, the rules of the split in the
        /// PrefetchSimulation article "Generated traces and the train/test split". `idleLead` 3 is
        /// the smallest window at rest whose blank time there is at most 0.85 × `textureLike`'s
        /// under every latency profile. The reversal constants (prior 0.2 weighted as 4 motions,
        /// `2 × idleLead × odds` at rest, `reversalBehind` 1.5 above a share of 0.25) were swept
        /// on seeds 1–50 of each profile under lte and emerging, to leave the fewest traces below
        /// `textureLike` without more blank time.
        package static let standard = Adaptive(
            validatedMargin: 0.5, minimumLead: 1.25, maximumLead: 4, idleLead: 3, behind: 0.1,
            latencyMultiplier: 3.5, reversalPrior: 0.2, reversalBehind: 1.5,
            aggressiveness: 1)

        /// How many motions the `reversalPrior` counts as: 4.
        static let reversalPriorWeight = 4.0
        /// The estimated reversal share above which a coasting fling keeps `reversalBehind`: 0.25.
        static let reversalThreshold = 0.25
        /// The speed, in viewports per second, at which the band behind a moving view has faded
        /// to nothing; it is whole up to half a viewport per second.
        static let behindFadeEnd = 1.0

        /// The share of `behind` kept behind a view moving at `speed`: 1 up to half a viewport per
        /// second, 0 from ``behindFadeEnd`` viewports per second, linear between, so a speed read
        /// a little differently from frame to frame moves the band's edge by as little and the
        /// row at its edge does not come and go.
        static func behindShare(speed: Double, viewportLength length: Double) -> Double {
            let start = length / 2, end = behindFadeEnd * length
            guard end > start else { return speed < start ? 1 : 0 }
            return min(max((end - speed) / (end - start), 0), 1)
        }

        /// Creates an adaptive policy.
        ///
        /// - Parameters:
        ///   - margin: Viewports added to `speed × latency × latencyMultiplier` ahead of the
        ///     viewport while dragging.
        ///   - minimumLead: The smallest window ahead while dragging, in viewports.
        ///   - maximumLead: The largest window ahead while dragging, in viewports.
        ///   - idleLead: The window past the viewport at rest, and past where a fling or an
        ///     animated scroll stops, in viewports, the way the user was going.
        ///   - behind: Viewports kept behind the viewport, for small reversals.
        ///   - latencyMultiplier: How many times the expected latency the lead covers while dragging.
        ///   - reversalPrior: The share of motions assumed to turn back before the user's own
        ///     motions say more (about one motion in five turns back in the generated traces).
        ///   - reversalBehind: Viewports kept behind while a fling coasts, for a user whose
        ///     estimated reversal share is above 0.25.
        ///   - aggressiveness: The budget knob: every length ahead (the lead while dragging, after
        ///     its clamp to `minimumLead...maximumLead`, and `idleLead`) is multiplied by it. Below
        ///     1 the policy wastes fewer loads and leaves more cells blank; above 1 the reverse.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when a
        ///   length is negative or not finite, `minimumLead > maximumLead`, or `reversalPrior` is
        ///   outside 0...1.
        public init(
            margin: Double = 0.5, minimumLead: Double = 1.25, maximumLead: Double = 4, idleLead: Double = 3,
            behind: Double = 0.1, latencyMultiplier: Double = 3.5,
            reversalPrior: Double = 0.2, reversalBehind: Double = 1.5, aggressiveness: Double = 1
        ) throws {
            let lengths = [(margin, "margin"), (minimumLead, "minimumLead"), (maximumLead, "maximumLead"), (idleLead, "idleLead"),
                           (behind, "behind"), (latencyMultiplier, "latencyMultiplier"), (reversalBehind, "reversalBehind"),
                           (aggressiveness, "aggressiveness")]
            for (value, name) in lengths {
                guard value.isFinite, value >= 0 else {
                    throw PrefetchError(.invalidConfiguration, "Adaptive \(name) is \(value), but it must be a finite number of viewports, at least 0")
                }
            }
            guard minimumLead <= maximumLead else {
                throw PrefetchError(.invalidConfiguration, "Adaptive minimumLead (\(minimumLead)) must not exceed maximumLead (\(maximumLead))")
            }
            guard reversalPrior >= 0, reversalPrior <= 1 else {
                throw PrefetchError(.invalidConfiguration, "Adaptive reversalPrior is \(reversalPrior), but it must be a share from 0 to 1")
            }
            self.init(validatedMargin: margin, minimumLead: minimumLead, maximumLead: maximumLead, idleLead: idleLead,
                      behind: behind, latencyMultiplier: latencyMultiplier,
                      reversalPrior: reversalPrior, reversalBehind: reversalBehind, aggressiveness: aggressiveness)
        }

        private init(validatedMargin: Double, minimumLead: Double, maximumLead: Double, idleLead: Double, behind: Double,
                     latencyMultiplier: Double, reversalPrior: Double, reversalBehind: Double,
                     aggressiveness: Double) {
            self.margin = validatedMargin
            self.minimumLead = minimumLead
            self.maximumLead = maximumLead
            self.idleLead = idleLead
            self.behind = behind
            self.latencyMultiplier = latencyMultiplier
            self.reversalPrior = reversalPrior
            self.reversalBehind = reversalBehind
            self.aggressiveness = aggressiveness
        }

        /// The same policy with another `aggressiveness` (what `prefetch-bench --frontier` sweeps).
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when
        ///   `aggressiveness` is negative or not finite.
        func with(aggressiveness: Double) throws -> Adaptive {
            try Adaptive(margin: margin, minimumLead: minimumLead, maximumLead: maximumLead, idleLead: idleLead, behind: behind,
                         latencyMultiplier: latencyMultiplier,
                         reversalPrior: reversalPrior, reversalBehind: reversalBehind, aggressiveness: aggressiveness)
        }

        /// `adaptive`.
        public var name: String { "adaptive" }

        /// Plans the way ahead and where the motion stops, contiguous from the viewport where
        /// the motion passes through.
        /// - Complexity: O(1)
        public func plan(for context: ScrollContext) -> PrefetchPlan {
            let length = context.viewportLength
            guard length.isFinite, length > 0, context.contentLength.isFinite, context.viewport.lowerBound.isFinite else {
                return .empty
            }
            let speed = abs(context.velocity.isFinite ? context.velocity : 0)
            // The band behind, in full up to half a viewport per second, fading to nothing at
            // `Self.behindFadeEnd` viewports per second.
            let behindShare = Self.behindShare(speed: speed, viewportLength: length)
            let idleLead = self.idleLead * aggressiveness
            let reversal = context.history.reversalShare(prior: reversalPrior, priorWeight: Self.reversalPriorWeight)
            // Never behind more than the latest motion travelled: the rest was never seen.
            let swept = context.history.sweptLength
            switch context.phase {
            case let .decelerating(rest, _) where rest.isFinite && rest != context.viewport.lowerBound:
                let path = Path(context: context, forward: rest > context.viewport.lowerBound)
                // From the leading edge to the far side of the resting viewport, then the window kept at rest.
                let restFar = abs(rest - context.viewport.lowerBound)
                let way = path.region(from: 0, to: restFar)
                let atRest = path.region(from: max(restFar - length, 0), to: restFar + idleLead * length)
                let kept = reversal > Self.reversalThreshold ? min(reversalBehind * length, swept) : 0
                let behindLength = max(behind * length * behindShare, kept)
                return PrefetchPlan(regions: [way, atRest, path.behind(behindLength)].compactMap { $0 })
            case let .programmatic(target, _) where target.isFinite && target != context.viewport.lowerBound:
                let forward = target > context.viewport.lowerBound
                let destination = target..<(target + length)
                let path = Path(viewport: destination, contentLength: context.contentLength, forward: forward)
                let region = clip(destination, context.contentLength)
                return PrefetchPlan(regions: [region, path.region(from: 0, to: idleLead * length)].compactMap { $0 })
            case .idle, .decelerating, .programmatic:
                let path = Path(context: context, forward: context.heading >= 0)
                let odds = reversal < 1 ? reversal / (1 - reversal) : .infinity
                let kept = min(idleLead * min(2 * odds, 1) * length, swept)
                let behindLength = max(behind * length, kept)
                return PrefetchPlan(regions: [path.region(from: 0, to: idleLead * length), path.behind(behindLength)].compactMap { $0 })
            case .dragging:
                let latency = context.expectedLatency.seconds * latencyMultiplier
                let path = Path(context: context, forward: context.direction == 0 ? context.heading >= 0 : context.direction > 0)
                let lead = min(max(speed * latency + margin * length, minimumLead * length), maximumLead * length) * aggressiveness
                return PrefetchPlan(regions: [path.region(from: 0, to: lead), path.behind(behind * length * behindShare)].compactMap { $0 })
            }
        }
    }
}

/// Distances measured from a viewport's leading edge in the direction of travel.
private struct Path {
    let viewport: Range<Double>
    let contentLength: Double
    let forward: Bool

    init(viewport: Range<Double>, contentLength: Double, forward: Bool) {
        self.viewport = viewport
        self.contentLength = contentLength
        self.forward = forward
    }

    init(context: ScrollContext, forward: Bool) {
        self.init(viewport: context.viewport, contentLength: context.contentLength, forward: forward)
    }

    /// The content range from `near` to `far` points past the leading edge, clipped to the content.
    func region(from near: Double, to far: Double) -> Range<Double>? {
        guard far > Swift.max(near, 0) else { return nil }
        if forward {
            return clip((viewport.upperBound + max(near, 0))..<(viewport.upperBound + far), contentLength)
        }
        return clip((viewport.lowerBound - far)..<(viewport.lowerBound - max(near, 0)), contentLength)
    }

    /// `distance` points behind the trailing edge.
    func behind(_ distance: Double) -> Range<Double>? {
        Path(viewport: viewport, contentLength: contentLength, forward: !forward).region(from: 0, to: distance)
    }
}

/// `range` clipped to the content, or nil when nothing of it is left.
private func clip(_ range: Range<Double>, _ contentLength: Double) -> Range<Double>? {
    let lower = max(range.lowerBound, 0)
    let upper = min(range.upperBound, contentLength)
    return lower < upper ? lower..<upper : nil
}
