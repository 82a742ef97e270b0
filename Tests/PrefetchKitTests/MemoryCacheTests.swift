import Testing
@testable import PrefetchKit

@Suite struct MemoryCacheTests {
    @Test func evictsLeastRecentlyUsedByCount() throws {
        var cache = try MemoryCache<String, Int>(countLimit: 3)
        for (i, key) in ["a", "b", "c"].enumerated() { try cache.insert(i, forKey: key) }
        _ = cache.value(forKey: "a")          // a is now most recent
        try cache.insert(3, forKey: "d")      // evicts b
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.peek(forKey: "b") == nil)
        #expect(cache.evictions == 1)
        cache._checkInvariants()
    }

    @Test func evictsByCost() throws {
        var cache = try MemoryCache<Int, [UInt8]>(countLimit: 100, costLimit: 10) { $0.count }
        try cache.insert([UInt8](repeating: 0, count: 4), forKey: 1)
        try cache.insert([UInt8](repeating: 0, count: 4), forKey: 2)
        try cache.insert([UInt8](repeating: 0, count: 4), forKey: 3)  // 12 > 10: evicts 1
        #expect(cache.keysByRecency == [3, 2])
        #expect(cache.totalCost == 8)
        #expect(cache.evictions == 1)
        cache._checkInvariants()
    }

    @Test func aValueCostlierThanTheLimitIsRefusedAndEvictsNothing() throws {
        // Given a cache holding two values
        var cache = try MemoryCache<Int, [UInt8]>(countLimit: 100, costLimit: 10) { $0.count }
        try cache.insert([UInt8](repeating: 0, count: 4), forKey: 2)
        try cache.insert([UInt8](repeating: 0, count: 4), forKey: 3)
        // When a value that alone exceeds the cost limit comes
        try cache.insert([UInt8](repeating: 0, count: 11), forKey: 4)
        // Then it is refused up front, and the others stay cached
        #expect(!cache.contains(4))
        #expect(cache.keysByRecency == [3, 2])
        #expect(cache.totalCost == 8 && cache.evictions == 0)
        // A too costly replacement drops the key's old value (it is out of date), nothing else
        try cache.insert([UInt8](repeating: 0, count: 11), forKey: 2)
        #expect(cache.keysByRecency == [3] && cache.totalCost == 4)
        cache._checkInvariants()
    }

    @Test func trimAndRemoveAllForMemoryPressure() throws {
        var cache = try MemoryCache<Int, Int>(countLimit: 10, costLimit: 100) { $0 }
        for i in 1...5 { try cache.insert(i, forKey: i) }   // costs 1...5, total 15
        cache.trim(toCost: 9)                                // drop 1, 2, 3 (least recent)
        #expect(cache.keysByRecency == [5, 4])
        cache.trim(toCount: 1)
        #expect(cache.keysByRecency == [5])
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache.value(forKey: 5) == nil)
        try cache.insert(1, forKey: 1)
        cache._checkInvariants()
    }

    @Test func replacingAValueUpdatesItsCost() throws {
        var cache = try MemoryCache<Int, Int>(countLimit: 10, costLimit: 100) { $0 }
        try cache.insert(10, forKey: 1)
        try cache.insert(30, forKey: 1)
        #expect(cache.count == 1 && cache.totalCost == 30 && cache.peek(forKey: 1) == 30)
        cache._checkInvariants()
    }

    @Test func costsNearIntMaxEvictInsteadOfOverflowing() throws {
        // The default cost limit is Int.max: two values costing just over half of it cannot both
        // stay, and adding the second's cost before evicting would overflow
        let half = Int.max / 2 + 1
        var cache = try MemoryCache<Int, Int> { $0 }
        try cache.insert(half, forKey: 1)
        try cache.insert(half, forKey: 2)
        #expect(cache.count == 1 && cache.peek(forKey: 2) == half && cache.totalCost == half)
        #expect(cache.evictions == 1)
        // Replacing a key's value with a costlier one, next to another entry, also stays in range
        try cache.insert(Int.max - half, forKey: 3)
        #expect(cache.totalCost == Int.max)
        try cache.insert(Int.max, forKey: 3)
        #expect(cache.count == 1 && cache.totalCost == Int.max && cache.peek(forKey: 3) == Int.max)
        cache._checkInvariants()
    }

    @Test func negativeCostIsAnErrorNotACorruptedTotal() throws {
        var cache = try MemoryCache<Int, Int>(countLimit: 10) { $0 }
        try cache.insert(5, forKey: 1)
        #expect(throws: PrefetchError.self) { try cache.insert(-3, forKey: 2) }
        #expect(cache.totalCost == 5 && cache.count == 1)
        cache._checkInvariants()
    }

    @Test func invalidLimitsNameTheValue() {
        #expect { try MemoryCache<Int, Int>(countLimit: 0) } throws: {
            ($0 as? PrefetchError)?.message.contains("countLimit must be at least 1, got 0") == true
        }
        #expect { try MemoryCache<Int, Int>(costLimit: -1) } throws: {
            ($0 as? PrefetchError)?.message.contains("costLimit must be 0 or more, got -1") == true
        }
    }

    @Test func randomOperationsKeepInvariants() throws {
        var rng = SplitMix64(seed: 42)
        var cache = try MemoryCache<Int, Int>(countLimit: 20, costLimit: 60) { $0 % 7 }
        for _ in 0..<5_000 {
            let key = Int(rng.next() % 40)
            switch rng.next() % 4 {
            case 0, 1: try cache.insert(Int(rng.next() % 100), forKey: key)
            case 2: _ = cache.value(forKey: key)
            default: cache.removeValue(forKey: key)
            }
            cache._checkInvariants()
        }
    }
}
