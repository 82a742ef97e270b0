import Foundation

/// A lower bound on blank cell-seconds that no policy can beat on a shared link: the limit the
/// bench prints beside the clairvoyant reference (`bound s`, `blankLowerBound`).
///
/// Blank cell-seconds are measured as ``ReadinessMeter`` measures them: for every counted
/// appearance, the time its cell is on screen without the bytes it needs to show something (its
/// payload, or with previews its preview). The bound takes the on-screen intervals of the counted
/// appearances (they do not depend on the policy: the scroll is the trace's), each item's bytes
/// `sᵢ`, the link's capacity `c` (bytes per second) and the shortest possible round trip `r`.
///
/// **The relaxation.** Give a policy every advantage: it knows the future, starts every request at
/// time 0, its round trips overlap freely, it has the link's full capacity, nothing fails, and an
/// item once ready stays ready (no eviction, no reload). Let `Cᵢ` be when item `i` is first ready.
/// No byte arrives before `r`, and by `t` the link has moved at most `B(t) = c × max(0, t − r)`
/// bytes, so for every `t` the items with `Cᵢ ≤ t` weigh at most `B(t)` together. Every real run
/// meets these constraints, so a bound on this relaxation is a bound on every policy.
///
/// **Window terms.** Cut time into windows. In a window `[a, b]` let `Δᵢ` be item `i`'s on-screen
/// time; an item not ready by `b` is blank its whole `Δᵢ` there unless it got ready inside, so:
/// - *pointwise*: at each `t` in the window, of the `n` items on screen at most `k(t)` are ready,
///   the largest `k` whose `k` smallest sizes sum to at most `B(t)` (any `k` items weigh at least
///   the `k` smallest); at least `n − k(t)` cells are blank at `t`. Integrated exactly: with the
///   on-screen sizes sorted and prefix sums `P₁ ≤ … ≤ Pₙ`, the `j`-th is blank before
///   `τⱼ = r + Pⱼ / c`, so a stretch `[u, v]` of constant on-screen set adds `Σⱼ (clamp(τⱼ, u, v) − u)`.
/// - *cumulative*: the window's blank time is at least `Σᵢ Δᵢ [Cᵢ > b]`, and the ready items weigh at
///   most `B(b)`, so at least `Σᵢ Δᵢ` minus the best fractional knapsack of values `Δᵢ`, weights
///   `sᵢ`, capacity `B(b)` (fractional: at least the integral optimum, so still a bound). This term
///   counts the bytes spent since time 0: an item that scrolled off keeps what it cost.
///
/// Each term bounds the blank time inside its own window for every run of the relaxation, so for
/// any cut of time into disjoint windows the sum of the windows' larger terms is a bound, and so
/// is the largest such sum. A dynamic programme over a grid of cut points (the interval ends,
/// thinned to at most `grid` windows) finds it: `best[k] = max(best[k−1] + pointwise(k−1, k),
/// maxⱼ best[j] + cumulative(j, k))`. The per-item bound (no item ready before `r + sᵢ / c`) is
/// implied: `sᵢ ≤ B(t)` holds for every item of a ready set within the budget.
///
/// **What makes it loose.** A window's cumulative term lets the budget go to whichever items
/// suit that window, so consecutive windows may spend the same bytes twice; the pointwise term
/// even per instant. A fractional knapsack may load part of an item. It ignores the concurrency
/// cap, round trips beyond `r` (0 unless the latency model has a floor), queueing, slow starts,
/// failures, and that no policy knows the future. An item on screen twice at once counts once.
enum BlankTimeBound {
    /// An on-screen interval of one counted appearance: `item` on screen from `start` to `end` (seconds).
    struct Interval: Sendable, Hashable {
        var item: Int
        var start: Double
        var end: Double
    }

    /// The lower bound on blank cell-seconds for appearances `intervals`, item `i` needing
    /// `bytes(i)` bytes to show something, on a link of `capacity` bytes per second whose round
    /// trips take at least `minRoundTrip` seconds (0 is always safe), with cut points on a grid of
    /// at most `grid` windows.
    static func lowerBound(
        intervals: [Interval], bytes: (Int) -> Int, capacity: Double, minRoundTrip: Double = 0, grid: Int = 120
    ) -> Double {
        precondition(capacity > 0 && capacity.isFinite, "capacity must be a finite number above 0")
        let link = Link(capacity: capacity, minRoundTrip: max(0, minRoundTrip.isFinite ? minRoundTrip : 0))
        let merged = merge(intervals)
        guard !merged.isEmpty else { return 0 }
        var sizes: [Int: Double] = [:]
        for m in merged where sizes[m.item] == nil { sizes[m.item] = Double(max(0, bytes(m.item))) }
        let mergedSizes = merged.map { sizes[$0.item] ?? 0 }
        var cuts = Array(Set(merged.flatMap { [$0.start, $0.end] })).sorted()
        if cuts.count > grid + 1 {
            let step = Double(cuts.count - 1) / Double(grid)
            cuts = (0...grid).map { cuts[Int((Double($0) * step).rounded())] }
        }
        var best = [0.0]
        for k in 1..<cuts.count {
            let window = merged.compactMap { $0.clipped(to: cuts[k - 1], cuts[k]) }
            var value = best[k - 1] + link.pointwise(window, sizes: sizes)
            for j in 0..<k {
                value = max(value, best[j] + link.cumulative(merged, from: cuts[j], to: cuts[k], sizes: mergedSizes))
            }
            best.append(value)
        }
        return best[cuts.count - 1]
    }

    /// The best fractional knapsack of `items` (values their on-screen time, weights their
    /// sizes) within `budget`: taken most on-screen time per byte first (an empty payload
    /// first of all), ties by item, the first that does not fit in part. Items with no
    /// on-screen time are left out: they save nothing, and an empty one (0 s for 0 B) has no
    /// place in that order, which a sort or a split would then scramble. Found as a
    /// selection, not a sort: the order is split around a pivot, and only the side where the
    /// budget runs out is split again, so a window of `m` items costs O(m) on average rather
    /// than a sort's O(m log m) (the bound asks about 7,000 windows per run).
    static func greedySaving(_ items: inout [(time: Double, size: Double, item: Int)], budget: Double) -> Double {
        func before(_ x: (time: Double, size: Double, item: Int), _ y: (time: Double, size: Double, item: Int)) -> Bool {
            let (left, right) = (x.time * y.size, y.time * x.size)
            return left != right ? left > right : y.item > x.item
        }
        items.removeAll { !($0.time > 0) }
        var (budget, saved) = (budget, 0.0)
        var (low, high) = (0, items.count)
        while low < high {
            // Split items[low..<high] around the middle one: [low, split) come before it.
            items.swapAt((low + high) / 2, high - 1)
            let pivot = items[high - 1]
            var split = low
            for index in low..<(high - 1) where before(items[index], pivot) {
                items.swapAt(index, split)
                split += 1
            }
            items.swapAt(split, high - 1)
            var (time, size) = (0.0, 0.0)
            for index in low..<split { (time, size) = (time + items[index].time, size + items[index].size) }
            if size > budget {
                high = split
                continue
            }
            // Everything before the pivot fits: take it, then the pivot, whole or in part.
            (saved, budget) = (saved + time, budget - size)
            guard pivot.size <= budget else { return saved + pivot.time * budget / pivot.size }
            (saved, budget) = (saved + pivot.time, budget - pivot.size)
            low = split + 1
        }
        return saved
    }

    /// Each item's overlapping intervals merged (an item counts once while on screen), empty ones dropped.
    static func merge(_ intervals: [Interval]) -> [Interval] {
        var merged: [Interval] = []
        for (item, list) in Dictionary(grouping: intervals.filter { $0.end > $0.start }, by: \.item).sorted(by: { $0.key < $1.key }) {
            for interval in list.sorted(by: { $0.start < $1.start }) {
                if let last = merged.last, last.item == item, interval.start <= last.end {
                    merged[merged.count - 1].end = max(last.end, interval.end)
                } else {
                    merged.append(interval)
                }
            }
        }
        return merged
    }

    /// The link of the relaxation: `B(t) = capacity × max(0, t − minRoundTrip)` bytes by `t`.
    private struct Link {
        var capacity: Double
        var minRoundTrip: Double

        /// The pointwise term: at least `n − k(t)` of the `n` cells on screen are blank at each `t`.
        func pointwise(_ intervals: [Interval], sizes: [Int: Double]) -> Double {
            // Sweep: ends before starts at the same time.
            typealias Event = (time: Double, change: Int, item: Int)
            let events = intervals.flatMap { i -> [Event] in [(i.start, 1, i.item), (i.end, -1, i.item)] }.sorted { (x: Event, y: Event) -> Bool in
                if x.time != y.time { return x.time < y.time }
                return x.change != y.change ? x.change < y.change : x.item < y.item
            }
            var onScreen: [Int: Int] = [:]
            var total = 0.0
            var index = 0
            while index < events.count {
                let u = events[index].0
                while index < events.count, events[index].0 == u {
                    onScreen[events[index].2, default: 0] += events[index].1
                    if onScreen[events[index].2] == 0 { onScreen[events[index].2] = nil }
                    index += 1
                }
                guard index < events.count, !onScreen.isEmpty else { continue }
                let v = events[index].0
                var prefix = 0.0
                for size in onScreen.keys.map({ sizes[$0] ?? 0 }).sorted() {
                    prefix += size
                    let ready = minRoundTrip + prefix / capacity
                    if ready <= u { continue }
                    total += min(ready, v) - u
                }
            }
            return total
        }

        /// The cumulative term of the window `[a, b]`: the on-screen time there less the best
        /// fractional knapsack of it within the bytes the link moved by `b`.
        func cumulative(_ intervals: [Interval], from a: Double, to b: Double, sizes: [Double]) -> Double {
            // `intervals` are in item order (`merge`), `sizes` parallel to them: each item's time
            // is summed in one pass, in item order, so the sums are the same in every process.
            var items: [(time: Double, size: Double, item: Int)] = []
            for index in intervals.indices {
                let i = intervals[index]
                guard i.end > a && i.start < b else { continue }
                let time = min(i.end, b) - max(i.start, a)
                if let last = items.last, last.item == i.item {
                    items[items.count - 1].time += time
                } else {
                    items.append((time, sizes[index], i.item))
                }
            }
            let total = items.reduce(0) { $0 + $1.time }
            guard b >= minRoundTrip else { return total }
            return max(0, total - BlankTimeBound.greedySaving(&items, budget: capacity * (b - minRoundTrip)))
        }
    }
}

extension BlankTimeBound.Interval {
    /// The part of the interval within `[a, b]`, or nil if none.
    func clipped(to a: Double, _ b: Double) -> Self? {
        let s = max(start, a), e = min(end, b)
        return e > s ? Self(item: item, start: s, end: e) : nil
    }
}
