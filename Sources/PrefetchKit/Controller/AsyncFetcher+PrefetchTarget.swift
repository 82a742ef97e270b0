import HeapModule

extension AsyncFetcher {
    /// A ``PrefetchTarget`` that turns a ``PrefetchController``'s decisions into this fetcher's
    /// prefetch interests, naming each item's data with `identifier`.
    ///
    /// A request sets (or re-prioritises) the prefetch interest of the item's id; a withdrawal
    /// withdraws it; a frame's update reaches the fetcher as one
    /// ``AsyncFetcher/updatePrefetching(_:cancelling:)`` call. The target keeps the id it requested
    /// under each item, so a withdrawal after the data changed withdraws the right id. When several
    /// items share an id, the id's interest takes the most urgent of their priorities (and memory
    /// when any of them wants memory), and it is withdrawn only when the last of them goes. It
    /// reports the fetcher's ``AsyncFetcher/expectedLatency`` and ``AsyncFetcher/typicalLatency``,
    /// and withdraws every interest it still holds when it is released. Use it where its controller runs.
    ///
    /// ```swift
    /// controller.target = fetcher.prefetchTarget { (row: Int) in
    ///     models.indices.contains(row) ? models[row].identifier : nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - identifier: The id of an item's data, or `nil` when it is not known yet (a page that
    ///     has not arrived): such an item is skipped until a later request names it.
    ///   - expectedBytes: The size of an item's data on the wire, when the feed says (a photo's
    ///     byte count, or its pixel area times a typical bytes-per-pixel), or `nil`. With sizes,
    ///     and a loader that reports its bytes (``FetchLoadContext/recordTransferred(bytes:)``),
    ///     the controller plans each item with its own load time
    ///     (``PrefetchTarget/typicalLatency(of:)``): a large photo starts earlier, and is not
    ///     started for a moment on screen it cannot fill. Return `nil` for a size you do not
    ///     know. Any size and any measured rate give a finite load time or none, never a trap:
    ///     a negative size counts as unknown (the item is planned with the median latency), 0 as
    ///     the round trip alone, and a load time past 10¹⁸ seconds (`Int.max` bytes on a slow
    ///     link) as 10¹⁸ seconds: a load longer than any scroll, never planned as a quicker one
    ///     than a smaller item's.
    public func prefetchTarget<Item: Hashable>(
        identifier: @escaping (Item) -> ID?, expectedBytes: ((Item) -> Int?)? = nil
    ) -> some PrefetchTarget<Item> {
        FetcherPrefetchTarget(fetcher: self, identifier: identifier, expectedBytes: expectedBytes)
    }
}

/// The `PrefetchTarget` of an `AsyncFetcher`: made by `AsyncFetcher.prefetchTarget(identifier:expectedBytes:)`.
///
/// A request sets (or re-prioritises) the prefetch interest of the item's id; a withdrawal
/// withdraws it; a frame's update reaches the fetcher as one
/// ``AsyncFetcher/updatePrefetching(_:cancelling:)`` call (one lock, and no load starts for an id
/// the same frame withdraws). It keeps the id it requested under each item, so a withdrawal after
/// the data changed (a deleted row whose index now names another model) withdraws the right id.
/// Items that share an id: after every update the id's interest has the most urgent priority
/// among the items holding it now, and memory if any of them wants memory (else the store), and
/// it is withdrawn only when the last of them goes. It reports the fetcher's `expectedLatency` and median
/// latency (for an item of known size, the median adjusted by the measured transfer rate), and
/// how many values its memory budget holds; under memory pressure it keeps in the
/// cache only what the controller keeps. When it is released it withdraws every interest it still holds.
///
/// Not thread-safe: use it where its controller runs.
package final class FetcherPrefetchTarget<Item: Hashable, ID: Hashable & Sendable, Value: Sendable>: PrefetchTarget, ShutDownReporting {
    /// What an item holds: its id, its own priority and destination, and the stamp that names
    /// its rank among the id's holders (a new one whenever its priority changes).
    private struct Hold {
        var id: ID
        var priority: FetchPriority
        var toMemory: Bool
        /// Whether it wants the full value (else a preview suffices).
        var full: Bool = true
        var stamp: UInt64
    }

    /// The fetcher the decisions go to.
    let fetcher: AsyncFetcher<ID, Value>
    private let identifier: (Item) -> ID?
    /// The size of an item's data, when the app knows it.
    private let expectedBytes: ((Item) -> Int?)?
    /// What each requested item holds.
    private var requested: [Item: Hold] = [:]
    /// The items that hold each id.
    private var holdings: [ID: SharedIdHolding] = [:]
    /// The number of the update being applied (from 1).
    private var frame: UInt64 = 0
    private var nextStamp: UInt64 = 0
    /// The ids a request of the update being applied names, in the order of the requests.
    private var asked: [ID] = []
    /// The other ids whose holders the update being applied changed.
    private var touched: [ID] = []
    /// The ids that lost their last holder during the update being applied.
    private var released: [ID] = []

    package init(fetcher: AsyncFetcher<ID, Value>, identifier: @escaping (Item) -> ID?, expectedBytes: ((Item) -> Int?)? = nil) {
        self.fetcher = fetcher
        self.identifier = identifier
        self.expectedBytes = expectedBytes
    }

    /// A target that goes away (its controller, adapter or view was dropped without being
    /// detached) withdraws what it still holds, so no prefetch outlives the view that asked for it.
    deinit {
        if !holdings.isEmpty { fetcher.cancelPrefetching(Array(holdings.keys)) }
    }

    /// Applies the update: removals, renames, withdrawals, then requests; then, in one call to the
    /// fetcher, each id whose holders changed gets their most urgent priority and strongest
    /// destination, and an id is cancelled only if no item holds it at the end.
    ///
    /// - Complexity: amortised O(k log h) for k items in the update and h the most items sharing
    ///   an id (plus, under a memory budget, the set of held ids given to the fetcher).
    package func updatePrefetching(_ update: PrefetchUpdate<Item>) {
        frame &+= 1
        asked.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
        released.removeAll(keepingCapacity: true)
        for item in update.removed { withdraw(item) }
        if !update.moved.isEmpty {
            // Take every source out first, so swaps and chains of renames keep their ids. A rename
            // keeps the hold's stamp, so the id's ranking does not change.
            var carried: [(Item, Hold)] = []
            for move in update.moved {
                if let hold = requested.removeValue(forKey: move.from) { carried.append((move.to, hold)) }
            }
            for (item, hold) in carried {
                if let displaced = requested.updateValue(hold, forKey: item) { release(displaced) }
            }
        }
        for item in update.withdrawals { withdraw(item) }
        for request in update.requests {
            if let id = identifier(request.item) {
                hold(request.item, id: id, priority: request.priority, toMemory: request.destination == .memory,
                     full: request.quality == .full)
            } else {
                withdraw(request.item)
            }
        }
        var requests: [(ID, FetchPriority)] = []
        requests.reserveCapacity(asked.count + touched.count)
        // Filled only once a request goes to the store: then one destination per request.
        var destinations: [FetchDestination] = []
        var anyToStore = false
        // Filled only once a request asks for a preview: then one quality per request.
        var qualities: [FetchQuality] = []
        var anyPreview = false
        for position in 0..<(asked.count + touched.count) {
            let id = position < asked.count ? asked[position] : touched[position - asked.count]
            guard let index = holdings.index(forKey: id),
                  let (priority, toMemory, full) = holdings.values[index].takeChange(in: frame)
            else { continue }
            if !toMemory, !anyToStore {
                anyToStore = true
                destinations = Array(repeating: .memory, count: requests.count)
                destinations.reserveCapacity(requests.capacity)
            }
            if !full, !anyPreview {
                anyPreview = true
                qualities = Array(repeating: .full, count: requests.count)
                qualities.reserveCapacity(requests.capacity)
            }
            requests.append((id, priority))
            if anyToStore { destinations.append(toMemory ? .memory : .store) }
            if anyPreview { qualities.append(full ? .full : .preview) }
        }
        let cancels = released.filter { holdings[$0] == nil }
        // Under a memory budget, what is requested is evicted last (before it, what was passed).
        if fetcher.configuration.memoryBudget < Int.max { fetcher.setWanted(Set(holdings.keys)) }
        if !requests.isEmpty || !cancels.isEmpty { fetcher.updatePrefetching(requests, destinations: destinations, qualities: qualities, cancelling: cancels)
        }
    }

    /// Sets what `item` holds: `id` at `priority`, to memory or not, at full quality or a preview.
    private func hold(_ item: Item, id: ID, priority: FetchPriority, toMemory: Bool, full: Bool) {
        if let index = requested.index(forKey: item) {
            let old = requested.values[index]
            if old.id == id {
                var new = old
                if old.priority != priority || old.toMemory != toMemory || old.full != full {
                    new.priority = priority
                    new.toMemory = toMemory
                    new.full = full
                    if priority != old.priority {
                        nextStamp &+= 1
                        new.stamp = nextStamp
                    }
                    requested.values[index] = new
                }
                let first = holdings[id, default: SharedIdHolding()].replace(
                    SharedIdRank(priority: old.priority, stamp: old.stamp), toMemory: old.toMemory, full: old.full,
                    with: SharedIdRank(priority: priority, stamp: new.stamp), toMemory: toMemory, full: full, askedIn: frame)
                if first { asked.append(id) }
                return
            }
            requested.remove(at: index)
            release(old)
        }
        nextStamp &+= 1
        requested[item] = Hold(id: id, priority: priority, toMemory: toMemory, full: full, stamp: nextStamp)
        let first = holdings[id, default: SharedIdHolding()].add(SharedIdRank(priority: priority, stamp: nextStamp),
                                                                   toMemory: toMemory, full: full, askedIn: frame)
        if first { asked.append(id) }
    }

    private func withdraw(_ item: Item) {
        if let hold = requested.removeValue(forKey: item) { release(hold) }
    }

    /// Drops one holder of `hold.id` (already taken out of `requested`); the id is released when none is left.
    private func release(_ hold: Hold) {
        guard let index = holdings.index(forKey: hold.id) else { return }
        switch holdings.values[index].remove(SharedIdRank(priority: hold.priority, stamp: hold.stamp), toMemory: hold.toMemory,
                                             full: hold.full, touchedIn: frame) {
        case .last:
            holdings.remove(at: index)
            released.append(hold.id)
        case .firstChange:
            touched.append(hold.id)
        case .changedBefore:
            break
        }
    }

    /// The fetcher's `expectedLatency`: its recent 90th percentile (cancelled loads
    /// counted as lasting at least as long as they ran).
    package var expectedLatency: Duration? { fetcher.expectedLatency }

    /// The fetcher's `typicalLatency`: the median of its recent latencies, once it
    /// has as many samples as `expectedLatency` needs.
    package var typicalLatency: Duration? { fetcher.typicalLatency }

    /// The fetcher's typical latency for a load of the item's size (`AsyncFetcher.typicalLatency(forBytes:)`),
    /// when the app gave sizes and the fetcher has measured its transfer rate: finite or `nil`
    /// for any size the app gives (negative: `nil`; `Int.max`: at most 10¹⁸ s), never a trap.
    package func typicalLatency(of item: Item) -> Duration? {
        guard let expectedBytes, let bytes = expectedBytes(item) else { return nil }
        return fetcher.typicalLatency(forBytes: bytes)
    }

    /// Whether the fetcher has a data store, so that a request may go there only.
    public var acceptsStoreDestination: Bool { fetcher.hasStore }

    /// Whether the fetcher's loader is a `PreviewLoader`, so that a request may ask for a preview only.
    public var acceptsPreviews: Bool { fetcher.loaderPreviews }

    /// How many values fit the fetcher's memory budget at once (`AsyncFetcher.valueCapacity`).
    package var prefetchCapacity: Int? { fetcher.valueCapacity }

    /// Keeps in the fetcher's memory cache only the data of `items` (the ids requested under them).
    package func trimMemory(keeping items: [Item]) {
        fetcher.trimCache(keeping: items.compactMap { requested[$0]?.id })
    }

    /// The number of items requested now.
    var requestedCount: Int { requested.count }

    /// The ids requested now, for tests.
    var requestedIDs: [ID] { Array(holdings.keys) }
}

/// One holder's place in the ranking of an id that several items share: its priority, and the
/// stamp that tells whether it is still current.
struct SharedIdRank: Comparable {
    var priority: FetchPriority
    var stamp: UInt64

    static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.stamp < rhs.stamp
    }
}

/// The items that hold one id of a `FetcherPrefetchTarget`, and what the fetcher was last sent
/// for it: the id's interest is the most urgent holder's priority, to memory if any holder
/// wants memory, at full quality if any holder wants the full value. Concrete, so that the target's generic code does not rank through witness tables.
struct SharedIdHolding {
    /// How many items hold the id.
    private(set) var count = 0
    /// How many of them want its data in memory.
    private(set) var toMemory = 0
    /// How many of them want the full value.
    private(set) var full = 0
    /// The holder's rank while there is one.
    private var lone = SharedIdRank(priority: .background, stamp: 0)
    /// With two holders or more: their current stamps, and their ranks, most urgent on top
    /// (stale ones, of holders gone or re-ranked, are dropped when they reach the top).
    private var live: Set<UInt64> = []
    private var ranking = Heap<SharedIdRank>()
    /// The priority and destination last sent to the fetcher.
    private var sent: (priority: FetchPriority, toMemory: Bool, full: Bool)?
    /// The update in which a request named the id (it is sent then even if nothing changed).
    private var asked: UInt64 = 0
    /// The update in which its holders changed.
    private var touched: UInt64 = 0

    /// What a holder leaving did to the id.
    enum Removal {
        /// It was the last holder.
        case last
        /// The first change of the id's holders in this update (list it).
        case firstChange
        /// The holders changed before in this update.
        case changedBefore
    }

    /// A holder requested in update `frame` joins; returns whether a request of that update named the id first.
    mutating func add(_ rank: SharedIdRank, toMemory wantsMemory: Bool, full wantsFull: Bool = true, askedIn frame: UInt64) -> Bool {
        count += 1
        if wantsMemory { toMemory += 1 }
        if wantsFull { full += 1 }
        if count == 1 {
            lone = rank
        } else {
            if count == 2 { insert(lone) }
            insert(rank)
        }
        return markAsked(frame)
    }

    /// A holder leaves in update `frame`.
    mutating func remove(_ rank: SharedIdRank, toMemory wantsMemory: Bool, full wantsFull: Bool = true, touchedIn frame: UInt64) -> Removal {
        count -= 1
        if wantsMemory { toMemory -= 1 }
        if wantsFull { full -= 1 }
        if count == 0 { return .last }
        live.remove(rank.stamp)
        if count == 1 {
            // Back to one holder: it is the one current rank left.
            lone = bestRanked() ?? lone
            live = []
            ranking = Heap()
        }
        guard touched != frame else { return .changedBefore }
        touched = frame
        return .firstChange
    }

    /// A holder is requested again in update `frame`, maybe with another priority (then a new
    /// stamp) or destination; returns whether a request of that update named the id first.
    mutating func replace(_ old: SharedIdRank, toMemory wasMemory: Bool, full wasFull: Bool = true, with new: SharedIdRank,
                          toMemory wantsMemory: Bool, full wantsFull: Bool = true, askedIn frame: UInt64) -> Bool {
        if wasMemory != wantsMemory { toMemory += wantsMemory ? 1 : -1 }
        if wasFull != wantsFull { full += wantsFull ? 1 : -1 }
        if new.stamp != old.stamp {
            if count == 1 {
                lone = new
            } else {
                live.remove(old.stamp)
                insert(new)
            }
        }
        return markAsked(frame)
    }

    private mutating func markAsked(_ frame: UInt64) -> Bool {
        guard asked != frame else { return false }
        asked = frame
        return true
    }

    /// The most urgent current rank.
    private mutating func top() -> SharedIdRank? { count == 1 ? lone : bestRanked() }

    /// The most urgent current rank in the ranking, dropping the stale ones above it.
    private mutating func bestRanked() -> SharedIdRank? {
        while let best = ranking.max {
            if live.contains(best.stamp) { return best }
            ranking.removeMax()
        }
        return nil
    }

    private mutating func insert(_ rank: SharedIdRank) {
        live.insert(rank.stamp)
        ranking.insert(rank)
        // Stale ranks are at most about half: the rebuild is paid for by the insertions before it.
        if ranking.count > 2 * live.count + 8 { ranking = Heap(ranking.unordered.filter { live.contains($0.stamp) }) }
    }

    /// The id's interest, if this update must send it (a request named it, or its most urgent
    /// priority, its destination or its quality changed); clears the update's marks.
    mutating func takeChange(in frame: UInt64) -> (priority: FetchPriority, toMemory: Bool, full: Bool)? {
        guard asked == frame || touched == frame else { return nil }
        let wasAsked = asked == frame
        asked = 0
        touched = 0
        guard let priority = top()?.priority else { return nil }
        let wantsMemory = toMemory > 0, wantsFull = full > 0
        if !wasAsked, let sent, sent.priority == priority, sent.toMemory == wantsMemory, sent.full == wantsFull { return nil }
        sent = (priority, wantsMemory, wantsFull)
        return (priority, wantsMemory, wantsFull)
    }
}

/// A target that knows whether the work behind it was shut down (a fetcher's), so a scroll
/// adapter over it reports frames sent after the shutdown instead of planning them.
package protocol ShutDownReporting: AnyObject {
    /// Whether the work behind the target was shut down.
    var isShutDown: Bool { get }
}

extension FetcherPrefetchTarget {
    /// Whether the fetcher was shut down.
    package var isShutDown: Bool { fetcher.isShutDown }
}
