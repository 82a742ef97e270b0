@testable import PrefetchKit

/// Draws the events and priorities of a run.
struct Draw {
    var rng: SplitMix64
    mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    /// Levels and orders with many ties, and one level between the built-in ones.
    mutating func priority() -> FetchPriority {
        let levels: [FetchPriority.Level] = [.background, .prefetch, FetchPriority.Level(rawValue: 150), .visible]
        return FetchPriority(level: levels[below(levels.count)], order: Double(below(6) - 1))
    }
    /// The prefetch interest `prefetchPercent` % of the time, else a new consumer (numbered after `lastConsumer`).
    mutating func interest(prefetchPercent: Int, lastConsumer: inout UInt64) -> FetchInterest {
        if chance(prefetchPercent) { return .prefetch }
        lastConsumer += 1
        return .consumer(FetchConsumerID(rawValue: lastConsumer))
    }
}
