/// Everything a ``PrefetchController`` decides, as a value: each frame's ``step(_:geometry:latency:planning:)``
/// takes the surface's ``ScrollState``, its ``ItemGeometry`` and one ``LatencyEstimate``, and
/// returns the frame's ``PrefetchUpdate``. It calls nothing outside itself, so a surface applies
/// the update where it wants (the headless views, around their display changes) and a test reads
/// it directly.
///
/// A step forecasts the viewport's motion (``MotionForecast``), follows the user's habits
/// (``ScrollHistoryTracker``), asks the policy where to hold interest, ranks the items there
/// (``Ranking``) and moves the held requests to the new plan (``HeldPlan``, with the withdrawal
/// grace of ``LeavingItems``). Data changes between frames (``moveItems(_:)``,
/// ``invalidateItems()``, ``invalidateLayout()``) are queued and sent with the next step.
@usableFromInline
package struct PrefetchPlanner<Item: Hashable> {
    /// Chooses where to hold interest; a change takes effect at the next step.
    @usableFromInline package var policy: any PrefetchPolicy
    /// The planner's tuning; a change applies from the next step (a memory-pressure signal under
    /// way keeps the end it was given).
    @usableFromInline package var configuration: PrefetchController<Item>.Configuration
    @usableFromInline var held = HeldPlan<Item>()
    /// Renames and removals since the last step, named as the target knows the items.
    @usableFromInline var pendingMoves: [PrefetchMove<Item>] = []
    @usableFromInline var pendingRemovals: [Item] = []
    @usableFromInline var forecast: MotionForecast?
    /// The latencies the held priorities were computed with.
    @usableFromInline var latency: PlanningLatency
    /// Follows the motions frame by frame for ``history``.
    @usableFromInline var tracker = ScrollHistoryTracker()
    @usableFromInline var lastViewport: Range<Double>?
    @usableFromInline var lastTime: Double?
    @usableFromInline var heading = 1
    /// The network's conditions (see ``PrefetchController/networkConditions``).
    package var conditions = NetworkConditions()
    /// Lets through to the target what the conditions, its memory and the byte budget allow.
    @usableFromInline var gate = RequestGate<Item>()
    /// How many items the target's memory holds, as it said at the last step.
    @usableFromInline var capacity: Int?
    /// Whether the target can send data to its store only (``PrefetchTarget/acceptsStoreDestination``), as it said
    /// at the last step: then what is beyond ``capacity`` goes there.
    @usableFromInline var hasStore = false
    /// Until when (seconds) a memory-pressure signal keeps the plan to the screen and the landing zone.
    @usableFromInline var pressureUntil = -Double.infinity
    /// A memory-pressure signal came before the first step: it starts at the next.
    @usableFromInline var pressurePending = false
    /// Whether the viewport has moved since the first step (a first screen has no latest motion).
    @usableFromInline var hasMoved = false
    /// The stretch of content the resting plan held around the viewport when a drag began from
    /// rest; wanted until the drag ends (see ``carriedIntoDrag(_:)``).
    @usableFromInline var dragCarry: Range<Double>?
    /// The stretch of content the resting plan held around the viewport when the viewport's
    /// length changed at rest; wanted until the view moves (see ``carriedAcrossResize(_:)``).
    @usableFromInline var resizeCarry: Range<Double>?
    /// Whether the last step was at rest.
    @usableFromInline var restedLast = false
    /// The stretches of content the last step planned, its viewport included.
    @usableFromInline var lastRegions: [Range<Double>] = []
    /// Whether the next step keeps the stretches the last one planned and adds its own viewport to
    /// them instead of asking the policy (see ``PrefetchController/updateKeepingPlan(_:geometry:)``);
    /// cleared by that step.
    @usableFromInline package var keepsPlan = false

    /// Creates a planner that holds nothing.
    package init(policy: any PrefetchPolicy = PrefetchPolicies.uikitLike,
                 configuration: PrefetchController<Item>.Configuration = .standard) {
        self.policy = policy
        self.configuration = configuration
        latency = PlanningLatency(fallback: configuration.fallbackLatency)
    }

    // MARK: Frames

    /// Plans one frame (see ``PrefetchController/update(_:geometry:)``) and returns what changed,
    /// with the renames and removals queued since the last step. Without `planning` (nobody to
    /// send requests to) it follows the motion, withdraws what it holds and requests nothing.
    /// `capacity` is how many items' data the target's memory holds at once (``PrefetchTarget/prefetchCapacity``);
    /// `hasStore`, whether the target can send data to its store only: then the requests beyond the
    /// capacity go there (``FetchDestination/store``) instead of being dropped; `itemLatency` an
    /// item's typical latency when the target knows it from the item's size
    /// (``PrefetchTarget/typicalLatency(of:)``).
    @inlinable
    package mutating func step<Geometry: ItemGeometry>(
        _ state: ScrollState, geometry: Geometry, latency estimate: LatencyEstimate, capacity: Int? = nil, hasStore: Bool = false,
        planning: Bool = true, itemLatency: (Item) -> Duration? = { _ in nil }
    ) -> PrefetchUpdate<Item> where Geometry.Item == Item {
        var state = state
        let keepsPlan = self.keepsPlan
        self.keepsPlan = false
        // A clock that stepped back (frames from two sources, say) cannot move the plan back in time.
        if let lastTime, state.seconds.isFinite, state.seconds < lastTime { state.seconds = lastTime }
        guard (try? state.validate()) != nil, state.viewportLength > 0, state.contentLength > 0 else {
            return planNothing()
        }
        lastTime = state.seconds
        if pressurePending {
            pressurePending = false
            pressureUntil = state.seconds + configuration.memoryPressureDuration.seconds
        }
        if state.velocity != 0 { heading = state.velocity > 0 ? 1 : -1 }
        tracker.observe(state, previous: lastViewport)
        if let lastViewport, lastViewport != state.viewport { hasMoved = true }
        var rerank = latency.take(estimate, fallback: configuration.fallbackLatency)
        let next = MotionForecast(state)
        let forecast: MotionForecast
        if let last = self.forecast, last.agrees(with: next) {
            forecast = last
        } else {
            forecast = next
            self.forecast = next
            rerank = true
        }
        guard planning else {
            lastViewport = state.viewport
            return withdrawAll()
        }
        let context = ScrollContext(
            viewport: state.viewport, contentLength: state.contentLength, velocity: state.velocity,
            phase: state.phase, heading: heading, expectedLatency: latency.expected, history: tracker.history)
        self.capacity = capacity
        self.hasStore = hasStore
        let restriction = restriction(at: state.seconds)
        var regions = restriction.limitsRegions ? restrictedRegions(restriction, state, forecast) : policy.plan(for: context).regions
        let resized = carriedAcrossResize(state)
        if let carry = carriedIntoDrag(state), !restriction.limitsRegions { regions.append(carry) }
        if let resized, !restriction.limitsRegions { regions.append(resized) }
        if keepsPlan, !restriction.limitsRegions {
            // What the last step planned near the new viewport (a nudge) stays; what a jump left far
            // behind goes at once, so its loads stop taking the link from the new screen.
            let near = (state.viewport.lowerBound - state.viewportLength)..<(state.viewport.upperBound + state.viewportLength)
            regions = lastRegions.filter { $0.overlaps(near) }
        }
        if restriction == .expensive { regions = clippedToExpensiveReach(regions, state, forecast) }
        regions.append(state.viewport)
        lastRegions = regions
        let rules = rules(for: restriction)
        // The target holds the plan so far: the gate takes over from there.
        if !rules.isOpen, !gate.isClosed { closeGate() }
        // A jump (a move of a viewport or more in one frame) or a programmatic scroll is no flap:
        // what it left goes at once.
        var jumped = lastViewport.map { abs($0.lowerBound - state.viewport.lowerBound) >= state.viewportLength } ?? true
        if case .programmatic = state.phase { jumped = true }
        var changes = Changes(moved: pendingMoves, removed: pendingRemovals)
        pendingMoves = []
        pendingRemovals = []
        held.update(to: RangeUnion(regions, clippedTo: state.contentLength), of: state, previous: lastViewport, heading: heading,
                    grace: jumped ? 0 : configuration.withdrawalGrace * latency.typicalSeconds, rerank: rerank,
                    Ranking(forecast: forecast, now: state.seconds, latency: latency, tolerance: configuration.reprioritizationTolerance.seconds),
                    geometry, &changes, itemLatency: { PlanningLatency.usable(itemLatency($0))?.seconds })
        lastViewport = state.viewport
        guard gate.isClosed else { return changes.update() }
        return gated(changes, rules: rules, now: state.seconds)
    }

    /// What a drag that began at rest keeps of the resting plan: of the stretch the plan held
    /// contiguously around the viewport when the finger touched down, the part ahead of the
    /// viewport in the direction of travel, for as long as the drag lasts.
    ///
    /// A slow drag asks for a shorter window than rest does (the lead while dragging starts at
    /// `minimumLead` viewports, rest holds `idleLead`), and its edges flicker as the speed crosses
    /// the policy's thresholds. Without the carry, the rows between the two windows are withdrawn
    /// (after the leaving grace) and, as the drag goes on towards them, requested again.
    @inlinable
    mutating func carriedIntoDrag(_ state: ScrollState) -> Range<Double>? {
        defer {
            if case .idle = state.phase { restedLast = true } else { restedLast = false }
        }
        guard case .dragging = state.phase else {
            dragCarry = nil
            return nil
        }
        if dragCarry == nil, restedLast, let viewport = lastViewport {
            dragCarry = held.covered.first { $0.lowerBound <= viewport.lowerBound && viewport.upperBound <= $0.upperBound }
        }
        // Only what lies ahead: the loads of the rows the drag leaves would take the link from
        // the rows it goes to.
        guard let carry = dragCarry else { return nil }
        let ahead = heading >= 0 ? Swift.max(carry.lowerBound, state.viewport.upperBound)..<Swift.max(carry.upperBound, state.viewport.upperBound)
            : Swift.min(carry.lowerBound, state.viewport.lowerBound)..<Swift.min(carry.upperBound, state.viewport.lowerBound)
        return ahead.isEmpty ? nil : ahead
    }

    /// What a resting view keeps of its plan when its viewport's length changes where it is (the
    /// keyboard covering part of a list, a split view narrowing it): the stretch the plan held
    /// contiguously around the viewport before the change, until the view moves.
    ///
    /// The resting plan reaches a number of viewports ahead, so a shorter viewport asks for a
    /// shorter stretch. Without the carry, the rows past the shorter stretch are withdrawn (after
    /// the leaving grace), their loads cancelled, and requested again when the viewport grows back.
    @inlinable
    mutating func carriedAcrossResize(_ state: ScrollState) -> Range<Double>? {
        guard case .idle = state.phase, restedLast, let last = lastViewport, last.lowerBound == state.viewport.lowerBound else {
            resizeCarry = nil
            return nil
        }
        if resizeCarry == nil, last.upperBound != state.viewport.upperBound {
            resizeCarry = held.covered.first { $0.lowerBound <= last.lowerBound && last.upperBound <= $0.upperBound }
        }
        return resizeCarry
    }

    @inlinable
    mutating func planNothing() -> PrefetchUpdate<Item> {
        forecast = nil
        lastViewport = nil
        dragCarry = nil
        resizeCarry = nil
        restedLast = false
        return withdrawAll()
    }

    // MARK: Data changes

    /// See ``PrefetchController/invalidateLayout()``.
    package mutating func invalidateLayout() {
        held.isStale = true
    }

    /// See ``PrefetchController/invalidateItems()``: each held item is removed under the name the
    /// target knows it by (renames since the last step are not sent yet).
    package mutating func invalidateItems() {
        let knownAs = targetNames()
        pendingRemovals += held.inSequence().map { knownAs[$0] ?? $0 }
        pendingMoves = []
        held.entries.removeAll(keepingCapacity: true)
        held.leaving.removeAll()
        held.isStale = true
        dragCarry = nil
        resizeCarry = nil
    }

    /// See ``PrefetchController/moveItems(_:)``. Batch updates between two steps compose: the next
    /// step renames each item from the name the target knows it by (as of the last step) straight
    /// to its name now, and removes a deleted item under the name the target knows.
    package mutating func moveItems(_ transform: (Item) -> Item?) {
        let knownAs = targetNames()
        var composed: [PrefetchMove<Item>] = []
        for (item, new) in held.rename(transform) {
            let known = knownAs[item] ?? item
            if let new {
                if new != known { composed.append(PrefetchMove(from: known, to: new)) }
            } else {
                pendingRemovals.append(known)
            }
        }
        pendingMoves = composed
    }

    /// Closes the gate over what the target holds now: the held requests under the names the
    /// target knows them by. The renames and removals queued since the last step have already
    /// changed ``held`` but not the target, and the gate applies them itself after closing.
    @usableFromInline
    mutating func closeGate() {
        let knownAs = targetNames()
        gate.close(holding: held.all().map { (item: knownAs[$0.item] ?? $0.item, entry: $0.entry) })
    }

    /// The name the target knows each renamed item by: pending renames, keyed by the item's name now.
    private func targetNames() -> [Item: Item] {
        Dictionary(pendingMoves.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets every request and returns the update that withdraws them (with the renames and
    /// removals queued since the last step); the next step plans from scratch.
    @inlinable
    package mutating func withdrawAll() -> PrefetchUpdate<Item> {
        let update = PrefetchUpdate(moved: pendingMoves, removed: pendingRemovals, withdrawals: held.inSequence())
        reset()
        return update
    }

    /// Forgets every request without a word (the target forgot them itself).
    @inlinable
    package mutating func reset() {
        gate.reset()
        held.removeAll()
        lastRegions = []
        pendingMoves = []
        pendingRemovals = []
    }

    // MARK: Questions

    /// See ``PrefetchController/priority(for:extent:)``.
    package func priority(for item: Item, extent: Range<Double>? = nil) -> FetchPriority {
        if let entry = held.entries[item] { return entry.priority }
        guard let extent, let forecast, let lastTime, extent.lowerBound.isFinite, extent.upperBound.isFinite else {
            return .visible
        }
        return Ranking(forecast: forecast, now: lastTime, latency: latency, tolerance: configuration.reprioritizationTolerance.seconds)
            .rank(of: extent).priority
    }

    /// See ``PrefetchController/requestedPriority(of:)``.
    package func requestedPriority(of item: Item) -> FetchPriority? {
        held.entries[item]?.priority ?? held.leaving.items[item]?.entry.priority
    }

    /// The priority `item` is held at and when it was first requested (its place among equals),
    /// or `nil` when it is not held.
    package func requestedEntry(of item: Item) -> (priority: FetchPriority, sequence: UInt64)? {
        (held.entries[item] ?? held.leaving.items[item]?.entry).map { ($0.priority, $0.sequence) }
    }

    /// See `PrefetchController.requestedCount`.
    package var requestedCount: Int { held.entries.count + held.leaving.items.count }

    /// See `PrefetchController.requestedItems`.
    package var requestedItems: [PrefetchRequest<Item>] {
        held.all().sorted { a, b in a.entry.priority != b.entry.priority ? a.entry.priority > b.entry.priority : a.entry.sequence < b.entry.sequence }
            .map { PrefetchRequest(item: $0.item, priority: $0.entry.priority) }
    }

    /// See `PrefetchController.history`.
    package var history: ScrollHistory { tracker.history }

    /// See ``PrefetchController/_checkInvariants(geometry:)``.
    package func _checkInvariants<Geometry: ItemGeometry>(geometry: Geometry) where Geometry.Item == Item {
        held.checkInvariants(geometry: geometry, now: lastTime, grace: configuration.withdrawalGrace * latency.typicalSeconds)
    }
}
