/// The built-in prefetch policies.
///
/// Each built-in policy has one name here, the same the bench and the demo print:
///
/// ```swift
/// controller.policy = PrefetchPolicies.adaptive        // the default
/// controller.policy = PrefetchPolicies.textureLike
/// controller.policy = try PrefetchPolicies.UIKitLike(lead: 1.0)   // tuned
/// ```
public enum PrefetchPolicies {
    /// A policy that prefetches nothing.
    public static let none = NoPrefetch()

    /// UIKit's observed behaviour: about 0.75 viewport ahead in the direction of travel.
    public static let uikitLike = UIKitLike.standard

    /// Texture's preload defaults: 2.5 viewports ahead, 1.5 behind.
    public static let textureLike = TextureLike.standard

    /// The adaptive policy with its measured defaults (see ``Adaptive``): the default of every
    /// prefetcher and controller.
    public static let adaptive = Adaptive.standard

    /// A policy that never prefetches.
    public struct NoPrefetch: PrefetchPolicy, Hashable {
        init() {}

        /// `"none"`.
        public var name: String { "none" }

        /// Returns ``PrefetchPlan/empty``.
        ///
        /// - Complexity: O(1).
        public func plan(for context: ScrollContext) -> PrefetchPlan { .empty }
    }

    /// A window of `lead` viewports ahead of the viewport in the direction of travel, as
    /// UIKit's collection view does; at rest the window lies toward the end of the content.
    ///
    /// On a direction reversal the window flips to the other side of the viewport, so the
    /// items that were ahead leave the plan and the view cancels them. During an animated
    /// scroll the window lies around the destination: its viewport, and the window past it.
    public struct UIKitLike: PrefetchPolicy, Hashable {
        /// The window's length in viewports (0.75 by default).
        let lead: Double

        /// The default: 0.75 viewport ahead.
        static let standard = UIKitLike(validatedLead: 0.75)

        /// Creates the policy.
        ///
        /// - Parameter lead: The window's length in viewports; finite and at least 0.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration``
        ///   when `lead` is negative, NaN or infinite.
        public init(lead: Double = 0.75) throws {
            try validateLength(lead, name: "UIKitLike lead")
            self.lead = lead
        }

        private init(validatedLead: Double) { self.lead = validatedLead }

        /// `"uikitLike"`.
        public var name: String { "uikitLike" }

        /// Returns one region: `lead` viewports ahead of the viewport.
        ///
        /// - Complexity: O(1).
        public func plan(for context: ScrollContext) -> PrefetchPlan {
            guard let length = usableViewportLength(context) else { return .empty }
            let (viewport, towardEnd, destination) = aim(context)
            let ahead = windowAhead(of: viewport, context.contentLength, length: lead * length, towardEnd: towardEnd)
            return PrefetchPlan(regions: [destination, ahead].compactMap { $0 })
        }
    }

    /// Texture's preload range: `ahead` viewports in the direction of travel and `behind`
    /// viewports the other way; at rest "ahead" is toward the end of the content. During an
    /// animated scroll the range lies around the destination's viewport.
    public struct TextureLike: PrefetchPolicy, Hashable {
        /// The length ahead, in viewports (2.5 by default).
        let ahead: Double
        /// The length behind, in viewports (1.5 by default).
        let behind: Double

        /// The default: 2.5 viewports ahead, 1.5 behind.
        static let standard = TextureLike(validatedAhead: 2.5, behind: 1.5)

        /// Creates the policy.
        ///
        /// - Parameters:
        ///   - ahead: Viewports ahead of the viewport; finite and at least 0.
        ///   - behind: Viewports behind the viewport; finite and at least 0.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration``
        ///   when a length is negative, NaN or infinite.
        public init(ahead: Double = 2.5, behind: Double = 1.5) throws {
            try validateLength(ahead, name: "TextureLike ahead")
            try validateLength(behind, name: "TextureLike behind")
            self.ahead = ahead
            self.behind = behind
        }

        private init(validatedAhead: Double, behind: Double) {
            self.ahead = validatedAhead
            self.behind = behind
        }

        /// `"textureLike"`.
        public var name: String { "textureLike" }

        /// Returns the region ahead, then the region behind.
        ///
        /// - Complexity: O(1).
        public func plan(for context: ScrollContext) -> PrefetchPlan {
            guard let length = usableViewportLength(context) else { return .empty }
            let (viewport, towardEnd, destination) = aim(context)
            let regions = [
                destination,
                windowAhead(of: viewport, context.contentLength, length: ahead * length, towardEnd: towardEnd),
                windowAhead(of: viewport, context.contentLength, length: behind * length, towardEnd: !towardEnd),
            ]
            return PrefetchPlan(regions: regions.compactMap { $0 })
        }
    }
}

private func validateLength(_ value: Double, name: String) throws {
    guard value.isFinite, value >= 0 else {
        throw PrefetchError(
            .invalidConfiguration,
            "\(name) is \(value), but it must be a finite number of viewports, at least 0"
        )
    }
}

/// The viewport's length, or nil when the context is degenerate (empty, NaN).
private func usableViewportLength(_ context: ScrollContext) -> Double? {
    let length = context.viewportLength
    guard length.isFinite, length > 0, context.contentLength.isFinite,
        context.viewport.lowerBound.isFinite
    else { return nil }
    return length
}

/// Where a window-shaped policy aims: the viewport (the destination's during an animated scroll),
/// the direction ahead, and the destination's viewport as a region of its own.
private func aim(_ context: ScrollContext) -> (viewport: Range<Double>, towardEnd: Bool, destination: Range<Double>?) {
    if case let .programmatic(target, _) = context.phase, target.isFinite, target != context.viewport.lowerBound {
        let viewport = target..<(target + context.viewportLength)
        let lower = max(viewport.lowerBound, 0)
        let upper = min(viewport.upperBound, context.contentLength)
        return (viewport, target > context.viewport.lowerBound, lower < upper ? lower..<upper : nil)
    }
    return (context.viewport, context.direction >= 0, nil)
}

/// The window of `length` points just past `viewport`'s end (or before its start), clipped to
/// the content; nil when nothing of it lies in the content.
private func windowAhead(of viewport: Range<Double>, _ contentLength: Double, length: Double, towardEnd: Bool) -> Range<Double>? {
    guard length > 0 else { return nil }
    let lower: Double
    let upper: Double
    if towardEnd {
        lower = max(viewport.upperBound, 0)
        upper = min(viewport.upperBound + length, contentLength)
    } else {
        lower = max(viewport.lowerBound - length, 0)
        upper = min(viewport.lowerBound, contentLength)
    }
    guard lower < upper else { return nil }
    return lower..<upper
}
