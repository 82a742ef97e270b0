/// A least-recently-used cache bounded by total cost and by count.
///
/// A value type with no lock of its own: ``AsyncFetcher`` keeps one inside its locked state.
/// Every operation is O(1); entries live in one array threaded by a doubly linked list, so
/// nothing is allocated per hit.
///
/// ```swift
/// var cache = try MemoryCache<String, [UInt8]>(countLimit: 100, costLimit: 1 << 20) { $0.count }
/// try cache.insert([1, 2, 3], forKey: "a")
/// cache.value(forKey: "a")   // [1, 2, 3], now the most recently used
/// cache.trim(toCost: 0)      // memory pressure: drop everything
/// ```
@usableFromInline struct MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Node: Sendable {
        @usableFromInline var key: Key
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var prev: Int
        @usableFromInline var next: Int

        @usableFromInline
        init(key: Key, value: Value?, cost: Int, prev: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.prev = prev
            self.next = next
        }
    }

    /// The most entries the cache keeps.
    @usableFromInline let countLimit: Int
    /// The most total cost the cache keeps.
    @usableFromInline let costLimit: Int
    let costOf: @Sendable (Value) -> Int

    @usableFromInline var index: [Key: Int] = [:]
    @usableFromInline var nodes: ContiguousArray<Node> = []
    @usableFromInline var free: [Int] = []
    @usableFromInline var head = -1  // most recently used
    @usableFromInline var tail = -1  // least recently used
    @usableFromInline var storedCount = 0
    @usableFromInline var storedCost = 0
    @usableFromInline var storedEvictions = 0

    /// The number of entries.
    var count: Int { storedCount }
    /// The sum of the entries' costs.
    @inlinable var totalCost: Int { storedCost }
    /// How many entries were evicted to stay within the limits (not counting removals and trims).
    var evictions: Int { storedEvictions }

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - countLimit: the most entries to keep; at least 1.
    ///   - costLimit: the most total cost to keep; at least 0.
    ///   - cost: the cost of one value (for example its size in bytes); must not be negative.
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` for a limit out of range.
    init(countLimit: Int = 1_000, costLimit: Int = .max, cost: @escaping @Sendable (Value) -> Int = { _ in 1 }) throws {
        guard countLimit >= 1 else {
            throw PrefetchError(.invalidConfiguration, "MemoryCache countLimit must be at least 1, got \(countLimit)")
        }
        guard costLimit >= 0 else {
            throw PrefetchError(.invalidConfiguration, "MemoryCache costLimit must be 0 or more, got \(costLimit)")
        }
        self.countLimit = countLimit
        self.costLimit = costLimit
        self.costOf = cost
    }

    /// Returns the value for `key` and marks it most recently used.
    /// - Complexity: O(1)
    @inlinable
    mutating func value(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Returns the value for `key` without changing the recency order.
    /// - Complexity: O(1)
    func peek(forKey key: Key) -> Value? {
        index[key].flatMap { nodes[$0].value }
    }

    /// Whether `key` has a value.
    func contains(_ key: Key) -> Bool { index[key] != nil }

    /// Stores `value` for `key` as most recently used, then evicts least recently used entries
    /// until the cache is within its limits.
    ///
    /// A value costlier than ``costLimit`` on its own is refused up front: it is not stored, no
    /// other entry is evicted for it, and an older value for `key` is removed (it is out of date).
    ///
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidCost`` when the cost
    ///   function returns a negative cost; the cache is left unchanged.
    /// - Complexity: O(1) amortized, plus O(e) for e evictions.
    mutating func insert(_ value: Value, forKey key: Key) throws {
        try insert(value, forKey: key, cost: costOf(value))
    }

    /// Stores `value` for `key` with a cost computed by the caller, as ``insert(_:forKey:)`` does.
    ///
    /// The cache's own cost function is not called: an owner that keeps the cache behind a lock
    /// computes the cost before taking it, so no caller code runs under the lock.
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidCost`` when `cost` is
    ///   negative; the cache is left unchanged.
    /// - Complexity: O(1) amortized, plus O(e) for e evictions.
    @inlinable
    mutating func insert(_ value: Value, forKey key: Key, cost: Int) throws {
        guard cost >= 0 else {
            throw PrefetchError(.invalidCost, "MemoryCache cost function returned \(cost) for key \(key); costs must be 0 or more")
        }
        guard cost <= costLimit else {
            removeValue(forKey: key)
            return
        }
        // The value replaces the key's old one; then the least recently used entries make room
        // first, so the total never goes past the limit, not even for a moment (two costs just
        // over Int.max / 2 would overflow a sum taken before evicting).
        removeValue(forKey: key)
        while tail >= 0, storedCount >= countLimit || storedCost > costLimit - cost {
            storedEvictions += 1
            removeSlot(tail)
        }
        let node = Node(key: key, value: value, cost: cost, prev: -1, next: head)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if head >= 0 { nodes[head].prev = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
        storedCount += 1
        storedCost += cost
    }

    /// Removes and returns the value for `key`.
    /// - Complexity: O(1)
    @inlinable
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = nodes[slot].value
        removeSlot(slot)
        return value
    }

    /// Removes every entry.
    /// - Complexity: O(n)
    mutating func removeAll() {
        index.removeAll()
        nodes.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        storedCount = 0
        storedCost = 0
    }

    /// Removes every entry whose key is not in `keep` (for memory pressure: keep what is on screen).
    /// - Complexity: O(n)
    mutating func removeAll(except keep: Set<Key>) {
        var slot = tail
        while slot >= 0 {
            let previous = nodes[slot].prev
            if !keep.contains(nodes[slot].key) { removeSlot(slot) }
            slot = previous
        }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`, those whose keys
    /// are not in `sparing` first.
    /// - Complexity: O(n) at most.
    @usableFromInline mutating func trim(toCost cost: Int, sparing: Set<Key>) {
        var slot = tail
        while totalCost > max(cost, 0), slot >= 0 {
            let previous = nodes[slot].prev
            if !sparing.contains(nodes[slot].key) { removeSlot(slot) }
            slot = previous
        }
        trim(toCost: cost)
    }

    /// Evicts least recently used entries until the total cost is at most `cost` (for memory pressure).
    /// - Complexity: O(e) for e evicted entries.
    mutating func trim(toCost cost: Int) {
        while totalCost > max(cost, 0), tail >= 0 { removeSlot(tail) }
    }

    /// Evicts least recently used entries until at most `count` remain.
    /// - Complexity: O(e) for e evicted entries.
    mutating func trim(toCount count: Int) {
        while self.count > max(count, 0), tail >= 0 { removeSlot(tail) }
    }

    /// The keys from most to least recently used.
    /// - Complexity: O(n)
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = head
        while slot >= 0 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].next
        }
        return keys
    }

    @inlinable
    mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].prev = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].prev = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let prev = nodes[slot].prev, next = nodes[slot].next
        if prev >= 0 { nodes[prev].next = next } else { head = next }
        if next >= 0 { nodes[next].prev = prev } else { tail = prev }
    }

    @inlinable
    mutating func removeSlot(_ slot: Int) {
        unlink(slot)
        index[nodes[slot].key] = nil
        storedCost -= nodes[slot].cost
        storedCount -= 1
        nodes[slot].value = nil
        nodes[slot].cost = 0
        free.append(slot)
    }

    /// Checks that the list, the index and the totals agree; traps with a message otherwise.
    func _checkInvariants() {
        var seen = 0, cost = 0, slot = head, prev = -1
        while slot >= 0 {
            precondition(nodes[slot].prev == prev, "broken back link at slot \(slot)")
            precondition(index[nodes[slot].key] == slot, "index disagrees for slot \(slot)")
            seen += 1
            cost += nodes[slot].cost
            prev = slot
            slot = nodes[slot].next
        }
        precondition(prev == tail, "tail is \(tail), list ends at \(prev)")
        precondition(seen == count && index.count == count, "count \(count), list \(seen), index \(index.count)")
        precondition(cost == totalCost, "totalCost \(totalCost), sum \(cost)")
        precondition(count <= countLimit && totalCost <= costLimit, "limits exceeded")
    }
}
