/// What a planner lets through to its target when something limits prefetching: the network's
/// conditions (only items worth a load slot), the target's memory (no more items than fit), a
/// byte budget (no more prefetches a minute than it allows), or a memory-pressure signal.
///
/// Open, the gate passes every frame's update as it is: the target holds exactly the planner's
/// requests. Closed, it keeps what the target holds (``forwarded``) and, each frame, takes the
/// target from that to what the rules allow of the planner's requests, most urgent first. A
/// visible item always passes. With a target that has a data store, what its memory cannot hold
/// goes to the store (``FetchDestination/store``) instead of being dropped, and is requested
/// again to memory when it comes within the capacity. When the rules open again, the gate sends the target the whole
/// plan once more and opens.
@usableFromInline
struct RequestGate<Item: Hashable> {
    /// One frame's rules; all `nil` is open.
    @usableFromInline
    struct Rules: Equatable {
        /// Only items worth a load slot pass (``isWorthASlot(_:)``): no fly-pasts, nothing leaving.
        @usableFromInline var worthOnly: Bool
        /// The most items requested at once, visible ones included (which pass even beyond it).
        @usableFromInline var capacity: Int?
        /// The byte budget: the prefetches sent in any minute.
        @usableFromInline var budget: PrefetchDataBudget?
        /// Items beyond the capacity go to the target's data store instead of being dropped.
        var storesBeyondCapacity: Bool

        init(worthOnly: Bool = false, capacity: Int? = nil, budget: PrefetchDataBudget? = nil, storesBeyondCapacity: Bool = false) {
            self.worthOnly = worthOnly
            self.capacity = capacity
            self.budget = budget
            self.storesBeyondCapacity = storesBeyondCapacity && capacity != nil
        }

        /// Whether nothing is held back.
        @inlinable
        var isOpen: Bool { !worthOnly && capacity == nil && budget == nil }

        /// Whether a request at `priority` is worth a load slot: it will show its data for at
        /// least a typical load (``FetchPriority/Level/prefetch`` and above), or lies beyond where
        /// the motion stops (a speculative item the forecast never reaches: the window at rest).
        /// Not a fly-past (speculative by departure) nor an item leaving the plan (background).
        static func isWorthASlot(_ priority: FetchPriority) -> Bool {
            priority.level >= .prefetch || (priority.level == .speculative && priority.order >= Ranking.unreachedOrder)
        }
    }

    /// A request the target holds: at this priority, first requested as `sequence` (the plan's
    /// own sort key).
    @usableFromInline typealias Forwarded = RequestKey

    /// What the target holds, by the name it knows; `nil` while open (it holds the plan).
    @usableFromInline var forwarded: [Item: Forwarded]?
    /// When each prefetch counted against the byte budget was sent (seconds), oldest first.
    var spent: [Double] = []

    init() {}

    /// Whether the gate holds something back (or did on the last frame).
    @inlinable
    var isClosed: Bool { forwarded != nil }

    /// Closes the gate over a target that holds exactly `held` (the planner's requests so far).
    mutating func close(holding held: [(item: Item, entry: HeldEntry)]) {
        var forwarded: [Item: Forwarded] = [:]
        forwarded.reserveCapacity(held.count)
        for (item, entry) in held { forwarded[item] = Forwarded(priority: entry.priority, sequence: entry.sequence) }
        self.forwarded = forwarded
    }

    /// Forgets what the target holds (it was withdrawn, or forgot it): open. The byte budget's
    /// minute is kept.
    @inlinable
    mutating func reset() { forwarded = nil }

    /// Applies a data change to what the target holds: removals, then renames (names before the change).
    mutating func apply(moved: [PrefetchMove<Item>], removed: [Item]) {
        guard var held = forwarded, !(moved.isEmpty && removed.isEmpty) else { return }
        for item in removed { held[item] = nil }
        var carried: [(Item, Forwarded)] = []
        for move in moved {
            if let request = held.removeValue(forKey: move.from) { carried.append((move.to, request)) }
        }
        for (item, request) in carried { held[item] = request }
        forwarded = held
    }

    /// Takes the target from what it holds to what `rules` allow of `candidates` (the planner's
    /// requests), recording the withdrawals and requests in `changes`; opens when the rules are open.
    ///
    /// Candidates pass most urgent first (then the oldest request): visible items always; the
    /// others if worth a slot (when `worthOnly`), while the capacity lasts (beyond it, to the store
    /// when `storesBeyondCapacity`), and, for one the target does not hold yet, while the byte
    /// budget's minute allows another prefetch (which it then counts). An item whose priority or
    /// destination changed is requested again.
    /// - Complexity: O(h log h) for h candidates.
    mutating func reconcile(_ candidates: [(item: Item, entry: HeldEntry)], rules: Rules, now: Double, into changes: inout Changes<Item>) {
        let held = forwarded ?? [:]
        let order = candidates.indices.sorted { a, b in
            let (x, y) = (candidates[a].entry, candidates[b].entry)
            return x.priority != y.priority ? x.priority > y.priority : x.sequence < y.sequence
        }
        if let first = spent.firstIndex(where: { $0 > now - 60 }) { spent.removeFirst(first) } else { spent.removeAll() }
        var affordable = rules.budget.map { Swift.max($0.loadsPerMinute - spent.count, 0) } ?? Int.max
        var slots = rules.capacity ?? Int.max
        var allowed: [Item: Forwarded] = [:]
        allowed.reserveCapacity(Swift.min(candidates.count, slots))
        for index in order {
            let (item, entry) = candidates[index]
            var destination = FetchDestination.memory
            if entry.priority.level < .visible {
                if rules.worthOnly, !Rules.isWorthASlot(entry.priority) { continue }
                if slots <= 0 {
                    guard rules.storesBeyondCapacity else { continue }
                    destination = .store
                }
                if rules.budget != nil, held[item] == nil {
                    guard affordable > 0 else { continue }
                    affordable -= 1
                    spent.append(now)
                }
            }
            if destination == .memory, slots != Int.max { slots -= 1 }
            let forwarded = Forwarded(priority: entry.priority, sequence: entry.sequence, destination: destination)
            allowed[item] = forwarded
            if let before = held[item], before.priority == forwarded.priority, before.destination == destination { continue }
            changes.request(item, at: entry.priority, sequence: entry.sequence, destination: destination)
        }
        let gone = held.filter { allowed[$0.key] == nil }.sorted { $0.value.sequence < $1.value.sequence }
        for (item, _) in gone { changes.withdraw(item) }
        forwarded = rules.isOpen ? nil : allowed
    }
}
