extension AsyncFetcher {
    /// A ``PrefetchTarget`` that turns a ``PrefetchController``'s decisions into this fetcher's
    /// prefetch interests, naming each item's data with `identifier`.
    ///
    /// A request sets (or re-prioritises) the prefetch interest of the item's id; a withdrawal
    /// withdraws it; a frame's update reaches the fetcher as one
    /// ``AsyncFetcher/updatePrefetching(_:cancelling:)`` call. The target keeps the id it requested
    /// under each item, so a withdrawal after the data changed withdraws the right id, and an id
    /// that several items share stays requested while one of them holds it. It reports the
    /// fetcher's ``AsyncFetcher/expectedLatency`` and ``AsyncFetcher/typicalLatency``, and
    /// withdraws every interest it still holds when it is released. Use it where its controller runs.
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
    ///     started for a moment on screen it cannot fill.
    public func prefetchTarget<Item: Hashable>(
        identifier: @escaping (Item) -> ID?, expectedBytes: ((Item) -> Int?)? = nil
    ) -> some PrefetchTarget<Item> {
        FetcherPrefetchTarget(fetcher: self, identifier: identifier, expectedBytes: expectedBytes)
    }
}

/// The `PrefetchTarget` of an `AsyncFetcher`: made by `AsyncFetcher.prefetchTarget(identifier:expectedBytes:)`.
///
/// A request sets (or re-prioritises) the prefetch interest of the item's id at the request's
/// priority; a withdrawal withdraws it; a frame's update reaches the fetcher as one
/// ``AsyncFetcher/updatePrefetching(_:cancelling:)`` call (one lock, and no load starts for an id
/// the same frame withdraws). It keeps the id it requested under each item, so a
/// withdrawal after the data changed (a deleted row whose index now names another model)
/// withdraws the right id, and it counts the items that share an id, so one leaving does not
/// cancel the others' load. It reports the fetcher's `expectedLatency` and median
/// latency (for an item of known size, the median adjusted by the measured transfer rate), and
/// how many values its memory budget holds; under memory pressure it keeps in the
/// cache only what the controller keeps. When it is released it withdraws every interest it still holds.
///
/// Not thread-safe: use it where its controller runs.
package final class FetcherPrefetchTarget<Item: Hashable, ID: Hashable & Sendable, Value: Sendable>: PrefetchTarget, StoreDestinationTarget {
    /// The fetcher the decisions go to.
    let fetcher: AsyncFetcher<ID, Value>
    private let identifier: (Item) -> ID?
    /// The size of an item's data, when the app knows it.
    private let expectedBytes: ((Item) -> Int?)?
    /// The id requested under each item.
    private var requested: [Item: ID] = [:]
    /// How many items hold each id.
    private var holders: [ID: Int] = [:]

    package init(fetcher: AsyncFetcher<ID, Value>, identifier: @escaping (Item) -> ID?, expectedBytes: ((Item) -> Int?)? = nil) {
        self.fetcher = fetcher
        self.identifier = identifier
        self.expectedBytes = expectedBytes
    }

    /// A target that goes away (its controller, adapter or view was dropped without being
    /// detached) withdraws what it still holds, so no prefetch outlives the view that asked for it.
    deinit {
        if !holders.isEmpty { fetcher.cancelPrefetching(Array(holders.keys)) }
    }

    /// Applies the update: removals, renames, withdrawals, then requests, in one call to the
    /// fetcher; an id is cancelled only if no item holds it at the end.
    package func updatePrefetching(_ update: PrefetchUpdate<Item>) {
        var released: [ID] = []
        for item in update.removed { withdraw(item, into: &released) }
        if !update.moved.isEmpty {
            // Take every source out first, so swaps and chains of renames keep their ids.
            var carried: [(Item, ID)] = []
            for move in update.moved {
                if let id = requested.removeValue(forKey: move.from) { carried.append((move.to, id)) }
            }
            for (item, id) in carried {
                if let displaced = requested.updateValue(id, forKey: item), release(displaced) { released.append(displaced) }
            }
        }
        for item in update.withdrawals { withdraw(item, into: &released) }
        var requests: [(ID, FetchPriority)] = []
        requests.reserveCapacity(update.requests.count)
        // Filled only once a request goes to the store: then one destination per request.
        var destinations: [FetchDestination] = []
        for request in update.requests {
            guard let id = identifier(request.item) else {
                withdraw(request.item, into: &released)
                continue
            }
            if let old = requested[request.item], old != id {
                withdraw(request.item, into: &released)
            }
            if requested[request.item] == nil {
                requested[request.item] = id
                holders[id, default: 0] += 1
            }
            if request.destination != .memory, destinations.isEmpty {
                destinations = Array(repeating: .memory, count: requests.count)
                destinations.reserveCapacity(update.requests.count)
            }
            requests.append((id, request.priority))
            if !destinations.isEmpty { destinations.append(request.destination) }
        }
        let cancels = released.filter { holders[$0] == nil }
        // Under a memory budget, what is requested is evicted last (before it, what was passed).
        if fetcher.configuration.memoryBudget < Int.max { fetcher.setWanted(Set(holders.keys)) }
        if !requests.isEmpty || !cancels.isEmpty { fetcher.updatePrefetching(requests, destinations: destinations, cancelling: cancels) }
    }

    private func withdraw(_ item: Item, into released: inout [ID]) {
        guard let id = requested.removeValue(forKey: item) else { return }
        if release(id) { released.append(id) }
    }

    /// Drops one holder of `id`; returns whether none is left.
    private func release(_ id: ID) -> Bool {
        guard let count = holders[id] else { return false }
        if count > 1 {
            holders[id] = count - 1
            return false
        }
        holders[id] = nil
        return true
    }

    /// The fetcher's `expectedLatency`: its recent 90th percentile (cancelled loads
    /// counted as lasting at least as long as they ran).
    package var expectedLatency: Duration? { fetcher.expectedLatency }

    /// The fetcher's `typicalLatency`: the median of its recent latencies, once it
    /// has as many samples as `expectedLatency` needs.
    package var typicalLatency: Duration? { fetcher.typicalLatency }

    /// The fetcher's typical latency for a load of the item's size (`AsyncFetcher.typicalLatency(forBytes:)`),
    /// when the app gave sizes and the fetcher has measured its transfer rate.
    package func typicalLatency(of item: Item) -> Duration? {
        guard let expectedBytes, let bytes = expectedBytes(item) else { return nil }
        return fetcher.typicalLatency(forBytes: bytes)
    }

    /// Whether the fetcher has a data store, so that a request may go there only.
    @usableFromInline package var acceptsStoreDestination: Bool { fetcher.hasStore }

    /// How many values fit the fetcher's memory budget at once (`AsyncFetcher.valueCapacity`).
    package var prefetchCapacity: Int? { fetcher.valueCapacity }

    /// Keeps in the fetcher's memory cache only the data of `items` (the ids requested under them).
    package func trimMemory(keeping items: [Item]) {
        fetcher.trimCache(keeping: items.compactMap { requested[$0] })
    }

    /// The number of items requested now.
    var requestedCount: Int { requested.count }

    /// The ids requested now, for tests.
    var requestedIDs: [ID] { Array(holders.keys) }
}
