/// The withdrawal grace: the items that left the plan ahead of the viewport and are not withdrawn yet.
///
/// An item the plan drops ahead of the viewport in the direction of travel (the window shrank:
/// a finger touched down, a fling's forecast changed) stays requested at background priority,
/// after every other request, and is withdrawn only once the grace has passed; if the plan takes
/// it back first, its running load goes on instead of being cancelled and restarted.
@usableFromInline
struct LeavingItems<Item: Hashable> {
    /// Each leaving item's request, and when it left.
    @usableFromInline var items: [Item: LeavingEntry] = [:]
    /// The earliest ``LeavingEntry/since`` of `items` (no later than it, after a take-back).
    @usableFromInline var earliest = Double.infinity

    init() {}

    /// The priority of a leaving item: after every other request.
    @inlinable
    static var priority: FetchPriority { FetchPriority(level: .background, order: Ranking.unreachedOrder) }

    /// Whether `extent` lies wholly ahead of `viewport` in the direction `heading`.
    @inlinable
    static func isAhead(_ extent: Range<Double>, of viewport: Range<Double>, heading: Int) -> Bool {
        heading >= 0 ? extent.lowerBound >= viewport.upperBound : extent.upperBound <= viewport.lowerBound
    }

    /// Keeps `item`, which left the plan at `time`, at background priority.
    @inlinable
    mutating func retire(_ item: Item, _ entry: HeldEntry, at time: Double, _ changes: inout Changes<Item>) {
        var entry = entry
        if entry.priority != Self.priority {
            entry.priority = Self.priority
            changes.request(item, at: entry.priority, sequence: entry.sequence)
        }
        items[item] = LeavingEntry(entry: entry, since: time)
        earliest = Swift.min(earliest, time)
    }

    /// Takes `item` back into the plan: its request, or `nil` when it was not leaving.
    @inlinable
    mutating func takeBack(_ item: Item) -> HeldEntry? {
        items.removeValue(forKey: item)?.entry
    }

    /// Withdraws, oldest request first, what left at least `grace` seconds before `now`.
    @inlinable
    mutating func expire(now: Double, grace: Double, _ changes: inout Changes<Item>) {
        if now - earliest >= grace { withdraw(now: now, grace: grace, &changes) }
    }

    /// Withdraws what has been leaving for `grace` seconds or more at `now`. Measured as the time
    /// since each item left, never as `now - grace`: a grace too small to change `now` would make
    /// an item that left this very frame look expired, withdrawn in the update that keeps it.
    @usableFromInline
    mutating func withdraw(now: Double, grace: Double, _ changes: inout Changes<Item>) {
        var expired: [(item: Item, sequence: UInt64)] = []
        var earliest = Double.infinity
        for (item, left) in items {
            if now - left.since >= grace {
                expired.append((item, left.entry.sequence))
            } else {
                earliest = Swift.min(earliest, left.since)
            }
        }
        for (item, _) in expired.sorted(by: { $0.sequence < $1.sequence }) {
            items.removeValue(forKey: item)
            changes.withdraw(item)
        }
        self.earliest = earliest
    }

    @inlinable
    mutating func removeAll() {
        items.removeAll()
        earliest = .infinity
    }
}

/// A leaving item's request, and the time it left the plan.
@usableFromInline
struct LeavingEntry {
    @usableFromInline var entry: HeldEntry
    @usableFromInline var since: Double

    @inlinable
    init(entry: HeldEntry, since: Double) {
        self.entry = entry
        self.since = since
    }
}
