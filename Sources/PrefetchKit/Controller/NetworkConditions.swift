/// What the network costs the user now, as a ``PrefetchController`` takes it: Low Data Mode, an
/// expensive link (cellular, a personal hotspot), and the app's own cap on prefetched bytes.
///
/// Visible loads are never held back; only what the controller requests ahead of need is:
///
/// - **Constrained** (Low Data Mode, `NWPath.isConstrained`): only what the controller expects
///   to show with high confidence: where a fling or an animated scroll comes to rest (its
///   landing zone) and the slow end of the way there; while dragging, what the viewport reaches
///   within twice the expected latency; at rest, three quarters of the next screen the way the
///   user was going (nothing after a jump). What leaves the plan is withdrawn at once instead of
///   after the withdrawal grace.
/// - **Expensive** (`NWPath.isExpensive`), milder: the policy's window, but no farther than a
///   screen and a half past the viewport and the landing zone (about half the wasted loads of
///   the whole window).
/// - **A byte budget** (``prefetchBudget``), under any conditions: at most the budget's loads in
///   any minute of the controller's clock; a request beyond it waits until the minute allows it.
///
/// ```swift
/// controller.networkConditions = NetworkConditions(
///     isConstrained: true, prefetchBudget: try PrefetchDataBudget(bytesPerMinute: 2_000_000, bytesPerLoad: 80_000))
/// ```
public struct NetworkConditions: Sendable, Hashable {
    /// Low Data Mode: prefetch only the landing zone of a fling, or the next screen.
    public var isConstrained: Bool
    /// A costly link: prefetch the policy's window, no farther than a screen and a half ahead.
    public var isExpensive: Bool
    /// The most prefetching per minute the app allows; `nil` for no cap.
    public var prefetchBudget: PrefetchDataBudget?

    /// Creates conditions; by default the network is free and unlimited.
    public init(isConstrained: Bool = false, isExpensive: Bool = false, prefetchBudget: PrefetchDataBudget? = nil) {
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
        self.prefetchBudget = prefetchBudget
    }

    /// A free, unlimited network.
    package static let normal = NetworkConditions()
    /// Low Data Mode.
    package static let constrained = NetworkConditions(isConstrained: true)
    /// An expensive network.
    package static let expensive = NetworkConditions(isExpensive: true)
}

/// A cap on prefetched bytes per minute, and the size the controller counts for each prefetch.
///
/// The controller counts a prefetch when it first requests an item ahead of need (again if the
/// item left its plan and came back), whether or not the fetcher had it cached already, so it
/// never spends more than the budget, though it may spend less.
public struct PrefetchDataBudget: Sendable, Hashable {
    /// The most bytes of prefetching in any minute.
    let bytesPerMinute: Int
    /// The bytes one prefetch is expected to transfer (a typical response).
    let bytesPerLoad: Int

    /// Creates a budget.
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when
    ///   `bytesPerMinute` is negative or `bytesPerLoad` is not positive.
    public init(bytesPerMinute: Int, bytesPerLoad: Int) throws {
        guard bytesPerMinute >= 0 else {
            throw PrefetchError(.invalidConfiguration, "PrefetchDataBudget bytesPerMinute is \(bytesPerMinute), but it must be 0 or more")
        }
        guard bytesPerLoad > 0 else {
            throw PrefetchError(.invalidConfiguration, "PrefetchDataBudget bytesPerLoad is \(bytesPerLoad), but it must be more than 0")
        }
        self.bytesPerMinute = bytesPerMinute
        self.bytesPerLoad = bytesPerLoad
    }

    /// How many prefetches fit one minute.
    var loadsPerMinute: Int { bytesPerMinute / bytesPerLoad }
}
