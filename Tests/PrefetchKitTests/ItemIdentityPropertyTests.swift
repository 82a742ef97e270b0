import Foundation
import PrefetchTesting
import Testing
@testable import PrefetchKit

/// Item identity across batch updates: a controller that plans for rows (index paths by number)
/// over a fetcher whose ids are model ids. Whatever interleaving of batch updates (inserts,
/// deletes, moves), reloads, data changes and frames, after each frame the fetcher's prefetch
/// interests are exactly the controller's plan mapped to the ids the rows show now; after
/// `withdrawAll()` there are none. The model is the list of ids itself, changed as an app's data
/// changes; the fetcher's interests are read off its scheduler.
@Suite struct ItemIdentityPropertyTests {
    /// The app's data: the model id each row shows.
    private final class Rows {
        var ids: [Int]
        var nextID: Int
        init(count: Int) {
            ids = Array(0..<count)
            nextID = count
        }
        func id(at row: Int) -> Int? { ids.indices.contains(row) ? ids[row] : nil }
    }

    private struct Rig {
        let rows: Rows
        let fetcher: AsyncFetcher<Int, Int>
        let controller: PrefetchController<Int>

        init(count: Int) throws {
            let rows = Rows(count: count)
            self.rows = rows
            fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(),
                                                 loader: ScriptedLoader<Int, Int>())
            controller = PrefetchController<Int>(policy: PrefetchPolicies.adaptive,
                                                 target: fetcher.prefetchTarget { row in rows.id(at: row) })
        }

        var geometry: UniformRowsGeometry<Int> { UniformRowsGeometry(items: Array(rows.ids.indices), rowLength: 100) }

        func frame(_ time: Double, at offset: Double, velocity: Double = 0) {
            let length = geometry.contentLength
            let start = min(max(0, offset), max(0, length - 600))
            let phase: MotionPhase = velocity == 0 ? .idle : .dragging
            controller.update(ScrollState(seconds: time, viewport: start..<(start + 600), contentLength: length,
                                          velocity: velocity, phase: phase), geometry: geometry)
        }

        /// The ids the fetcher holds a prefetch interest in, among every id ever shown.
        var prefetchedIDs: Set<Int> {
            fetcher.state.withLock { machine in
                Set((0..<rows.nextID).filter { machine.scheduler.isPrefetched($0) })
            }
        }

        /// The controller's plan, mapped to the ids the rows show now.
        var plannedIDs: Set<Int> { Set(controller.requestedItems.compactMap { rows.id(at: $0.item) }) }

        // Batch updates, as UIKit applies them: the data changes and the controller hears the renames.

        func insert(_ count: Int, at row: Int) {
            let new = (0..<count).map { _ in defer { rows.nextID += 1 }; return rows.nextID }
            rows.ids.insert(contentsOf: new, at: row)
            controller.moveItems { $0 >= row ? $0 + count : $0 }
        }

        func delete(_ count: Int, at row: Int) {
            let end = min(rows.ids.count, row + count)
            rows.ids.removeSubrange(row..<end)
            controller.moveItems { $0 < row ? $0 : ($0 < end ? nil : $0 - (end - row)) }
        }

        func move(from source: Int, to destination: Int) {
            rows.ids.insert(rows.ids.remove(at: source), at: destination)
            controller.moveItems { row in
                if row == source { return destination }
                if source < destination, row > source, row <= destination { return row - 1 }
                if destination < source, row >= destination, row < source { return row + 1 }
                return row
            }
        }

        func reload() {
            // Every row shows other data now (new ids, as after a refresh)
            rows.ids = rows.ids.map { _ in defer { rows.nextID += 1 }; return rows.nextID }
            controller.invalidateItems()
        }
    }

    @Test func twoBatchUpdatesBetweenFramesCompose() throws {
        // Rows 0–5 and some ahead planned; two pages arrive above before the next frame
        let rig = try Rig(count: 60)
        rig.frame(1, at: 0)
        #expect(!rig.plannedIDs.isEmpty)
        rig.insert(2, at: 0)
        rig.insert(2, at: 0)
        rig.frame(1.1, at: 400)
        #expect(rig.prefetchedIDs == rig.plannedIDs)
        rig.controller.withdrawAll()
        #expect(rig.prefetchedIDs.isEmpty, "withdrawAll leaves no interest behind")
        rig.fetcher.shutdown()
    }

    @Test func aBatchUpdateThenAReloadBeforeTheNextFrame() throws {
        // Rows from 0 on are planned; row 1 is deleted, then everything reloads, and the next
        // frame is far down (a jump), so nothing planned before is asked for again
        let rig = try Rig(count: 200)
        rig.frame(1, at: 0)
        rig.delete(1, at: 1)
        rig.reload()
        rig.frame(1.1, at: 10_000)
        #expect(rig.prefetchedIDs == rig.plannedIDs)
        rig.controller.withdrawAll()
        #expect(rig.prefetchedIDs.isEmpty)
        rig.fetcher.shutdown()
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomInterleavingsKeepTheFetcherEqualToThePlan(seed: UInt64) throws {
        try runInterleavings(seed: 0xB47C4 &+ seed, gates: false)
    }

    /// The same interleavings with the planner's gate closing and opening among them: Low Data
    /// Mode switched on and off, and memory-pressure signals. While the gate is closed the fetcher
    /// holds part of the plan and nothing outside it; on the first frame after it opens, the plan
    /// again. A batch update queued when the gate closes is applied to what the target holds once.
    @Test(arguments: [1, 2, 3, 4])
    func randomInterleavingsThroughAClosingGateKeepTheFetcherWithinThePlan(seed: UInt64) throws {
        try runInterleavings(seed: 0x6A7E &+ seed, gates: true)
    }

    private func runInterleavings(seed: UInt64, gates: Bool) throws {
        var draw = Draw(rng: SplitMix64(seed: seed))
        let rig = try Rig(count: 40 + draw.below(40))
        var time = 1.0
        var offset = 0.0
        // Until when (frame time) a memory-pressure signal keeps the gate closed, and whether Low Data Mode is on.
        var pressureUntil = -Double.infinity
        var constrained = false
        for step in 0..<1_500 {
            let count = rig.rows.ids.count
            switch draw.below(gates ? 106 : 100) {
            case 0..<35:
                time += 0.016 * Double(1 + draw.below(4))
                let velocity = draw.chance(50) ? 0 : Double(draw.below(6_000) - 3_000)
                offset = draw.chance(10) ? Double(draw.below(max(1, count)) * 100) : offset + velocity * 0.016
                rig.frame(time, at: offset, velocity: velocity)
                let planned = rig.plannedIDs
                if constrained || time < pressureUntil {
                    #expect(rig.prefetchedIDs.isSubset(of: planned), "seed \(seed) step \(step): the fetcher holds what the plan does not")
                } else {
                    #expect(rig.prefetchedIDs == planned, "seed \(seed) step \(step): the fetcher holds what the plan does not, or misses some")
                }
            case 35..<50:
                rig.insert(1 + draw.below(4), at: draw.below(count + 1))
            case 50..<62 where count > 8:
                rig.delete(1 + draw.below(3), at: draw.below(count - 4))
            case 62..<76 where count > 1:
                rig.move(from: draw.below(count), to: draw.below(count))
            case 76..<82:
                rig.reload()
            case 82..<90:
                rig.controller.invalidateLayout()
            case 90..<93:
                rig.controller.withdrawAll()
                #expect(rig.prefetchedIDs.isEmpty, "seed \(seed) step \(step): withdrawAll left interests behind")
            case 100..<103:
                constrained.toggle()
                rig.controller.networkConditions = constrained ? .constrained : .normal
            case 103..<106:
                // The signal lasts 0.5 s of frame time from the last frame (from the next one before any)
                rig.controller.handleMemoryPressure()
                pressureUntil = time + 0.5 + 0.064
                #expect(rig.prefetchedIDs.isSubset(of: rig.plannedIDs), "seed \(seed) step \(step): memory pressure left interests outside the plan")
            default:
                break
            }
        }
        rig.controller.withdrawAll()
        #expect(rig.prefetchedIDs.isEmpty)
        rig.fetcher.shutdown()
    }
}
