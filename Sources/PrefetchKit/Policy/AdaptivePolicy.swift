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
    /// - **Skipping.** Items the view will pass completely before a load could finish are left
    ///   out; items it reaches before a load could finish but that stay in view afterwards come
    ///   last. Everything else is ordered by the time until it is displayed.
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

        /// The defaults: margin 0.5, lead 1 to 6 viewports, 0.25 behind, 300 ms until measured.
        public static let standard = Adaptive(
            validatedMargin: 0.5, minimumLead: 1, maximumLead: 6, behind: 0.25, fallbackLatency: .milliseconds(300))

        /// Creates an adaptive policy.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when a
        ///   length is negative or not finite, `minimumLead > maximumLead`, or the latency is negative.
        public init(
            margin: Double = 0.5, minimumLead: Double = 1, maximumLead: Double = 6, behind: Double = 0.25,
            fallbackLatency: Duration = .milliseconds(300)
        ) throws {
            for (value, name) in [(margin, "margin"), (minimumLead, "minimumLead"), (maximumLead, "maximumLead"), (behind, "behind")] {
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
            self.init(validatedMargin: margin, minimumLead: minimumLead, maximumLead: maximumLead, behind: behind, fallbackLatency: fallbackLatency)
        }

        private init(validatedMargin: Double, minimumLead: Double, maximumLead: Double, behind: Double, fallbackLatency: Duration) {
            self.margin = validatedMargin
            self.minimumLead = minimumLead
            self.maximumLead = maximumLead
            self.behind = behind
            self.fallbackLatency = fallbackLatency
        }

        /// `adaptive`.
        public var name: String { "adaptive" }

        /// Plans the resting viewport of a fling first, then the path in order of arrival.
        /// - Complexity: O(1)
        public func plan(for context: ScrollContext) -> PrefetchPlan {
            let length = context.viewportLength
            guard length.isFinite, length > 0, context.contentLength.isFinite, context.viewport.lowerBound.isFinite else {
                return .empty
            }
            let latency = (context.expectedLatency ?? fallbackLatency).seconds
            let speed = abs(context.velocity.isFinite ? context.velocity : 0)
            let forward = context.direction >= 0
            let path = Path(context: context, forward: forward)

            if context.isDecelerating, speed > 0, context.decelerationRate > 0, context.decelerationRate < 1 {
                let rate = context.decelerationRate
                let stopping = speed / 1000 * rate / (1 - rate)
                let travelledByLatency = stopping * (1 - Foundation.pow(rate, latency * 1000))
                // The resting viewport, and a margin past it.
                let rest = path.region(from: stopping - margin * length * 0.5, to: stopping + length + margin * length)
                // Items reached after a load could finish, in order of arrival.
                let inTime = path.region(from: travelledByLatency, to: stopping - margin * length * 0.5)
                // Items reached sooner but still on screen once a load finishes.
                let late = path.region(from: max(travelledByLatency - length, minimumLead * length), to: travelledByLatency)
                // The window kept at rest stays, so loads already under way for it are not cancelled;
                // between it and `late` lie the items the view passes before any load could finish.
                let kept = path.region(from: 0, to: min(minimumLead * length, travelledByLatency))
                return PrefetchPlan(regions: [rest, inTime, late, kept, path.behind(behind * length)].compactMap { $0 })
            }

            let lead = min(max(speed * latency + margin * length, minimumLead * length), maximumLead * length)
            let reachedBeforeLoad = min(speed * latency, lead)
            let inTime = path.region(from: reachedBeforeLoad, to: lead)
            let late = path.region(from: 0, to: reachedBeforeLoad)
            return PrefetchPlan(regions: [inTime, late, path.behind(behind * length)].compactMap { $0 })
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

