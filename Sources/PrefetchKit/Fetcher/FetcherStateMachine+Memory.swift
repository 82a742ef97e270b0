// The memory a fetcher holds (the cache's values and the loads in flight, bounded by the
// budget), and the statistics that report it.
extension FetcherStateMachine {
    /// The counters, with the load counts and latency summary of now (mutating: the latency
    /// window works out its summary at the first read after a load ended).
    var statistics: FetchStatistics {
        mutating get {
            var snapshot = stats
            snapshot.inFlight = scheduler.runningCount
            snapshot.queued = scheduler.waitingCount
            snapshot.latency = latency.summary
            snapshot.transferBytesPerSecond = throughput.secondsPerByte.map { 1 / $0 }
            snapshot.linkBytesPerSecond = throughput.linkBytesPerSecond
            snapshot.memoryHeld = memoryHeld
            snapshot.peakMemoryHeld = Swift.max(memory.peak, snapshot.memoryHeld)
            return snapshot
        }
    }

    // MARK: Memory

    /// A typical value's cost: the mean of the costs seen so far, rounded up; `nil` before the first.
    @inlinable
    var typicalCost: Int? {
        memory.count == 0 ? nil : Int(min((memory.sum / Double(memory.count)).rounded(.up), Double(Int.max / 2)))
    }

    /// What the loads running now are expected to hold once their values arrive: a typical cost each.
    @inlinable
    var reservedMemory: Int {
        guard let cost = typicalCost else { return 0 }
        let (product, overflow) = cost.multipliedReportingOverflow(by: scheduler.runningCount)
        return overflow ? Int.max : product
    }

    /// The cache's total cost plus ``reservedMemory`` (`FetchStatistics.memoryHeld`).
    @inlinable
    var memoryHeld: Int {
        let (sum, overflow) = cache.totalCost.addingReportingOverflow(reservedMemory)
        return overflow ? Int.max : sum
    }

    /// How many values fit the memory budget at once (the budget over a typical cost), or `nil`
    /// when there is no budget or no value has been seen yet.
    var valueCapacity: Int? {
        guard memory.budget < Int.max, let cost = typicalCost else { return nil }
        return cost == 0 ? nil : memory.budget / cost
    }

    /// The ids a prefetch target requests now: the budget evicts the others' values first.
    mutating func setWanted(_ ids: Set<ID>) {
        memory.wanted = ids
    }

    /// Counts the cost of a value that arrived, for ``typicalCost``.
    @inlinable
    mutating func noteValueCost(_ cost: Int) {
        memory.sum += Double(cost)
        memory.count += 1
    }

    /// Evicts the least recently used values until the cache and the loads in flight fit the
    /// budget, then records the peak. Called whenever the memory held may have grown: a load
    /// started, a value arrived.
    @inlinable
    mutating func balanceMemory() {
        if memory.budget < Int.max {
            let room = memory.budget - Swift.min(reservedMemory, memory.budget)
            if cache.totalCost > room { cache.trim(toCost: room, sparing: memory.wanted) }
        }
        memory.peak = Swift.max(memory.peak, memoryHeld)
    }
}

/// The memory bookkeeping of a `FetcherStateMachine`: the budget, the costs seen, the peak held,
/// and the ids whose values the budget evicts last.
@usableFromInline
struct MemoryAccount<ID: Hashable & Sendable>: Sendable {
    /// `FetcherConfiguration.memoryBudget`.
    @usableFromInline let budget: Int
    /// The sum and number of the value costs seen.
    @usableFromInline var sum = 0.0
    @usableFromInline var count = 0
    /// The most memory held at once.
    @usableFromInline var peak = 0
    /// The ids a prefetch target requests now (`FetcherPrefetchTarget`, under a budget).
    @usableFromInline var wanted: Set<ID> = []

    init(budget: Int) { self.budget = budget }
}
