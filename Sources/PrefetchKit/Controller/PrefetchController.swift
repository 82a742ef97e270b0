/// Decides, frame by frame, what to load for a scrolling surface and how urgently: the one piece
/// between any scrolling surface (the headless views, a `UICollectionView`, a simulator) and a
/// fetcher.
///
/// Each frame the surface calls ``update(_:geometry:)`` with its ``ScrollState`` and its
/// ``ItemGeometry``. The controller
/// 1. forecasts the viewport's motion from the phase: still at rest, constant velocity while
///    dragging, UIKit's exponential decay towards a fling's resting offset, an ease-out to an
///    animated scroll's destination;
/// 2. asks its ``policy`` where to hold interest (``PrefetchPlan`` regions) and adds the viewport;
/// 3. ranks every item there by when it will come on screen and how long it will stay
///    (see <doc:SchedulingByTimeToDisplay>);
/// 4. sends its ``target`` one ``PrefetchUpdate``: the items that entered the plan or whose rank
///    changed, with their ``FetchPriority``, and the items that left it.
///
/// An item that leaves the plan ahead of the viewport (the window shrank: a finger touched down,
/// a fling's forecast changed) is not withdrawn at once: it drops to
/// ``FetchPriority/Level/background`` and is withdrawn only if the plan has not taken it back
/// within ``Configuration/withdrawalGrace`` typical latencies. A window that shrinks for a frame
/// and grows back then leaves a running load alone instead of cancelling and restarting it.
/// Items the viewport passed, and what a jump (a move of a viewport or more in one frame) or a
/// programmatic scroll leaves, are withdrawn at once.
///
/// It owns every load decision, visible items included. A data source asks ``priority(for:extent:)``
/// in `cellForItemAt` and passes the answer to `fetchAsync(_:priority:completion:)` or
/// `value(for:priority:)`, so a cell that a fling carries past asks at a low priority and the
/// cells where the fling stops load first.
///
/// ```swift
/// let controller = PrefetchController<Int>(policy: PrefetchPolicies.Adaptive.standard)
/// controller.target = fetcher.prefetchTarget { row in ids.indices.contains(row) ? ids[row] : nil }
/// // every frame:
/// controller.update(ScrollState(time: t, viewport: y..<(y + height), contentLength: total,
///                               velocity: v, phase: phase), geometry: rows)
/// // in cellForItemAt:
/// fetcher.fetchAsync(ids[row], priority: controller.priority(for: row)) { … }
/// ```
///
/// Frames cost what changes, not what is held: the controller keeps the last frame's plan as
/// ranges of the axis and asks the geometry only about the slivers that entered or left it, and
/// re-ranks everything it holds only when the forecast or the latency changes.
///
/// The controller is not thread-safe: use it from one isolation domain (the main actor, for a view).
public final class PrefetchController<Item: Hashable> {
    /// The controller's tuning.
    public struct Configuration: Sendable, Hashable {
        /// The typical load time assumed until the target has measured one.
        public var fallbackLatency: Duration
        /// How far, in seconds, an item's predicted arrival must move before the controller
        /// re-prioritises its request (a change of level always does).
        public var reprioritizationTolerance: Double
        /// How long an item that left the plan ahead of the viewport stays requested, at
        /// background priority, before it is withdrawn, in typical (median) latencies; 0
        /// withdraws it at once, like an item the viewport passed.
        public var withdrawalGrace: Double

        /// The defaults: 300 ms until measured, re-prioritise on moves of more than 50 ms, keep
        /// what left the plan ahead for 2 typical latencies.
        public static var standard: Configuration {
            Configuration(validatedFallbackLatency: .milliseconds(300), tolerance: 0.05, grace: 2)
        }

        /// Creates a configuration.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when the
        ///   latency is negative, or the tolerance or the grace negative or not finite.
        public init(fallbackLatency: Duration = .milliseconds(300), reprioritizationTolerance: Double = 0.05,
                    withdrawalGrace: Double = 2) throws {
            guard fallbackLatency >= .zero else {
                throw PrefetchError(.invalidConfiguration, "PrefetchController fallbackLatency is \(fallbackLatency), but it must not be negative")
            }
            guard reprioritizationTolerance.isFinite, reprioritizationTolerance >= 0 else {
                throw PrefetchError(.invalidConfiguration,
                                    "PrefetchController reprioritizationTolerance is \(reprioritizationTolerance), but it must be a finite number of seconds, at least 0")
            }
            guard withdrawalGrace.isFinite, withdrawalGrace >= 0 else {
                throw PrefetchError(.invalidConfiguration,
                                    "PrefetchController withdrawalGrace is \(withdrawalGrace), but it must be a finite number of typical latencies, at least 0")
            }
            self.init(validatedFallbackLatency: fallbackLatency, tolerance: reprioritizationTolerance, grace: withdrawalGrace)
        }

        private init(validatedFallbackLatency: Duration, tolerance: Double, grace: Double) {
            fallbackLatency = validatedFallbackLatency
            reprioritizationTolerance = tolerance
            withdrawalGrace = grace
        }
    }

    /// One held item: where it lies, what it was requested at, and when it entered (for a
    /// deterministic order among equals).
    @usableFromInline
    struct Entry {
        @usableFromInline var extent: Range<Double>
        @usableFromInline var priority: FetchPriority
        @usableFromInline var sequence: UInt64
        /// When the rank stops holding as time passes (``Rank/until``).
        @usableFromInline var until: Double

        @inlinable
        init(extent: Range<Double>, rank: Rank, sequence: UInt64) {
            self.extent = extent
            self.priority = rank.priority
            self.sequence = sequence
            self.until = rank.until
        }
    }

    /// An item that left the plan ahead of the viewport: requested at background priority since
    /// `since`, withdrawn once the grace has passed unless the plan takes it back first.
    @usableFromInline
    struct Leaving {
        @usableFromInline var entry: Entry
        @usableFromInline var since: Double

        @inlinable
        init(entry: Entry, since: Double) {
            self.entry = entry
            self.since = since
        }
    }

    /// Chooses where to hold interest. Changing it takes effect at the next update.
    public var policy: any PrefetchPolicy

    /// Receives the decisions and reports latency and cap; `nil` plans nothing (``priority(for:extent:)``
    /// still answers from the forecast).
    ///
    /// Setting another target withdraws everything from the old one, and the next update
    /// requests the plan from the new one.
    public var target: (any PrefetchTarget<Item>)? {
        didSet {
            guard oldValue !== target else { return }
            let goodbye = PrefetchUpdate(moved: pendingMoves, removed: pendingRemovals, withdrawals: heldInSequence())
            forgetEverything()
            if !goodbye.isEmpty { oldValue?.updatePrefetching(goodbye) }
        }
    }

    /// The controller's tuning.
    public let configuration: Configuration

    @usableFromInline var entries: [Item: Entry] = [:]
    /// Items that left the plan ahead of the viewport and are not withdrawn yet (never in `entries`).
    @usableFromInline var leaving: [Item: Leaving] = [:]
    /// The earliest ``Leaving/since`` of `leaving`.
    @usableFromInline var earliestLeaving = Double.infinity
    /// The plan of the last update: sorted, disjoint ranges whose items are exactly `entries`.
    @usableFromInline var covered: [Range<Double>] = []
    @usableFromInline var lastViewport: Range<Double>?
    @usableFromInline var forecast: MotionForecast?
    /// The typical (median) latency the held priorities were computed with, in seconds.
    @usableFromInline var latency: Double
    /// The expected (high-percentile) latency the held priorities were computed with, in seconds.
    @usableFromInline var expected: Double
    @usableFromInline var needsRebuild = false
    @usableFromInline var pendingMoves: [PrefetchMove<Item>] = []
    @usableFromInline var pendingRemovals: [Item] = []
    @usableFromInline var heading = 1
    @usableFromInline var lastTime: Double?
    @usableFromInline var nextSequence: UInt64 = 0
    /// The earliest ``Entry/until`` of the held items: before then no held rank goes stale.
    @usableFromInline var nextExpiry = Double.infinity
    /// Follows the motions frame by frame for ``history``.
    @usableFromInline var tracker = ScrollHistoryTracker()

    /// Creates a controller.
    public init(policy: any PrefetchPolicy = PrefetchPolicies.uikitLike, target: (any PrefetchTarget<Item>)? = nil,
                configuration: Configuration = .standard) {
        self.policy = policy
        self.target = target
        self.configuration = configuration
        self.latency = configuration.fallbackLatency.seconds
        self.expected = configuration.fallbackLatency.seconds
    }

    // MARK: Frames

    /// Plans one frame: forecasts the motion, asks the policy, ranks what entered the plan (or
    /// everything, when the forecast changed), and sends the target what changed.
    ///
    /// A state that ``ScrollState/validate()`` rejects, an empty viewport or empty content plans
    /// nothing: everything requested is withdrawn.
    ///
    /// - Precondition: `state.time` is not earlier than the previous update's (a time that is not
    ///   finite is no time: the state fails validation and plans nothing).
    /// - Returns: The update sent to the target (empty without a target).
    /// - Complexity: O(c log c + g) for c changed items and g items the geometry reports for the
    ///   slivers that entered or left the plan, independent of the number of items; O(h) for h
    ///   held items on a frame whose forecast or latency changed.
    @inlinable @discardableResult
    public func update<Geometry: ItemGeometry>(_ state: ScrollState, geometry: Geometry) -> PrefetchUpdate<Item>
    where Geometry.Item == Item {
        if let lastTime, state.time.isFinite {
            precondition(!(state.time < lastTime),
                         "PrefetchController.update: time \(state.time) is earlier than the previous frame's \(lastTime)")
        }
        guard (try? state.validate()) != nil, state.viewportLength > 0, state.contentLength > 0 else {
            return planNothing()
        }
        lastTime = state.time
        if state.velocity != 0 { heading = state.velocity > 0 ? 1 : -1 }
        tracker.observe(state, previous: lastViewport)
        let next = MotionForecast(state)
        var rerank = false
        if let forecast, forecast.agrees(with: next) {} else {
            forecast = next
            rerank = true
        }
        let typical = (target?.typicalLatency).map { $0.seconds }.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            ?? configuration.fallbackLatency.seconds
        if abs(typical - latency) > 0.25 * latency {
            latency = typical
            rerank = true
        }
        let high = (target?.expectedLatency).map { $0.seconds }.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            ?? Swift.max(latency, configuration.fallbackLatency.seconds)
        if abs(high - expected) > 0.25 * expected {
            expected = high
            rerank = true
        }
        guard let target, let forecast else {
            lastViewport = state.viewport
            return PrefetchUpdate()
        }

        let context = ScrollContext(
            viewport: state.viewport, contentLength: state.contentLength, velocity: state.velocity,
            phase: state.phase, heading: heading, expectedLatency: target.expectedLatency, history: tracker.history)
        var regions = policy.plan(for: context).regions
        regions.append(state.viewport)
        let wanted = RangeUnion(regions, clippedTo: state.contentLength)
        let viewport = RangeUnion([state.viewport], clippedTo: state.contentLength)

        let ranking = makeRanking(forecast, state.time)
        // A jump (a move of a viewport or more in one frame) or a programmatic scroll is no flap:
        // what it left goes at once.
        var jumped = lastViewport.map { abs($0.lowerBound - state.viewport.lowerBound) >= state.viewportLength } ?? true
        if case .programmatic = state.phase { jumped = true }
        let grace = jumped ? 0 : configuration.withdrawalGrace * latency
        var changes = Changes(moved: pendingMoves, removed: pendingRemovals)
        pendingMoves = []
        pendingRemovals = []
        if needsRebuild {
            rebuild(wanted, geometry, ranking, &changes)
        } else {
            let covered = RangeUnion(sorted: self.covered)
            // 1. What left the plan.
            for range in covered.subtracting(wanted) {
                geometry.forEachItem(meeting: range) { item, extent in
                    guard !wanted.meets(extent), let entry = entries.removeValue(forKey: item) else { return }
                    if grace > 0, isAhead(extent, of: state.viewport) {
                        retire(item, entry, at: state.time, &changes)
                    } else {
                        changes.withdraw(item)
                    }
                }
            }
            // 2. What the forecast ranks differently: everything when it changed, else what came on screen.
            //    Between changes of the forecast, a rank also goes stale as time passes: an item
            //    worth a slot stops being worth one once a load started now would show its data
            //    too briefly. Those are ranked again when their time comes.
            if rerank || state.time > nextExpiry {
                var earliest = Double.infinity
                for index in entries.indices {
                    let entry = entries.values[index]
                    if rerank || entry.until < state.time {
                        let rank = ranking.rank(of: entry.extent)
                        entries.values[index].until = rank.until
                        if isMeaningful(from: entry.priority, to: rank.priority) {
                            entries.values[index].priority = rank.priority
                            changes.request(entries.keys[index], at: rank.priority, sequence: entry.sequence)
                        }
                    }
                    earliest = Swift.min(earliest, entries.values[index].until)
                }
                nextExpiry = earliest
            }
            if !rerank, let last = lastViewport {
                for range in viewport.subtracting(RangeUnion([last], clippedTo: state.contentLength)) {
                    geometry.forEachItem(meeting: range) { item, _ in
                        guard let index = entries.index(forKey: item) else { return }
                        let entry = entries.values[index]
                        let rank = ranking.rank(of: entry.extent)
                        entries.values[index].until = rank.until
                        nextExpiry = Swift.min(nextExpiry, rank.until)
                        guard isMeaningful(from: entry.priority, to: rank.priority) else { return }
                        entries.values[index].priority = rank.priority
                        changes.request(item, at: rank.priority, sequence: entry.sequence)
                    }
                }
            }
            // 3. What entered the plan.
            for range in wanted.subtracting(covered) {
                geometry.forEachItem(meeting: range) { item, extent in
                    guard !covered.meets(extent), entries[item] == nil else { return }
                    let rank = ranking.rank(of: extent)
                    if let gone = leaving.removeValue(forKey: item) {
                        // Taken back within the grace: its load, if one runs, goes on.
                        var entry = Entry(extent: extent, rank: rank, sequence: gone.entry.sequence)
                        nextExpiry = Swift.min(nextExpiry, rank.until)
                        if isMeaningful(from: gone.entry.priority, to: rank.priority) {
                            changes.request(item, at: rank.priority, sequence: entry.sequence)
                        } else {
                            entry.priority = gone.entry.priority
                        }
                        entries[item] = entry
                        return
                    }
                    entries[item] = Entry(extent: extent, rank: rank, sequence: nextSequence)
                    nextExpiry = Swift.min(nextExpiry, rank.until)
                    changes.request(item, at: rank.priority, sequence: nextSequence)
                    nextSequence &+= 1
                }
            }
        }
        if state.time - earliestLeaving >= grace { withdrawLeaving(olderThan: state.time - grace, &changes) }
        covered = wanted.ranges
        lastViewport = state.viewport
        let update = changes.update()
        if !update.isEmpty { target.updatePrefetching(update) }
        return update
    }

    /// Reads the whole plan from the geometry and diffs it against what is held.
    @inlinable
    func rebuild<Geometry: ItemGeometry>(
        _ wanted: RangeUnion, _ geometry: Geometry, _ ranking: Ranking, _ changes: inout Changes<Item>
    ) where Geometry.Item == Item {
        var fresh: [Item: Entry] = [:]
        fresh.reserveCapacity(entries.count)
        var earliest = Double.infinity
        for range in wanted {
            geometry.forEachItem(meeting: range) { item, extent in
                guard fresh[item] == nil else { return }
                let rank = ranking.rank(of: extent)
                earliest = Swift.min(earliest, rank.until)
                let old = entries[item] ?? leaving[item]?.entry
                if let old, !isMeaningful(from: old.priority, to: rank.priority) {
                    fresh[item] = Entry(extent: extent, rank: Rank(priority: old.priority, until: rank.until), sequence: old.sequence)
                    return
                }
                let sequence = old?.sequence ?? nextSequence
                if old == nil { nextSequence &+= 1 }
                fresh[item] = Entry(extent: extent, rank: rank, sequence: sequence)
                changes.request(item, at: rank.priority, sequence: sequence)
            }
        }
        nextExpiry = earliest
        var gone: [Item] = []
        var goneSequences: [UInt64] = []
        for (item, entry) in entries where fresh[item] == nil {
            gone.append(item)
            goneSequences.append(entry.sequence)
        }
        // After a new layout, what left the plan goes at once.
        for (item, left) in leaving where fresh[item] == nil {
            gone.append(item)
            goneSequences.append(left.entry.sequence)
        }
        leaving.removeAll()
        earliestLeaving = .infinity
        for index in goneSequences.indices.sorted(by: { goneSequences[$0] < goneSequences[$1] }) {
            changes.withdraw(gone[index])
        }
        entries = fresh
        needsRebuild = false
    }

    // MARK: Leaving the plan

    /// Whether `extent` lies wholly ahead of `viewport` in the direction of travel.
    @inlinable
    func isAhead(_ extent: Range<Double>, of viewport: Range<Double>) -> Bool {
        heading >= 0 ? extent.lowerBound >= viewport.upperBound : extent.upperBound <= viewport.lowerBound
    }

    /// Moves `item`, which left the plan ahead of the viewport, to `leaving` at background priority.
    @inlinable
    func retire(_ item: Item, _ entry: Entry, at time: Double, _ changes: inout Changes<Item>) {
        var entry = entry
        if entry.priority != Self.leavingPriority {
            entry.priority = Self.leavingPriority
            changes.request(item, at: entry.priority, sequence: entry.sequence)
        }
        leaving[item] = Leaving(entry: entry, since: time)
        earliestLeaving = Swift.min(earliestLeaving, time)
    }

    /// Withdraws, oldest request first, what left the plan before `cutoff`.
    @usableFromInline
    func withdrawLeaving(olderThan cutoff: Double, _ changes: inout Changes<Item>) {
        var expired: [(item: Item, sequence: UInt64)] = []
        var earliest = Double.infinity
        for (item, left) in leaving {
            if left.since <= cutoff {
                expired.append((item, left.entry.sequence))
            } else {
                earliest = Swift.min(earliest, left.since)
            }
        }
        for (item, _) in expired.sorted(by: { $0.sequence < $1.sequence }) {
            leaving.removeValue(forKey: item)
            changes.withdraw(item)
        }
        earliestLeaving = earliest
    }

    /// The priority of an item that left the plan and is not withdrawn yet: after every other request.
    @inlinable
    static var leavingPriority: FetchPriority { FetchPriority(level: .background, order: Ranking.unreachedOrder) }

    // MARK: Ranking

    /// How the controller ranks items now: the forecast, the time, and the two latencies, read
    /// once per frame.
    @usableFromInline
    func makeRanking(_ forecast: MotionForecast, _ now: Double) -> Ranking {
        Ranking(forecast: forecast, now: now, latency: latency, expected: expected)
    }

    /// Whether a held request should move from `old` to `new`: a change of level, or (below the
    /// visible level, where the order among items on screen matters little) an order that moved
    /// by more than the tolerance.
    @usableFromInline
    func isMeaningful(from old: FetchPriority, to new: FetchPriority) -> Bool {
        if old.level != new.level { return true }
        if new.level == .visible { return false }
        return abs(old.order - new.order) > configuration.reprioritizationTolerance
    }

    // MARK: Questions

    /// The priority to load `item` at now: what the controller requested it at, or, for an item
    /// outside the plan, its rank under the current forecast given its `extent`.
    ///
    /// Call it from `cellForItemAt` and pass the answer to `fetchAsync(_:priority:completion:)`
    /// or `value(for:priority:)`. Without an extent (and before the first update) an item outside
    /// the plan gets ``FetchPriority/visible``.
    /// - Complexity: O(1).
    public func priority(for item: Item, extent: Range<Double>? = nil) -> FetchPriority {
        if let entry = entries[item] { return entry.priority }
        guard let extent, let forecast, let lastTime, extent.lowerBound.isFinite, extent.upperBound.isFinite else {
            return .visible
        }
        return makeRanking(forecast, lastTime).rank(of: extent).priority
    }

    /// The priority `item` is requested at, or `nil` when it is not in the plan.
    /// - Complexity: O(1).
    /// An item that left the plan but is not withdrawn yet answers ``FetchPriority/Level/background``.
    public func requestedPriority(of item: Item) -> FetchPriority? { entries[item]?.priority ?? leaving[item]?.entry.priority }

    /// The number of items requested now: the plan's, and those that left it but are not withdrawn yet.
    public var requestedCount: Int { entries.count + leaving.count }

    /// What the frames so far say about the user's habits: the ``ScrollContext/history`` the
    /// policy sees.
    public var history: ScrollHistory { tracker.history }

    /// The items requested now, most urgent first.
    /// - Complexity: O(h log h) for h held items.
    public var requestedItems: [PrefetchRequest<Item>] {
        held().sorted { a, b in a.entry.priority != b.entry.priority ? a.entry.priority > b.entry.priority : a.entry.sequence < b.entry.sequence }
            .map { PrefetchRequest(item: $0.item, priority: $0.entry.priority) }
    }

    // MARK: Data changes

    /// The surface laid its items out again (a new size, new item sizes): the next update reads
    /// the whole plan from the geometry, and withdraws what left it.
    public func invalidateLayout() {
        needsRebuild = true
    }

    /// Every item may now name other data (the data was reloaded): the next update sends every
    /// held item as ``PrefetchUpdate/removed`` (under the name the target knows it by, since
    /// renames of batch updates since the last update are not sent yet) and requests the plan afresh.
    public func invalidateItems() {
        let knownAs = targetNames()
        pendingRemovals += heldInSequence().map { knownAs[$0] ?? $0 }
        pendingMoves = []
        entries.removeAll(keepingCapacity: true)
        leaving.removeAll()
        earliestLeaving = .infinity
        needsRebuild = true
    }

    /// A batch update renamed items: `transform` gives each item's new name, or `nil` for an item
    /// that was deleted. The next update sends the renames as ``PrefetchUpdate/moved``, the
    /// deleted items as ``PrefetchUpdate/removed``, and reads the layout again.
    ///
    /// Batch updates between two frames compose: the next update renames each item from the name
    /// the target knows it by (as of the last update) straight to its name now, and removes a
    /// deleted item under the name the target knows.
    /// - Complexity: O(h) for h held items.
    public func moveItems(_ transform: (Item) -> Item?) {
        let knownAs = targetNames()
        var composed: [PrefetchMove<Item>] = []
        var moved: [Item: Entry] = [:]
        var movedLeaving: [Item: Leaving] = [:]
        moved.reserveCapacity(entries.count)
        for (item, entry) in held().sorted(by: { $0.entry.sequence < $1.entry.sequence }) {
            let known = knownAs[item] ?? item
            guard let target = transform(item) else {
                pendingRemovals.append(known)
                continue
            }
            if target != known { composed.append(PrefetchMove(from: known, to: target)) }
            if let left = leaving[item] {
                movedLeaving[target] = left
            } else {
                moved[target] = entry
            }
        }
        entries = moved
        leaving = movedLeaving
        pendingMoves = composed
        needsRebuild = true
    }

    /// The name the target knows each renamed item by: pending renames, keyed by the item's name now.
    private func targetNames() -> [Item: Item] {
        Dictionary(pendingMoves.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
    }

    /// Withdraws every request now and plans again from scratch at the next update.
    public func withdrawAll() {
        let update = PrefetchUpdate(moved: pendingMoves, removed: pendingRemovals, withdrawals: heldInSequence())
        forgetEverything()
        if !update.isEmpty { target?.updatePrefetching(update) }
    }

    /// Forgets every request without telling the target (which forgot them itself, as a UIKit
    /// view forgets pending prefetches when its prefetch data source changes).
    public func reset() {
        forgetEverything()
    }

    @usableFromInline
    func planNothing() -> PrefetchUpdate<Item> {
        let update = PrefetchUpdate(moved: pendingMoves, removed: pendingRemovals, withdrawals: heldInSequence())
        forgetEverything()
        forecast = nil
        lastViewport = nil
        if !update.isEmpty { target?.updatePrefetching(update) }
        return update
    }

    @usableFromInline
    func forgetEverything() {
        entries.removeAll()
        leaving.removeAll()
        earliestLeaving = .infinity
        nextExpiry = .infinity
        covered = []
        pendingMoves = []
        pendingRemovals = []
        needsRebuild = false
    }

    @usableFromInline
    func heldInSequence() -> [Item] {
        held().sorted { $0.entry.sequence < $1.entry.sequence }.map(\.item)
    }

    /// Every requested item: the plan's and those leaving it.
    @usableFromInline
    func held() -> [(item: Item, entry: Entry)] {
        entries.map { ($0.key, $0.value) } + leaving.map { ($0.key, $0.value.entry) }
    }

    // MARK: Invariants

    /// Traps, naming the broken rule, when the held requests are not exactly the items of the
    /// last plan (as `geometry` reports them) with their extents. Call it in tests after updates.
    /// - Complexity: O(h) plus the geometry's cost for the whole plan.
    public func _checkInvariants<Geometry: ItemGeometry>(geometry: Geometry) where Geometry.Item == Item {
        for (a, b) in zip(covered, covered.dropFirst()) {
            precondition(a.upperBound < b.lowerBound, "the plan's ranges \(a) and \(b) overlap, touch, or are out of order")
        }
        guard !needsRebuild else { return }
        var expected: [Item: Range<Double>] = [:]
        for range in covered { geometry.forEachItem(meeting: range) { item, extent in expected[item] = extent } }
        precondition(expected.count == entries.count, "the controller holds \(entries.count) items, but its plan has \(expected.count)")
        for (item, entry) in entries {
            precondition(expected[item] == entry.extent, "held item \(item) at \(entry.extent) is not in the plan at that extent")
        }
        for (item, left) in leaving {
            precondition(expected[item] == nil, "item \(item) is in the plan and also leaving it")
            precondition(left.entry.priority == Self.leavingPriority, "leaving item \(item) is held at \(left.entry.priority), not at background")
            if let lastTime {
                precondition(lastTime - left.since < configuration.withdrawalGrace * latency,
                             "leaving item \(item) left at \(left.since) and is still held at \(lastTime), past the grace")
            }
        }
    }
}

/// How a ``PrefetchController`` ranks items on one frame: the forecast, the time, and the two
/// latencies the held priorities were computed with.
///
/// Not nested in the generic controller and built once per frame, so that ranking an item reads
/// no property of the controller (each read of a class's stored `var` is a run-time exclusivity
/// check) and needs no generic metadata.
@usableFromInline
struct Ranking {
    @usableFromInline let forecast: MotionForecast
    /// Now, in seconds.
    @usableFromInline let now: Double
    /// `L`: the typical (median) latency, in seconds.
    @usableFromInline let latency: Double
    /// `E`: the expected (high-percentile) latency, in seconds.
    @usableFromInline let expected: Double

    @usableFromInline
    init(forecast: MotionForecast, now: Double, latency: Double, expected: Double) {
        self.forecast = forecast
        self.now = now
        self.latency = latency
        self.expected = expected
    }

    /// The priority of an item with `extent` under `forecast` at `now`.
    ///
    /// Two measured latencies decide, no tuned constant: `E`, the target's expected latency (its
    /// high percentile: a load started now is ready by `now + E` nine times in ten), and `L`, its
    /// typical (median) latency: how long a load holds its slot. Loaded from now, the item would
    /// show its data for `shown = departure − max(arrival, now + E)`. A load is worth its slot
    /// when the data shows at least as long as the load holds the slot (`shown ≥ L`).
    ///
    /// - On screen now and worth a slot: `visible`, by arrival (at rest, every visible cell).
    /// - Coming on screen and staying when a fling or an animated scroll ends (the motion's end
    ///   is known): `prefetch`, by arrival. These cells load first, from the moment the fling
    ///   is released: they stay for good, while every cell on the way leaves again.
    /// - Coming on screen while dragging (no known end) and worth a slot: `prefetch`, by arrival
    ///   (earliest deadline first).
    /// - Any other cell shown before a typical load started now could finish (`departure > now
    ///   + L`): `speculative`, latest departure first (order `−departure`). Of the cells a fling
    ///   carries past, those where it runs slowest stay longest, so a load gains the most there
    ///   and is least likely to come too late; departures do not move while the forecast holds,
    ///   so the order needs no re-ranking as time passes.
    /// - Gone before a typical load started now could finish: `background`, by arrival; such a
    ///   load only runs on a slot nothing else wants.
    /// - Never reached by the forecast motion (behind, or past where it stops): `speculative`,
    ///   after every arrival, nearest first.
    ///
    /// The rank holds until ``Rank/until``: an item worth a slot stops being worth one at
    /// `departure − E − L` (from then on a load started now would show its data for less than
    /// `L`); the other ranks hold while the forecast holds.
    @usableFromInline
    func rank(of extent: Range<Double>) -> Rank {
        let (arrival, departure) = forecast.window(of: extent)
        guard arrival.isFinite else {
            return Rank(priority: FetchPriority(level: .speculative, order: Self.unreachedOrder + forecast.distance(to: extent) / forecast.length))
        }
        let onScreen = arrival <= now && forecast.shows(extent, at: now)
        let worthASlot = departure - Swift.max(onScreen ? now : arrival, now + expected) >= latency
        if worthASlot {
            return Rank(priority: FetchPriority(level: onScreen ? .visible : .prefetch, order: arrival),
                        until: departure - expected - latency)
        }
        guard departure > now + latency else { return Rank(priority: FetchPriority(level: .background, order: arrival)) }
        return Rank(priority: FetchPriority(level: .speculative, order: -departure))
    }

    /// Orders of items the forecast never reaches start here: after any arrival time (seconds).
    @usableFromInline static var unreachedOrder: Double { 1e9 }
}

/// An item's priority under one frame's ``Ranking``, and the time until which it holds.
@usableFromInline
struct Rank {
    @usableFromInline var priority: FetchPriority
    /// The time (seconds) after which the priority no longer holds as time passes, though the
    /// forecast does; infinity when it holds for as long as the forecast.
    @usableFromInline var until: Double

    @inlinable
    init(priority: FetchPriority, until: Double = .infinity) {
        self.priority = priority
        self.until = until
    }
}

/// A request's sort key: most urgent first, then the oldest entry. Not nested in the generic
/// ``Changes``, so that sorting by it needs no generic metadata.
@usableFromInline
struct RequestKey {
    @usableFromInline var priority: FetchPriority
    @usableFromInline var sequence: UInt64

    @inlinable
    init(priority: FetchPriority, sequence: UInt64) {
        self.priority = priority
        self.sequence = sequence
    }
}

/// One update's changes, each with the sequence number that orders equals.
///
/// The items and their sort keys live in separate arrays, and the requests are ordered by
/// sorting positions by the keys alone: the controller is compiled once for every `Item`, so a
/// comparison that touched `(Item, FetchPriority, UInt64)` tuples would go through the runtime's
/// generic tuple metadata on every step of the sort (65 % of a re-ranking frame's instructions).
@usableFromInline
struct Changes<Item: Hashable> {
    @usableFromInline var moved: [PrefetchMove<Item>]
    @usableFromInline var removed: [Item]
    @usableFromInline var withdrawals: [Item] = []
    @usableFromInline var requestItems: [Item] = []
    @usableFromInline var requestKeys: [RequestKey] = []

    @inlinable
    init(moved: [PrefetchMove<Item>], removed: [Item]) {
        self.moved = moved
        self.removed = removed
    }

    /// Withdraws `item` (in the order of the calls).
    @inlinable
    mutating func withdraw(_ item: Item) {
        withdrawals.append(item)
    }

    /// Requests `item` at `priority`; `sequence` orders equal priorities.
    @inlinable
    mutating func request(_ item: Item, at priority: FetchPriority, sequence: UInt64) {
        requestItems.append(item)
        requestKeys.append(RequestKey(priority: priority, sequence: sequence))
    }

    @inlinable
    func update() -> PrefetchUpdate<Item> {
        let keys = requestKeys
        let order = keys.indices.sorted { a, b in
            keys[a].priority != keys[b].priority ? keys[a].priority > keys[b].priority : keys[a].sequence < keys[b].sequence
        }
        var requests: [PrefetchRequest<Item>] = []
        requests.reserveCapacity(order.count)
        for index in order { requests.append(PrefetchRequest(item: requestItems[index], priority: keys[index].priority)) }
        return PrefetchUpdate(moved: moved, removed: removed, withdrawals: withdrawals, requests: requests)
    }
}

extension FetchPriority.Level {
    /// Items a forecast shows on screen only for a moment (a fly-past: on screen for less than a
    /// typical load) or not at all (behind, or past where the motion stops): worth loading only
    /// with slots to spare. Between ``background`` and ``prefetch``.
    public static let speculative = FetchPriority.Level(rawValue: 50)
}
