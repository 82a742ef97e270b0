/// What limits a planner's requests: the network's conditions, the target's memory, a byte budget
/// and memory pressure (the PrefetchKit article "Budgets").
extension PrefetchPlanner {
    /// What restricts the plan on one frame, most restrictive first.
    @usableFromInline
    enum Restriction: Equatable {
        /// Nothing: the policy's plan.
        case none
        /// An expensive network: the policy's plan, no farther than ``expensiveReach`` screens
        /// past the viewport and the landing zone.
        case expensive
        /// Low Data Mode: the landing zone of a fling, or the next screen; items worth a slot.
        case constrained
        /// After a memory-pressure signal: the screen and the landing zone.
        case memoryPressure

        /// Whether the planner plans its own regions instead of the policy's.
        @usableFromInline
        var limitsRegions: Bool { self == .constrained || self == .memoryPressure }
    }

    /// The restriction at `time`.
    @usableFromInline
    func restriction(at time: Double) -> Restriction {
        if time < pressureUntil { return .memoryPressure }
        if conditions.isConstrained { return .constrained }
        return conditions.isExpensive ? .expensive : .none
    }

    /// Whether a memory-pressure signal still holds the plan to the screen and the landing zone.
    package var isUnderMemoryPressure: Bool {
        pressurePending || lastTime.map { $0 < pressureUntil } ?? false
    }

    /// The gate's rules under `restriction`, with the target's capacity (beyond it, to the
    /// target's store if it has one) and the byte budget.
    @usableFromInline
    func rules(for restriction: Restriction) -> RequestGate<Item>.Rules {
        RequestGate<Item>.Rules(worthOnly: restriction.limitsRegions, capacity: capacity,
                                budget: conditions.prefetchBudget, storesBeyondCapacity: hasStore)
    }

    /// The regions a restricted frame plans (the viewport is added by the caller), before the
    /// gate drops what would not show for a typical load. Under memory pressure: where a fling or
    /// an animated scroll comes to rest. Under Low Data Mode: the way to that landing zone and the
    /// zone itself (of the way, the gate keeps only the slow end); while dragging, what the
    /// viewport reaches within twice the expected latency, at most two screens; at rest, three
    /// quarters of the next screen the way the user was going, but no farther than the latest
    /// motion travelled (after a jump, nothing: no direction to trust).
    @usableFromInline
    func restrictedRegions(_ restriction: Restriction, _ state: ScrollState, _ forecast: MotionForecast) -> [Range<Double>] {
        let viewport = state.viewport, length = state.viewportLength
        if let landing = forecast.landingZone {
            guard restriction == .constrained else { return [landing] }
            return [Swift.min(landing.lowerBound, viewport.upperBound)..<Swift.max(landing.upperBound, viewport.lowerBound)]
        }
        guard restriction == .constrained else { return [] }
        let lead: Double
        if state.velocity != 0, case .dragging = state.phase {
            lead = Swift.min(abs(state.velocity) * Self.constrainedDragLatencies * latency.expectedSeconds, Self.constrainedMaximumLead * length)
        } else {
            // As far as the latest motion went, at most a screen (a screen on the first one).
            let screen = hasMoved ? Swift.min(tracker.history.sweptLength, length) : length
            lead = Self.constrainedRestingShare * screen
        }
        guard lead > 0 else { return [] }
        let forward = state.velocity != 0 ? state.velocity > 0 : heading >= 0
        return [forward ? viewport.upperBound..<(viewport.upperBound + lead) : (viewport.lowerBound - lead)..<viewport.lowerBound]
    }

    /// The policy's `regions`, clipped to `expensiveReach` screens beyond the viewport and the
    /// landing zone on either side (an expensive network).
    @usableFromInline
    func clippedToExpensiveReach(_ regions: [Range<Double>], _ state: ScrollState, _ forecast: MotionForecast) -> [Range<Double>] {
        let landing = forecast.landingZone ?? state.viewport
        let reach = Self.expensiveReach * state.viewportLength
        let lower = Swift.min(state.viewport.lowerBound, landing.lowerBound) - reach
        let upper = Swift.max(state.viewport.upperBound, landing.upperBound) + reach
        return regions.compactMap { region in
            let clipped = Swift.max(region.lowerBound, lower)..<Swift.max(Swift.min(region.upperBound, upper), Swift.max(region.lowerBound, lower))
            return clipped.isEmpty ? nil : clipped
        }
    }

    /// How far past the viewport and a fling's landing zone an expensive network's plan reaches,
    /// in viewports: 1.5, about half the wasted loads of the whole window on the training traces
    /// (seeds 1–10 of each profile, lte; Benchmarks/NOTES.md, "Budgets").
    static var expensiveReach: Double { 1.5 }

    /// The share of the next screen planned at rest under Low Data Mode: 0.75.
    ///
    /// Chosen with the drag's factor and lead on generated training traces only (seeds 1–10 of
    /// `feed`, `search` and `gallery`, lte, latency seed 1; Benchmarks/NOTES.md, "Budgets"): the
    /// most display-ready of the settings that waste at most a quarter of the loads `adaptive`
    /// wastes under normal conditions.
    static var constrainedRestingShare: Double { 0.75 }

    /// While dragging under Low Data Mode the lead is what the viewport reaches within this many
    /// expected latencies: 2.
    static var constrainedDragLatencies: Double { 2 }

    /// The longest lead while dragging under Low Data Mode, in viewports: 2.
    static var constrainedMaximumLead: Double { 2 }

    /// The frame's update through the closed gate: the data changes as they are, then what takes
    /// the target from what it holds to what the rules allow of the plan.
    @usableFromInline
    mutating func gated(_ changes: Changes<Item>, rules: RequestGate<Item>.Rules, now: Double) -> PrefetchUpdate<Item> {
        var through = Changes<Item>(moved: changes.moved, removed: changes.removed)
        gate.apply(moved: changes.moved, removed: changes.removed)
        gate.reconcile(held.all(), rules: rules, now: now, into: &through)
        return through.update()
    }

    /// A memory-pressure signal (see ``PrefetchController/handleMemoryPressure()``): from now, for
    /// `memoryPressureDuration` seconds of the frames' clock, the plan holds only the screen and
    /// the landing zone of a fling. Returns the update that withdraws the rest now (with the data
    /// changes queued since the last step), and the items to keep in memory: those held on screen
    /// and in the landing zone, oldest request first.
    package mutating func memoryPressure() -> (update: PrefetchUpdate<Item>, keep: [Item]) {
        guard let now = lastTime else {
            pressurePending = true
            return (PrefetchUpdate(), [])
        }
        pressureUntil = now + configuration.memoryPressureDuration.seconds
        let zones = RangeUnion([lastViewport, forecast?.landingZone].compactMap { $0 }, clippedTo: .infinity)
        let kept = held.entries.filter { zones.meets($0.value.extent) }.map { (item: $0.key, entry: $0.value) }
        if !gate.isClosed { closeGate() }
        var changes = Changes<Item>(moved: pendingMoves, removed: pendingRemovals)
        gate.apply(moved: pendingMoves, removed: pendingRemovals)
        pendingMoves = []
        pendingRemovals = []
        gate.reconcile(kept, rules: rules(for: .memoryPressure), now: now, into: &changes)
        return (changes.update(), kept.sorted { $0.entry.sequence < $1.entry.sequence }.map(\.item))
    }
}
