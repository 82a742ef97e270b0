import PrefetchTesting
import Testing
@testable import PrefetchKit

/// Items that share an id on the fetcher's target (two rows showing the same avatar): after every
/// update the id's prefetch interest has the most urgent priority among the items holding it now,
/// and memory if any of them wants memory; it is withdrawn only when the last of them goes. The
/// fetcher's interests are read off its scheduler and its destination book.
@Suite("Shared ids on the fetcher's target")
struct SharedIdTargetTests {
    /// The app's data: the id each row shows.
    final class Rows {
        var ids: [Int: Int]
        init(_ ids: [Int: Int]) { self.ids = ids }
    }

    /// A fetcher with a store (so destinations are recorded), its target over `rows`, and its loader.
    struct Rig {
        let rows: Rows
        let loader = ScriptedLoader<Int, String>()
        let fetcher: AsyncFetcher<Int, String>
        let target: FetcherPrefetchTarget<Int, Int, String>

        init(_ ids: [Int: Int]) throws {
            let rows = Rows(ids)
            self.rows = rows
            fetcher = try makeFetcher(cap: 8, store: InMemoryDataStore<Int, String>(), loader: loader)
            target = FetcherPrefetchTarget(fetcher: fetcher) { (row: Int) in rows.ids[row] }
        }

        /// The fetcher's prefetch interest in `id`: its priority and whether the data goes to
        /// memory (not the store only); `nil` when there is none.
        func interest(_ id: Int) -> Interest? {
            fetcher.state.withLock { machine in
                machine.scheduler.entries[id]?.prefetch.map {
                    Interest(priority: $0, toMemory: !machine.destinations.storeOnly.contains(id))
                }
            }
        }

        func send(moved: [PrefetchMove<Int>] = [], removed: [Int] = [], withdrawals: [Int] = [],
                  requests: [PrefetchRequest<Int>] = []) {
            target.updatePrefetching(PrefetchUpdate(moved: moved, removed: removed, withdrawals: withdrawals, requests: requests))
        }
    }

    struct Interest: Equatable, CustomStringConvertible {
        var priority: FetchPriority
        var toMemory: Bool
        var description: String { "\(priority) to \(toMemory ? "memory" : "store")" }
    }

    static let visible = FetchPriority(level: .visible, order: 0)
    static let near = FetchPriority(level: .prefetch, order: 1)
    static let far = FetchPriority(level: .speculative, order: 5)

    func request(_ row: Int, _ priority: FetchPriority, _ destination: FetchDestination = .memory) -> PrefetchRequest<Int> {
        PrefetchRequest(item: row, priority: priority, destination: destination)
    }

    @Test func twoItemsWithOneIdInOneUpdateGiveTheIdTheMoreUrgentPriority() throws {
        // Rows 15 and 60 show avatar 7; the drag ranks 15 as prefetch, 60 as speculative (most urgent first)
        let rig = try Rig([15: 7, 60: 7, 16: 8])
        rig.send(requests: [request(15, Self.near), request(16, Self.near), request(60, Self.far)])
        #expect(rig.interest(7) == Interest(priority: Self.near, toMemory: true))
        #expect(rig.interest(8) == Interest(priority: Self.near, toMemory: true))
        // A later frame re-ranks only row 60: the id keeps row 15's priority
        rig.send(requests: [request(60, FetchPriority(level: .speculative, order: 9))])
        #expect(rig.interest(7) == Interest(priority: Self.near, toMemory: true))
        // And when row 60 becomes the more urgent, the id follows it
        rig.send(requests: [request(60, Self.visible)])
        #expect(rig.interest(7) == Interest(priority: Self.visible, toMemory: true))
        #expect(rig.target.requestedCount == 3 && rig.target.requestedIDs.sorted() == [7, 8])
        rig.fetcher.shutdown()
    }

    @Test func withdrawingTheMoreUrgentHolderLowersTheIdToTheOthersPriority() throws {
        let rig = try Rig([1: 7, 2: 7])
        // Row 2 is requested first, far; row 1 comes on screen in a later frame
        rig.send(requests: [request(2, Self.far)])
        rig.send(requests: [request(1, Self.visible)])
        #expect(rig.interest(7)?.priority == Self.visible)
        // When the visible row leaves, the id falls to row 2's priority
        rig.send(withdrawals: [1])
        #expect(rig.interest(7)?.priority == Self.far)
        // The same when the urgent holder is re-ranked below the other in the update that withdraws nothing
        rig.send(requests: [request(1, Self.near)])
        #expect(rig.interest(7)?.priority == Self.near)
        rig.send(requests: [request(1, FetchPriority(level: .background))])
        #expect(rig.interest(7)?.priority == Self.far)
        rig.fetcher.shutdown()
    }

    @Test func theIdGoesToMemoryWhileAnyHolderWantsMemoryElseToTheStore() throws {
        let rig = try Rig([1: 7, 2: 7])
        // Row 1 near (memory), row 2 beyond the memory budget (store), in one update
        rig.send(requests: [request(1, Self.near), request(2, Self.far, .store)])
        #expect(rig.interest(7) == Interest(priority: Self.near, toMemory: true))
        // When the memory holder leaves, the store holder is what is left
        rig.send(withdrawals: [1])
        #expect(rig.interest(7) == Interest(priority: Self.far, toMemory: false))
        // A store holder does not demote a memory holder sent earlier
        rig.send(requests: [request(1, Self.near)])
        #expect(rig.interest(7) == Interest(priority: Self.near, toMemory: true))
        rig.send(requests: [request(2, Self.visible, .store)])
        #expect(rig.interest(7) == Interest(priority: Self.visible, toMemory: true))
        // The memory holder moving to the store leaves the id in the store only
        rig.send(requests: [request(1, Self.near, .store)])
        #expect(rig.interest(7) == Interest(priority: Self.visible, toMemory: false))
        rig.fetcher.shutdown()
    }

    @Test func anUpdateWhoseFirstRequestGoesToTheStoreSendsItToTheStore() throws {
        let rig = try Rig([1: 7, 2: 8])
        rig.send(requests: [request(1, Self.far, .store)])
        #expect(rig.interest(7) == Interest(priority: Self.far, toMemory: false))
        rig.send(requests: [request(2, Self.far, .store), request(1, FetchPriority(level: .background), .store)])
        #expect(rig.interest(8) == Interest(priority: Self.far, toMemory: false))
        #expect(rig.interest(7) == Interest(priority: FetchPriority(level: .background), toMemory: false))
        rig.fetcher.shutdown()
    }

    @Test func renamesAndRemovalsOfItemsThatShareAnIdKeepTheMostUrgentHolder() throws {
        let rig = try Rig([1: 7, 2: 7, 3: 8])
        rig.send(requests: [request(1, Self.visible), request(3, Self.near), request(2, Self.far, .store)])
        #expect(rig.interest(7) == Interest(priority: Self.visible, toMemory: true))
        // Rows 1 and 2 swap: each keeps its own priority and destination under its new name
        rig.rows.ids = [1: 7, 2: 7, 3: 8]
        rig.send(moved: [PrefetchMove(from: 1, to: 2), PrefetchMove(from: 2, to: 1)])
        #expect(rig.interest(7) == Interest(priority: Self.visible, toMemory: true))
        // Row 2 (the visible one now) is deleted: the id falls to row 1's far store request
        rig.send(removed: [2])
        #expect(rig.interest(7) == Interest(priority: Self.far, toMemory: false))
        #expect(rig.interest(8) == Interest(priority: Self.near, toMemory: true))
        // Row 1 takes id 8 by a request (its data changed): 7 loses its last holder
        rig.rows.ids = [1: 8, 3: 8]
        rig.send(requests: [request(1, Self.visible)])
        #expect(rig.interest(7) == nil)
        #expect(rig.interest(8) == Interest(priority: Self.visible, toMemory: true))
        // Row 3 is renamed onto row 1, displacing it: 8 keeps only row 3's (now row 1's) priority
        rig.send(moved: [PrefetchMove(from: 3, to: 1)])
        #expect(rig.interest(8) == Interest(priority: Self.near, toMemory: true))
        #expect(rig.target.requestedCount == 1)
        // A removal and a rename in one update: the holder renamed in is the one that counts
        rig.rows.ids = [1: 8, 4: 8]
        rig.send(requests: [request(4, Self.far)])
        rig.send(moved: [PrefetchMove(from: 4, to: 5)], removed: [1])
        #expect(rig.interest(8) == Interest(priority: Self.far, toMemory: true))
        #expect(rig.target.requestedCount == 1)
        rig.fetcher.shutdown()
    }

    @Test func theIdIsWithdrawnOnlyWithItsLastHolder() async throws {
        let rig = try Rig([1: 7, 2: 7, 3: 7])
        rig.send(requests: [request(1, Self.visible), request(2, Self.near), request(3, Self.far)])
        await rig.loader.waitForCalls(1)
        #expect(rig.loader.calledIDs == [7])
        rig.send(withdrawals: [1, 2])
        #expect(rig.interest(7)?.priority == Self.far)
        #expect(rig.loader.cancelledIDs.isEmpty)
        // The last holder goes: no interest is left and the load is cancelled
        rig.send(withdrawals: [3])
        #expect(rig.interest(7) == nil)
        #expect(rig.target.requestedCount == 0 && rig.target.requestedIDs.isEmpty)
        await rig.loader.waitForCancellations(1)
        #expect(rig.loader.cancelledIDs == [7])
        rig.fetcher.shutdown()
    }

    /// Random updates over 16 rows showing 5 ids (removals, renames that displace, withdrawals,
    /// requests, data changes) against a model: after each, every id's interest is its holders'
    /// most urgent priority, to memory if any holder wants memory, and none without holders.
    /// `rows` without repeats, in their order (a `Set`'s order changes from run to run).
    func distinct(_ rows: [Int]) -> [Int] {
        var seen: Set<Int> = []
        return rows.filter { seen.insert($0).inserted }
    }

    @Test(arguments: 0..<4) func randomUpdatesKeepEveryIdAtItsHoldersMostUrgentPriority(seed: Int) throws {
        var draw = Draw(rng: SplitMix64(seed: 0x5A4ED &+ UInt64(seed)))
        let rig = try Rig(Dictionary(uniqueKeysWithValues: (0..<16).map { ($0, $0 % 5) }))
        var model: [Int: (id: Int, priority: FetchPriority, toMemory: Bool)] = [:]
        for step in 0..<300 {
            for _ in 0..<draw.below(3) { rig.rows.ids[draw.below(16)] = draw.chance(15) ? nil : draw.below(5) }
            let removed = (0..<draw.below(2)).map { _ in draw.below(16) }
            var moved: [PrefetchMove<Int>] = []
            if draw.chance(30) {
                let sources = distinct((0..<(1 + draw.below(3))).map { _ in draw.below(16) })
                let targets = distinct((0..<sources.count).map { _ in draw.below(16) })
                moved = zip(sources, targets).map { PrefetchMove(from: $0, to: $1) }
            }
            let withdrawals = (0..<draw.below(3)).map { _ in draw.below(16) }
            let rows = distinct((0..<draw.below(6)).map { _ in draw.below(16) })
            let requests = rows.map { request($0, draw.priority(), draw.chance(40) ? .store : .memory) }
                .sorted { $0.priority > $1.priority }
            rig.send(moved: moved, removed: removed, withdrawals: withdrawals, requests: requests)
            // The model, in the target's order: removals, renames (all sources out first), withdrawals, requests
            for row in removed { model[row] = nil }
            let carried = moved.compactMap { move in model.removeValue(forKey: move.from).map { (move.to, $0) } }
            for (row, hold) in carried { model[row] = hold }
            for row in withdrawals { model[row] = nil }
            for request in requests {
                model[request.item] = rig.rows.ids[request.item].map { ($0, request.priority, request.destination == .memory) }
            }
            for id in 0..<5 {
                let holders = model.values.filter { $0.id == id }
                let expected = holders.map(\.priority).max().map { Interest(priority: $0, toMemory: holders.contains(where: \.toMemory)) }
                #expect(rig.interest(id) == expected, "seed \(seed), step \(step), id \(id)")
            }
            #expect(rig.target.requestedCount == model.count)
        }
        rig.fetcher.shutdown()
    }
}
