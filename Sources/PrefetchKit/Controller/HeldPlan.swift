/// What a planner holds: a request for each item of its last plan (and for the items leaving it),
/// and the diff that takes them to the next plan.
///
/// Frames cost what changes, not what is held: the last plan is kept as ranges of the axis, and
/// the geometry is asked only about the slivers that entered or left it; every held item is
/// ranked again only when the forecast or a latency changed, or its rank went stale.
@usableFromInline
struct HeldPlan<Item: Hashable> {
    /// The requests for the items of the last plan (never leaving).
    @usableFromInline var entries: [Item: HeldEntry] = [:]
    /// The items that left the plan ahead of the viewport and are not withdrawn yet.
    @usableFromInline var leaving = LeavingItems<Item>()
    /// The last plan: sorted, disjoint ranges whose items are exactly `entries` (unless `isStale`).
    @usableFromInline var covered: [Range<Double>] = []
    /// The earliest ``HeldEntry/until``: before then no held rank goes stale.
    @usableFromInline var nextExpiry = Double.infinity
    @usableFromInline var nextSequence: UInt64 = 0
    /// The items or the layout changed since the last plan: the next one is read whole.
    @usableFromInline var isStale = false

    init() {}

    /// The rank of `item`, whose extent is `extent`, under `ranking`, with the item's own typical
    /// latency (seconds) when `itemLatency` knows it (from the item's size).
    @inlinable
    func rank(_ item: Item, _ extent: Range<Double>, _ ranking: Ranking, _ itemLatency: (Item) -> Double?) -> Rank {
        ranking.rank(of: extent, typical: itemLatency(item))
    }

    /// Takes the requests to `wanted`, the plan of `state`'s frame.
    ///
    /// What left the plan ahead of the viewport in the direction `heading` is kept for `grace`
    /// seconds (0: withdrawn at once); `rerank` ranks every held item again; `itemLatency` gives an
    /// item's own typical latency (seconds) when the target knows it.
    @inlinable
    mutating func update<Geometry: ItemGeometry>(
        to wanted: RangeUnion, of state: ScrollState, previous: Range<Double>?, heading: Int, grace: Double,
        rerank: Bool, _ ranking: Ranking, _ geometry: Geometry, _ changes: inout Changes<Item>,
        itemLatency: (Item) -> Double? = { _ in nil }
    ) where Geometry.Item == Item {
        defer { covered = wanted.ranges }
        if isStale { return rebuild(wanted, ranking, geometry, &changes, itemLatency: itemLatency) }
        let covered = RangeUnion(sorted: self.covered)
        // 1. What left the plan.
        for range in covered.subtracting(wanted) {
            geometry.forEachItem(meeting: range) { item, extent in
                guard !wanted.meets(extent), let entry = entries.removeValue(forKey: item) else { return }
                if grace > 0, LeavingItems<Item>.isAhead(extent, of: state.viewport, heading: heading) {
                    leaving.retire(item, entry, at: state.seconds, &changes)
                } else {
                    changes.withdraw(item)
                }
            }
        }
        // 2. What the forecast ranks differently: everything when it changed, else what came on screen.
        //    Between changes of the forecast, a rank also goes stale as time passes: an item
        //    worth a slot stops being worth one once a load started now would show its data
        //    too briefly. Those are ranked again when their time comes.
        if rerank || state.seconds > nextExpiry {
            var earliest = Double.infinity
            for index in entries.indices {
                if rerank || entries.values[index].until < state.seconds { self.rerank(at: index, ranking, &changes, itemLatency) }
                earliest = Swift.min(earliest, entries.values[index].until)
            }
            nextExpiry = earliest
        }
        if !rerank, let previous {
            let viewport = RangeUnion([state.viewport], clippedTo: state.contentLength)
            for range in viewport.subtracting(RangeUnion([previous], clippedTo: state.contentLength)) {
                geometry.forEachItem(meeting: range) { item, _ in
                    guard let index = entries.index(forKey: item) else { return }
                    self.rerank(at: index, ranking, &changes, itemLatency)
                    nextExpiry = Swift.min(nextExpiry, entries.values[index].until)
                }
            }
        }
        // 3. What entered the plan.
        for range in wanted.subtracting(covered) {
            geometry.forEachItem(meeting: range) { item, extent in
                guard !covered.meets(extent), entries[item] == nil else { return }
                let rank = self.rank(item, extent, ranking, itemLatency)
                nextExpiry = Swift.min(nextExpiry, rank.until)
                if let gone = leaving.takeBack(item) {
                    // Taken back within the grace: its load, if one runs, goes on.
                    var entry = HeldEntry(extent: extent, rank: rank, sequence: gone.sequence)
                    if ranking.isMeaningful(from: gone.priority, to: rank.priority) {
                        changes.request(item, at: rank.priority, sequence: entry.sequence)
                    } else {
                        entry.priority = gone.priority
                    }
                    entries[item] = entry
                    return
                }
                entries[item] = HeldEntry(extent: extent, rank: rank, sequence: nextSequence)
                changes.request(item, at: rank.priority, sequence: nextSequence)
                nextSequence &+= 1
            }
        }
        leaving.expire(now: state.seconds, grace: grace, &changes)
    }

    /// Ranks the held item at `index` again, and requests it at its new rank if that is meaningful.
    @inlinable
    mutating func rerank(at index: [Item: HeldEntry].Index, _ ranking: Ranking, _ changes: inout Changes<Item>,
                         _ itemLatency: (Item) -> Double?) {
        let entry = entries.values[index]
        let rank = self.rank(entries.keys[index], entry.extent, ranking, itemLatency)
        entries.values[index].until = rank.until
        guard ranking.isMeaningful(from: entry.priority, to: rank.priority) else { return }
        entries.values[index].priority = rank.priority
        changes.request(entries.keys[index], at: rank.priority, sequence: entry.sequence)
    }

    /// Reads the whole plan from the geometry and diffs it against what is held; what left the
    /// plan goes at once.
    @inlinable
    mutating func rebuild<Geometry: ItemGeometry>(
        _ wanted: RangeUnion, _ ranking: Ranking, _ geometry: Geometry, _ changes: inout Changes<Item>,
        itemLatency: (Item) -> Double?
    ) where Geometry.Item == Item {
        var fresh: [Item: HeldEntry] = [:]
        fresh.reserveCapacity(entries.count)
        var earliest = Double.infinity
        for range in wanted {
            geometry.forEachItem(meeting: range) { item, extent in
                guard fresh[item] == nil else { return }
                let rank = self.rank(item, extent, ranking, itemLatency)
                earliest = Swift.min(earliest, rank.until)
                let old = entries[item] ?? leaving.items[item]?.entry
                if let old, !ranking.isMeaningful(from: old.priority, to: rank.priority) {
                    fresh[item] = HeldEntry(extent: extent, rank: Rank(priority: old.priority, until: rank.until), sequence: old.sequence)
                    return
                }
                let sequence = old?.sequence ?? nextSequence
                if old == nil { nextSequence &+= 1 }
                fresh[item] = HeldEntry(extent: extent, rank: rank, sequence: sequence)
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
        for (item, left) in leaving.items where fresh[item] == nil {
            gone.append(item)
            goneSequences.append(left.entry.sequence)
        }
        leaving.removeAll()
        for index in goneSequences.indices.sorted(by: { goneSequences[$0] < goneSequences[$1] }) {
            changes.withdraw(gone[index])
        }
        entries = fresh
        isStale = false
    }

    /// Every held item with its request: the plan's, then those leaving it.
    @inlinable
    func all() -> [(item: Item, entry: HeldEntry)] {
        entries.map { ($0.key, $0.value) } + leaving.items.map { ($0.key, $0.value.entry) }
    }

    /// Every held item, oldest request first.
    @inlinable
    func inSequence() -> [Item] {
        if entries.isEmpty && leaving.items.isEmpty { return [] }
        return all().sorted { $0.entry.sequence < $1.entry.sequence }.map { $0.item }
    }

    /// Renames every held item with `transform` (`nil`: deleted, dropped), oldest request first;
    /// returns each item's old name and new one. The next plan is read whole.
    mutating func rename(_ transform: (Item) -> Item?) -> [(old: Item, new: Item?)] {
        var renamed: [(old: Item, new: Item?)] = []
        var moved: [Item: HeldEntry] = [:]
        var movedLeaving: [Item: LeavingEntry] = [:]
        moved.reserveCapacity(entries.count)
        for (item, entry) in all().sorted(by: { $0.entry.sequence < $1.entry.sequence }) {
            let new = transform(item)
            renamed.append((item, new))
            guard let new else { continue }
            if let left = leaving.items[item] { movedLeaving[new] = left } else { moved[new] = entry }
        }
        entries = moved
        leaving.items = movedLeaving
        isStale = true
        return renamed
    }

    /// Forgets every request.
    @inlinable
    mutating func removeAll() {
        entries.removeAll()
        leaving.removeAll()
        nextExpiry = .infinity
        covered = []
        isStale = false
    }

    /// Traps, naming the broken rule, when the held requests are not exactly the items of the last
    /// plan (as `geometry` reports them) with their extents, or a leaving item outstayed `grace`.
    func checkInvariants<Geometry: ItemGeometry>(geometry: Geometry, now: Double?, grace: Double) where Geometry.Item == Item {
        for (a, b) in zip(covered, covered.dropFirst()) {
            precondition(a.upperBound < b.lowerBound, "the plan's ranges \(a) and \(b) overlap, touch, or are out of order")
        }
        guard !isStale else { return }
        var expected: [Item: Range<Double>] = [:]
        for range in covered { geometry.forEachItem(meeting: range) { item, extent in expected[item] = extent } }
        precondition(expected.count == entries.count, "the planner holds \(entries.count) items, but its plan has \(expected.count)")
        for (item, entry) in entries {
            precondition(expected[item] == entry.extent, "held item \(item) at \(entry.extent) is not in the plan at that extent")
        }
        for (item, left) in leaving.items {
            precondition(expected[item] == nil, "item \(item) is in the plan and also leaving it")
            precondition(left.entry.priority == LeavingItems<Item>.priority, "leaving item \(item) is held at \(left.entry.priority), not at background")
            if let now {
                precondition(now - left.since < grace, "leaving item \(item) left at \(left.since) and is still held at \(now), past the grace")
            }
        }
    }
}

/// One held request: where the item lies, what it was requested at, until when that rank holds,
/// and when it was first requested (for a deterministic order among equals).
@usableFromInline
struct HeldEntry {
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

/// A request's sort key: most urgent first, then the oldest entry. Not nested in the generic
/// ``Changes``, so that sorting by it needs no generic metadata.
@usableFromInline
struct RequestKey: Equatable {
    @usableFromInline var priority: FetchPriority
    @usableFromInline var sequence: UInt64
    /// Where the request's data goes (the gate sends what its target's memory cannot hold to the store).
    @usableFromInline var destination: FetchDestination

    @inlinable
    init(priority: FetchPriority, sequence: UInt64, destination: FetchDestination = .memory) {
        self.priority = priority
        self.sequence = sequence
        self.destination = destination
    }
}

/// One frame's changes, each with the sequence number that orders equals.
///
/// The items and their sort keys live in separate arrays, and the requests are ordered by
/// sorting positions by the keys alone: the planner is compiled once for every `Item`, so a
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

    /// Requests `item` at `priority` for `destination`; `sequence` orders equal priorities.
    @inlinable
    mutating func request(_ item: Item, at priority: FetchPriority, sequence: UInt64, destination: FetchDestination = .memory) {
        requestItems.append(item)
        requestKeys.append(RequestKey(priority: priority, sequence: sequence, destination: destination))
    }

    @inlinable
    func update() -> PrefetchUpdate<Item> {
        let keys = requestKeys
        let order = keys.indices.sorted { a, b in
            keys[a].priority != keys[b].priority ? keys[a].priority > keys[b].priority : keys[a].sequence < keys[b].sequence
        }
        var requests: [PrefetchRequest<Item>] = []
        requests.reserveCapacity(order.count)
        for index in order { requests.append(PrefetchRequest(item: requestItems[index], priority: keys[index].priority, destination: keys[index].destination)) }
        return PrefetchUpdate(moved: moved, removed: removed, withdrawals: withdrawals, requests: requests)
    }
}
