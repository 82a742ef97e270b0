// Between the clock's `Duration`s and the seconds the tracker and the planner compute in.
extension Duration {
    /// The duration in seconds, as a `Double`.
    @inlinable
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// `seconds` as a duration, held to what a duration can hold (about ±292 billion years); NaN
    /// gives zero. `Duration.seconds(_:)` traps outside that range.
    static func saturating(seconds: Double) -> Duration {
        let limit = 9.2e18   // just under Int64.max seconds
        if seconds.isNaN { return .zero }
        return .seconds(min(max(seconds, -limit), limit))
    }
}
