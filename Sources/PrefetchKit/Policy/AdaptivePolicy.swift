import Foundation

extension PrefetchPolicies {
    /// A policy that sizes and aims its window from how fast the view moves, where a fling will
    /// stop, and how long loads take.
    ///
    /// - **Lead.** Ahead of the viewport it covers `speed × expected latency + margin`, between
    ///   ``minimumLead`` and ``maximumLead`` viewports: a slow scroll keeps a small window (little
    ///   waste), a fast one reaches far enough that loads finish before their items arrive.
    /// - **Flings.** While the view coasts, it predicts the resting offset from the deceleration
    ///   rate (UIKit's `v·r/(1−r)` per ms) and asks for the resting viewport first: those cells
    ///   stay on screen, so a blank one there costs the most.
    /// - **Skipping.** Items the view will reach before a load could finish come last: the
    ///   concurrency cap goes to items that can still be ready in time, nearest arrival first.
    ///   (They stay in the plan, so a load already under way for one is not cancelled.)
    /// - **Behind.** A little of the content behind the viewport is kept only while scrolling slowly.
    /// - **Latency.** It uses ``ScrollContext/expectedLatency`` (an `AsyncFetcher` reports its recent
    ///   90th percentile) and ``fallbackLatency`` before any load has finished.
    public struct Adaptive: PrefetchPolicy, Hashable {
        /// Viewports added to `speed × latency` ahead of the viewport.
        public let margin: Double
        /// The smallest window ahead, in viewports (also the window at rest).
        public let minimumLead: Double
        /// The largest window ahead, in viewports.
        public let maximumLead: Double
        /// Viewports kept behind the viewport, for small reversals.
        public let behind: Double
        /// The latency assumed before the fetcher has measured one.
        public let fallbackLatency: Duration
        /// How many times the expected latency the lead covers while dragging.
        public let latencyMultiplier: Double
        /// The share of the expected latency (a 90th percentile) after which an item counts as
        /// reachable in time. Latencies have long tails, so most loads finish well before the
        /// 90th percentile; 0.35 is about the median of a mobile network's latency.
        public let inTimeShare: Double

        /// The defaults, chosen by sweeping the standard suite (`prefetch-bench`): margin 0.5, lead
        /// 1.25 to 6 viewports, 0.1 behind, 2.5 × the expected latency, 300 ms until measured.
        public static let standard = Adaptive(
            validatedMargin: 0.5, minimumLead: 1.25, maximumLead: 6, behind: 0.1, fallbackLatency: .milliseconds(300),
            latencyMultiplier: 2.5, inTimeShare: 0.35)

        /// Creates an adaptive policy.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when a
        ///   length is negative or not finite, `minimumLead > maximumLead`, or the latency is negative.
        public init(
            margin: Double = 0.5, minimumLead: Double = 1.25, maximumLead: Double = 6, behind: Double = 0.1,
            fallbackLatency: Duration = .milliseconds(300), latencyMultiplier: Double = 2.5, inTimeShare: Double = 0.35
        ) throws {
            let lengths = [(margin, "margin"), (minimumLead, "minimumLead"), (maximumLead, "maximumLead"), (behind, "behind"),
                           (latencyMultiplier, "latencyMultiplier"), (inTimeShare, "inTimeShare")]
            for (value, name) in lengths {
                guard value.isFinite, value >= 0 else {
                    throw PrefetchError(.invalidConfiguration, "Adaptive \(name) is \(value), but it must be a finite number of viewports, at least 0")
                }
            }
            guard minimumLead <= maximumLead else {
                throw PrefetchError(.invalidConfiguration, "Adaptive minimumLead (\(minimumLead)) must not exceed maximumLead (\(maximumLead))")
            }
            guard fallbackLatency >= .zero else {
                throw PrefetchError(.invalidConfiguration, "Adaptive fallbackLatency is \(fallbackLatency), but it must not be negative")
            }
            self.init(validatedMargin: margin, minimumLead: minimumLead, maximumLead: maximumLead, behind: behind,
                      fallbackLatency: fallbackLatency, latencyMultiplier: latencyMultiplier, inTimeShare: inTimeShare)
        }

        private init(validatedMargin: Double, minimumLead: Double, maximumLead: Double, behind: Double, fallbackLatency: Duration,
                     latencyMultiplier: Double, inTimeShare: Double) {
            self.latencyMultiplier = latencyMultiplier
            self.inTimeShare = inTimeShare
            self.margin = validatedMargin
            self.minimumLead = minimumLead
            self.maximumLead = maximumLead
            self.behind = behind
            self.fallbackLatency = fallbackLatency
        }

        /// `adaptive`.
        public var name: String { "adaptive" }

        /// Plans the resting viewport of a fling first, then the path in order of arrival.
        ///
        /// The regions are contiguous from the viewport's leading edge, so an item never leaves the
        /// plan and comes back a frame later (which would cancel and restart its load); what this
        /// policy skips, it skips by putting it last.
        /// - Complexity: O(1)
        public func plan(for context: ScrollContext) -> PrefetchPlan {
            let length = context.viewportLength
            guard length.isFinite, length > 0, context.contentLength.isFinite, context.viewport.lowerBound.isFinite else {
                return .empty
            }
            let expected = (context.expectedLatency ?? fallbackLatency).seconds
            let latency = expected * latencyMultiplier
            let inTimeLatency = expected * inTimeShare
            let speed = abs(context.velocity.isFinite ? context.velocity : 0)
            let path = Path(context: context, forward: context.direction >= 0)
            let atRest = minimumLead * length
            // Behind the viewport only while reading slowly: during fast scrolling the items just
            // passed would enter and leave the window every frame.
            let behindRegion = speed < length / 2 ? path.behind(behind * length) : nil

            if context.isDecelerating, speed > 0, context.decelerationRate > 0, context.decelerationRate < 1 {
                let rate = context.decelerationRate
                let stopping = speed / 1000 * rate / (1 - rate)
                let reachedByLoad = min(stopping * (1 - Foundation.pow(rate, inTimeLatency * 1000)), stopping)
                let restStart = max(stopping - length / 4, 0)
                // Where the fling stops, and the window kept there once it has stopped.
                let rest = path.region(from: restStart, to: stopping + atRest)
                // Items reached after a load could finish, in order of arrival.
                let inTime = path.region(from: reachedByLoad, to: restStart)
                // Items reached sooner: most fly past before their data could arrive, so they come last.
                let soon = path.region(from: 0, to: min(reachedByLoad, restStart))
                return PrefetchPlan(regions: [inTime, rest, soon, behindRegion].compactMap { $0 })
            }

            let lead = min(max(speed * latency + margin * length, atRest), maximumLead * length)
            let reachedByLoad = min(speed * inTimeLatency, lead)
            let inTime = path.region(from: reachedByLoad, to: lead)
            let soon = path.region(from: 0, to: reachedByLoad)
            return PrefetchPlan(regions: [inTime, soon, behindRegion].compactMap { $0 })
        }
    }
}

extension PrefetchPolicy where Self == PrefetchPolicies.Adaptive {
    /// The adaptive policy with its defaults: ``PrefetchPolicies/Adaptive/standard``.
    public static var adaptive: PrefetchPolicies.Adaptive { PrefetchPolicies.Adaptive.standard }
}

/// Distances measured from the viewport's leading edge in the direction of travel.
private struct Path {
    let context: ScrollContext
    let forward: Bool

    /// The content range from `near` to `far` points past the leading edge, clipped to the content.
    func region(from near: Double, to far: Double) -> Range<Double>? {
        guard far > near else { return nil }
        let lower: Double, upper: Double
        if forward {
            lower = max(context.viewport.upperBound + max(near, 0), 0)
            upper = min(context.viewport.upperBound + far, context.contentLength)
        } else {
            lower = max(context.viewport.lowerBound - far, 0)
            upper = min(context.viewport.lowerBound - max(near, 0), context.contentLength)
        }
        return lower < upper ? lower..<upper : nil
    }

    /// `distance` points behind the trailing edge.
    func behind(_ distance: Double) -> Range<Double>? {
        Path(context: context, forward: !forward).region(from: 0, to: distance)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

