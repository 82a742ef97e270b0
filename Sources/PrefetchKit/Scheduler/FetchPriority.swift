/// How urgently a load is wanted: a level, and an order within the level.
///
/// Higher levels start first; within a level, a lower ``order`` starts first (give the distance
/// from the viewport, so the nearest item loads first). Equal priorities start in request order.
/// A load's priority is the highest priority among its interests, and it changes while the load
/// waits: a prefetched item that becomes visible moves ahead of every prefetch at once.
///
/// ```swift
/// fetcher.prefetch(ids)                                   // .prefetch, nearest first
/// let value = try await fetcher.value(for: id)            // .visible
/// let urgent = FetchPriority(level: .visible, order: -1)  // ahead of other visible loads
/// ```
public struct FetchPriority: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A coarse priority level. Add levels of your own between the built-in ones.
    public struct Level: RawRepresentable, Sendable, Hashable, Comparable {
        /// The numeric level; higher is more urgent.
        public var rawValue: Int
        /// Creates a level from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Work nobody is looking at or about to look at (warming a cache).
        public static let background = Level(rawValue: 0)
        /// Data for items expected to scroll into view soon.
        public static let prefetch = Level(rawValue: 100)
        /// Data for items on screen now.
        public static let visible = Level(rawValue: 200)

        /// Orders levels by urgency.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The level.
    public var level: Level
    /// The order within the level: lower starts first (for example, the distance from the viewport).
    public var order: Double

    /// Creates a priority.
    public init(level: Level, order: Double = 0) {
        self.level = level
        self.order = order
    }

    /// A visible item's priority.
    public static let visible = FetchPriority(level: .visible)
    /// A prefetch's priority.
    public static let prefetch = FetchPriority(level: .prefetch)
    /// Background work's priority.
    public static let background = FetchPriority(level: .background)

    /// Orders by urgency: `a < b` means `b` should start before `a`.
    public static func < (lhs: FetchPriority, rhs: FetchPriority) -> Bool {
        if lhs.level != rhs.level { return lhs.level < rhs.level }
        return lhs.order > rhs.order
    }

    /// The urgency a network request for this load should carry, on the scale of HTTP's
    /// extensible priorities (RFC 9218: 0 to 7, lower is more urgent, 3 when a request says
    /// nothing): 1 at ``Level/visible`` and above, 3 at ``Level/prefetch`` and above, 4 at
    /// ``Level/speculative`` and above, 5 below. A server that honours it sends a visible cell's
    /// bytes before any prefetch's on a saturated link; `PrefetchHTTP`'s `HTTPLoader` sends it as
    /// the `Priority` header.
    ///
    /// ```swift
    /// let header = "u=\(FetchPriority.visible.urgency)"   // "u=1"
    /// ```
    public var urgency: Int {
        if level >= .visible { return 1 }
        if level >= .prefetch { return 3 }
        return level >= .speculative ? 4 : 5
    }

    /// A readable form such as `visible#0` or `prefetch#3`.
    public var description: String {
        let name: String
        switch level {
        case .visible: name = "visible"
        case .prefetch: name = "prefetch"
        case .background: name = "background"
        default: name = "level\(level.rawValue)"
        }
        return order == 0 ? name : "\(name)#\(order.formatted())"
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
