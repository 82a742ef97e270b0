/// Decides, frame by frame, what to load for a scrolling surface and how urgently: the one piece
/// between any scrolling surface (a `UICollectionView`, a SwiftUI list, a simulator) and a fetcher.
///
/// Each frame the surface calls ``update(_:geometry:)`` with its ``ScrollState`` and its
/// ``ItemGeometry``. The controller reads its ``target``'s latencies once, lets its planner (a
/// value that calls nothing) work out the frame, and hands the target the resulting
/// ``PrefetchUpdate`` once: what entered the plan or changed rank, with its ``FetchPriority``, and
/// what left it. The planner forecasts the viewport's motion, asks the ``policy`` where to hold
/// interest, and ranks every item there by when it will come on screen and for how long
/// (<doc:SchedulingByTimeToDisplay>); what leaves the plan ahead of the viewport is withdrawn only
/// after ``Configuration/withdrawalGrace``.
///
/// It owns every load decision, visible items included: a data source asks ``priority(for:extent:)``
/// in `cellForItemAt` and passes the answer to `fetchAsync(_:priority:completion:)` or
/// `value(for:priority:)`, so a cell that a fling carries past asks at a low priority.
///
/// ```swift
/// let controller = PrefetchController<Int>(policy: PrefetchPolicies.adaptive)
/// controller.target = fetcher.prefetchTarget { row in ids.indices.contains(row) ? ids[row] : nil }
/// // every frame:
/// controller.update(ScrollState(time: t, viewport: y..<(y + height), contentLength: total,
///                               velocity: v, phase: phase), geometry: rows)
/// // in cellForItemAt:
/// fetcher.fetchAsync(ids[row], priority: controller.priority(for: row)) { result in /* fill the cell */ }
/// ```
///
/// The controller is not thread-safe: use it from one isolation domain (the main actor, for a view).
public final class PrefetchController<Item: Hashable> {
    /// The controller's tuning: made and checked by its initialiser, read-only after.
    public struct Configuration: Sendable, Hashable {
        /// The load time assumed until the target has measured one: the typical latency, and the
        /// expected latency the ranking and the policy plan with.
        public private(set) var fallbackLatency: Duration
        /// How far an item's predicted arrival must move before the controller re-prioritises its
        /// request (a change of level always does).
        public private(set) var reprioritizationTolerance: Duration
        /// How long an item that left the plan ahead of the viewport stays requested, at
        /// background priority, before it is withdrawn, in typical (median) latencies; 0
        /// withdraws it at once, like an item the viewport passed.
        public private(set) var withdrawalGrace: Double
        /// How long, on the frames' clock, the plan stays shrunk to the screen and the landing
        /// zone of a fling after ``PrefetchController/handleMemoryPressure()``.
        public private(set) var memoryPressureDuration: Duration

        /// The defaults: 300 ms until measured, re-prioritise on moves of more than 50 ms, keep
        /// what left the plan ahead for 2 typical latencies, shrink for 0.5 s after memory
        /// pressure (the longest of those measured after which a steady drag's readiness from
        /// 2 s to 4 s after the signal matches a run without it; the PrefetchKit article "Budgets").
        public static var standard: Configuration {
            Configuration(validatedFallbackLatency: LatencyEstimate.standardFallback, tolerance: .milliseconds(50), grace: 2,
                          pressure: .milliseconds(500))
        }

        /// Creates a configuration.
        /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when the
        ///   latency, the tolerance or the memory-pressure duration is negative, or the grace
        ///   negative or not finite.
        public init(fallbackLatency: Duration = LatencyEstimate.standardFallback, reprioritizationTolerance: Duration = .milliseconds(50),
                    withdrawalGrace: Double = 2, memoryPressureDuration: Duration = .milliseconds(500)) throws {
            guard fallbackLatency >= .zero else {
                throw PrefetchError(.invalidConfiguration, "PrefetchController fallbackLatency is \(fallbackLatency), but it must not be negative")
            }
            guard reprioritizationTolerance >= .zero else {
                throw PrefetchError(.invalidConfiguration,
                                    "PrefetchController reprioritizationTolerance is \(reprioritizationTolerance), but it must not be negative")
            }
            guard withdrawalGrace.isFinite, withdrawalGrace >= 0 else {
                throw PrefetchError(.invalidConfiguration,
                                    "PrefetchController withdrawalGrace is \(withdrawalGrace), but it must be a finite number of typical latencies, at least 0")
            }
            guard memoryPressureDuration >= .zero else {
                throw PrefetchError(.invalidConfiguration,
                                    "PrefetchController memoryPressureDuration is \(memoryPressureDuration), but it must not be negative")
            }
            self.init(validatedFallbackLatency: fallbackLatency, tolerance: reprioritizationTolerance, grace: withdrawalGrace,
                      pressure: memoryPressureDuration)
        }

        private init(validatedFallbackLatency: Duration, tolerance: Duration, grace: Double, pressure: Duration) {
            fallbackLatency = validatedFallbackLatency
            reprioritizationTolerance = tolerance
            withdrawalGrace = grace
            memoryPressureDuration = pressure
        }
    }

    /// Everything the controller decides: it holds the plan and computes each frame's update.
    @usableFromInline var planner: PrefetchPlanner<Item>

    /// Chooses where to hold interest. Changing it takes effect at the next update.
    public var policy: any PrefetchPolicy {
        get { planner.policy }
        set { planner.policy = newValue }
    }

    /// Receives the decisions and reports the latency; `nil` plans nothing (``priority(for:extent:)``
    /// still answers from the forecast).
    ///
    /// Setting another target withdraws everything from the old one, and the next update
    /// requests the plan from the new one.
    public var target: (any PrefetchTarget<Item>)? {
        didSet {
            guard oldValue !== target else { return }
            let goodbye = planner.withdrawAll()
            if !goodbye.isEmpty { oldValue?.updatePrefetching(goodbye) }
        }
    }

    /// The controller's tuning.
    public var configuration: Configuration { planner.configuration }

    /// How the controller allots bytes when its target loads previews (``PrefetchTarget/acceptsPreviews``):
    /// full values for the screen, where a motion rests and what arrives soon, previews for the
    /// rest (see ``PreviewPlan``). `nil`, the default, asks for full values only. A change takes
    /// effect for the requests of the next updates.
    public var previews: PreviewPlan?
    /// The items last requested as previews, with their arrival on screen (seconds; infinity
    /// when not expected): each is requested again in full once it arrives within ``PreviewPlan/fullWithin``.
    @usableFromInline var previewsHeld: [Item: Double] = [:]

    /// The network's conditions: under Low Data Mode, on an expensive network or with a byte
    /// budget the controller requests less ahead of need (see ``NetworkConditions``); visible
    /// items are always requested. A change takes effect at the next update. On Apple platforms,
    /// `PrefetchUIKit`'s `NetworkConditionsMonitor` reads them from `NWPathMonitor`.
    public var networkConditions: NetworkConditions {
        get { planner.conditions }
        set { planner.conditions = newValue }
    }

    /// Creates a controller; its policy is adaptive by default, as everywhere in the package
    /// (`ScrollAdapter`, `ScrollViewPrefetcher`, `ListPrefetcher`, the demo).
    public init(policy: any PrefetchPolicy = PrefetchPolicies.adaptive, target: (any PrefetchTarget<Item>)? = nil,
                configuration: Configuration = .standard) {
        planner = PrefetchPlanner(policy: policy, configuration: configuration)
        self.target = target
    }

    /// Plans one frame: reads the target's latencies, steps the planner, and sends the target
    /// what changed (forecast, policy, ranking and diff are the planner's; see the type's summary).
    ///
    /// A state with an unusable value (not finite, a negative content length, a deceleration rate
    /// outside (0, 1), a negative animation duration), an empty viewport or empty content plans
    /// nothing: everything requested is withdrawn. A time earlier than the previous update's
    /// counts as the previous update's time.
    ///
    /// - Returns: The update sent to the target (empty without a target).
    /// - Complexity: O(c log c + g) for c changed items and g items the geometry reports for the
    ///   slivers that entered or left the plan, independent of the number of items; O(h) for h
    ///   held items on a frame whose forecast or latency changed.
    @inlinable @discardableResult
    public func update<Geometry: ItemGeometry>(_ state: ScrollState, geometry: Geometry) -> PrefetchUpdate<Item>
    where Geometry.Item == Item {
        guard let target else {
            _ = planner.step(state, geometry: geometry, latency: LatencyEstimate(), planning: false)
            return PrefetchUpdate()
        }
        let capacity = target.prefetchCapacity
        // Beyond a capacity, to the target's store if it has one (an `AsyncFetcher`'s target with a `DataStore`).
        let hasStore = capacity != nil && target.acceptsStoreDestination
        var update = planner.step(state, geometry: geometry,
                                  latency: LatencyEstimate(typical: target.typicalLatency, expected: target.expectedLatency),
                                  capacity: capacity, hasStore: hasStore, itemLatency: { target.typicalLatency(of: $0) })
        if let previews, target.acceptsPreviews, !update.requests.isEmpty || !previewsHeld.isEmpty {
            allotQualities(&update, plan: previews, now: state.seconds, geometry: geometry)
        }
        if !update.isEmpty { target.updatePrefetching(update) }
        return update
    }

    /// Plans `state` as ``update(_:geometry:)`` does, but keeps what the last update planned and
    /// only adds the viewport to it, asking the policy nothing: for the first frame of a move
    /// nobody announced (a jump, or an animated scroll whose later frames show it to be one), whose
    /// look-ahead would be flown past if the move goes on, and whose old plan would churn if it was
    /// a nudge. The next frame at rest plans the rest.
    @discardableResult
    package func updateKeepingPlan<Geometry: ItemGeometry>(_ state: ScrollState, geometry: Geometry) -> PrefetchUpdate<Item>
    where Geometry.Item == Item {
        planner.keepsPlan = true
        return update(state, geometry: geometry)
    }

    /// The priority to load `item` at now: what the controller requested it at, or, for an item
    /// outside the plan, its rank under the current forecast given its `extent`.
    ///
    /// Call it from `cellForItemAt` and pass the answer to `fetchAsync(_:priority:completion:)`
    /// or `value(for:priority:)`. Without an extent (and before the first update) an item outside
    /// the plan gets ``FetchPriority/visible``.
    /// - Complexity: O(1).
    public func priority(for item: Item, extent: Range<Double>? = nil) -> FetchPriority {
        planner.priority(for: item, extent: extent)
    }

    /// The priority `item` is requested at, or `nil` when it is not in the plan. An item that
    /// left the plan but is not withdrawn yet answers ``FetchPriority/Level/background``.
    /// - Complexity: O(1).
    public func requestedPriority(of item: Item) -> FetchPriority? { planner.requestedPriority(of: item) }

    /// The number of items requested now: the plan's, and those that left it but are not withdrawn
    /// yet (what the planner holds; under ``networkConditions``, a memory budget or memory
    /// pressure the target may be sent fewer).
    package var requestedCount: Int { planner.requestedCount }

    /// What the frames so far say about the user's habits: the ``ScrollContext/history`` the
    /// policy sees.
    package var history: ScrollHistory { planner.history }

    /// The items requested now, most urgent first: the plan as the controller holds it (what a
    /// debugging overlay or a demo draws).
    /// - Complexity: O(h log h) for h held items.
    public var requestedItems: [PrefetchRequest<Item>] { planner.requestedItems }

    /// The surface laid its items out again (a new size, new item sizes): the next update reads
    /// the whole plan from the geometry, and withdraws what left it.
    public func invalidateLayout() { planner.invalidateLayout() }

    /// Every item may now name other data (the data was reloaded): the next update sends every
    /// held item as ``PrefetchUpdate/removed`` and requests the plan afresh.
    public func invalidateItems() { planner.invalidateItems() }

    /// A batch update renamed items: `transform` gives each item's new name, or `nil` for an item
    /// that was deleted. The next update sends the renames as ``PrefetchUpdate/moved``, the
    /// deleted items as ``PrefetchUpdate/removed``, and reads the layout again. Batch updates
    /// between two frames compose.
    /// - Complexity: O(h log h) for h held items.
    public func moveItems(_ transform: (Item) -> Item?) { planner.moveItems(transform) }

    /// Answers memory pressure (on iOS, the memory warning; `PrefetchUIKit`'s prefetcher calls
    /// it for you): withdraws now every request but those of the items on screen and where a
    /// fling comes to rest, asks the target to keep in memory only those items' data
    /// (``PrefetchTarget/trimMemory(keeping:)``), and keeps the plan to them for
    /// ``Configuration/memoryPressureDuration`` seconds of the frames' clock; then it plans as
    /// before. Before the first update, the shrinking starts with it.
    ///
    /// ```swift
    /// controller.handleMemoryPressure()
    /// ```
    public func handleMemoryPressure() {
        let (update, keep) = planner.memoryPressure()
        guard let target else { return }
        if !update.isEmpty { target.updatePrefetching(update) }
        target.trimMemory(keeping: keep)
    }

    /// Whether a memory-pressure signal still keeps the plan to the screen and the landing zone.
    package var isUnderMemoryPressure: Bool { planner.isUnderMemoryPressure }

    /// Withdraws every request now and plans again from scratch at the next update.
    public func withdrawAll() {
        let update = planner.withdrawAll()
        if !update.isEmpty { target?.updatePrefetching(update) }
    }

    /// Forgets every request without telling the target (which forgot them itself, as a UIKit
    /// view forgets pending prefetches when its prefetch data source changes).
    package func reset() { planner.reset() }

    /// Traps, naming the broken rule, when the held requests are not exactly the items of the
    /// last plan (as `geometry` reports them) with their extents. Call it in tests after updates.
    package func _checkInvariants<Geometry: ItemGeometry>(geometry: Geometry) where Geometry.Item == Item {
        planner._checkInvariants(geometry: geometry)
    }
}
