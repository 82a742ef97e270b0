import Foundation
import PrefetchKit

/// A first appearance of an item, for the clairvoyant reference.
struct Appearance: Comparable {
    var time: Double
    var item: Int
    static func < (a: Appearance, b: Appearance) -> Bool { (a.time, a.item) < (b.time, b.item) }
}

/// The clairvoyant reference's planner: keeps the fetcher's queue filled, earliest deadline
/// first, with items that can still be ready when they first appear.
///
/// It knows the future (when each item first appears, from a recording pass) and every load's
/// duration (from the network's draws; on a shared link, its round trip plus its payload's
/// transfer with the link shared by `cap` transfers), so it projects when each slot frees up
/// and skips an item that would miss its deadline from there. With a `lookahead` it sees only the
/// appearances due within that many seconds (`clairvoyant-1s`). Its requests go to the same fetcher as the
/// cells' own, at a level above them.
@MainActor
final class ClairvoyantPlanner {
    /// The reference's own priority level, above `visible`: its plan outranks cells' requests.
    static let plannedLevel = FetchPriority.Level(rawValue: FetchPriority.Level.visible.rawValue + 100)

    private let schedule: [Appearance]
    private let loop: VirtualTimeLoop<Int, SimulatedData>
    private let cap: Int
    private let horizon: Int
    /// How far ahead it sees, in seconds (nil: the whole trace).
    private let lookahead: Double?
    private var cursor = 0
    /// Planned items not started yet, in request order (so runs repeat across processes).
    private var waiting: [Int] = []

    init(schedule: [Appearance], loop: VirtualTimeLoop<Int, SimulatedData>, cap: Int, horizon: Int, lookahead: Double? = nil) {
        self.lookahead = lookahead
        self.schedule = schedule
        self.loop = loop
        self.cap = cap
        self.horizon = horizon
    }

    /// The first appearance of each item, in time order.
    static func firstAppearances(_ log: [(time: Double, item: Int)]) -> [Appearance] {
        var seen = Set<Int>()
        return log.map { Appearance(time: $0.time, item: $0.item) }.sorted().filter { seen.insert($0.item).inserted }
    }

    /// Tops the queue up: call after every frame and every finished attempt.
    func topUp() {
        let now = loop.now
        let fetcher = loop.fetcher
        let network = loop.network
        while cursor < schedule.count, schedule[cursor].time <= now { cursor += 1 }
        waiting = waiting.filter { !network.isLoading($0) && fetcher.fetchedData(for: $0) == nil }
        // When each slot frees up: waiting attempts end at known times; planned loads follow.
        var slots = network.deadlines.values.map { max(now, $0.seconds) }.sorted()
        slots += Array(repeating: now, count: max(0, cap - slots.count))
        for item in waiting {
            let earliest = slots.indices.min { slots[$0] < slots[$1] }!
            slots[earliest] += network.plannedLoad(of: item, sharers: cap).seconds
        }
        let end = min(schedule.count, cursor + horizon)
        var index = cursor
        var scanned = 0
        while waiting.count < cap, index < end, scanned < 400 {
            let next = schedule[index]
            // A short-sighted reference sees only the appearances of the next `lookahead` seconds.
            if let lookahead, next.time > now + lookahead { break }
            index += 1
            scanned += 1
            if waiting.contains(next.item) || network.isLoading(next.item) || fetcher.fetchedData(for: next.item) != nil { continue }
            let (seconds, succeeds) = network.plannedLoad(of: next.item, sharers: cap)
            let earliest = slots.indices.min { slots[$0] < slots[$1] }!
            // Cannot be ready in time (or will fail): leave the slot to one that can.
            guard succeeds, slots[earliest] + seconds <= next.time else { continue }
            slots[earliest] += seconds
            waiting.append(next.item)
            fetcher.prefetch([next.item], priority: FetchPriority(level: Self.plannedLevel, order: next.time))
        }
    }
}
