import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

/// Items inserted above the screen while the user drags (a feed's new posts, a chat's older
/// messages), as a diffable data source applies them: the content size grows (its observer is
/// called with the old offset), then the app moves the offset by the inserted length to keep the
/// user's place (the offset observer), in the same run-loop turn; then the drag goes on.
@MainActor
@Suite("UIKit: inserts above during a drag")
struct InsertAboveTests {
    /// `foldedStep`: the offset that keeps the place comes a frame later with the drag's step in
    /// it (5,020 pt in one callback): 5,000 of it is the insert's, 20 the finger's.
    @Test(arguments: [false, true])
    func insertsAboveKeepTheOnScreenAndLookAheadRowsAndTheFingersSpeed(foldedStep: Bool) {
        let surface = ScriptedSurface(offset: 20_000, viewport: 600, rows: 1_000)
        let clock = FrameClock()
        var inserted = 0
        // Stable ids, as a diffable data source names its items: id = row - rows inserted above
        let lookup = ItemLookup<Int>(item: { path in path[1] - inserted }, indexPath: { id in IndexPath(indexes: [0, id + inserted]) })
        let target = RecordingPrefetchTarget<Int>()
        let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: lookup,
                                              adapter: ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)),
                                              axis: .vertical, now: { clock.now })
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        func step(by delta: Double) {
            clock.now += 1.0 / 60
            surface.reading?.offset += delta
            surface.reading?.isDragging = true
            surface.events?.changed(false)
        }
        // Given a steady drag at 1,200 pt/s (20 pt a frame)
        prefetcher.dragBegan()
        for _ in 0..<30 { step(by: 20) }
        let speed = prefetcher.adapter.lastState?.velocity ?? 0
        #expect(abs(speed - 1_200) < 60)
        let heldBefore = Set(target.requested.keys)
        let updatesBefore = target.updates.count
        // When 50 rows of 100 pt are inserted above, then the offset moves 5,000 pt to keep the place
        inserted = 50
        surface.rowCount += 50
        surface.reading?.contentLength += 5_000
        surface.events?.changed(true)
        var speeds: [Double] = []
        if foldedStep {
            clock.now += 1.0 / 60
            surface.reading?.offset += 5_020
            surface.events?.changed(false)
            speeds.append(prefetcher.adapter.lastState?.velocity ?? 0)
        } else {
            clock.now += 0.000_01
            surface.reading?.offset += 5_000
            surface.events?.changed(false)
        }
        // Then the insert itself withdraws nothing (ids are stable: the rows only moved) and asks
        // for nothing off screen
        let atInsert = target.updates.dropFirst(updatesBefore)
        #expect(atInsert.flatMap(\.withdrawals).isEmpty, "\(atInsert.flatMap(\.withdrawals))")
        #expect(Set(atInsert.flatMap(\.requests).map(\.item)).isSubset(of: Set(200...260)), "\(atInsert.flatMap(\.requests).map(\.item))")
        _ = heldBefore
        // and the drag goes on: every frame after the insert measures the finger's speed, within 5 %,
        // and only rows the drag passed (before id 208, the top of the screen at the end) are withdrawn
        let updatesAtInsert = target.updates.count
        for _ in 0..<10 {
            step(by: 20)
            speeds.append(prefetcher.adapter.lastState?.velocity ?? 0)
        }
        #expect(speeds.allSatisfy { abs($0 - 1_200) <= 60 }, "\(speeds)")
        let withdrawn = Set(target.updates.dropFirst(updatesAtInsert).flatMap(\.withdrawals))
        #expect(withdrawn.allSatisfy { $0 < 208 }, "withdrawn \(withdrawn.sorted())")
        #expect(problems.isEmpty, "\(problems)")
    }
}

@MainActor
@Suite("UIKit: inserts at rest")
struct InsertAtRestTests {
    /// A view resting at row 200 of 1,000 (100 pt rows, 600 pt viewport) whose ids are stable
    /// (id = row − rows inserted above), as a diffable data source names them.
    @MainActor
    final class Rig {
        let surface = ScriptedSurface(offset: 20_000, viewport: 600, rows: 1_000)
        let clock = FrameClock()
        let timer = ManualTimer()
        let target = RecordingPrefetchTarget<Int>()
        var inserted = 0
        var prefetcher: ScrollViewPrefetcher<Int>?

        init() {
            let clock = clock, timer = timer
            let lookup = ItemLookup<Int>(item: { [unowned self] path in path[1] - self.inserted },
                                         indexPath: { [unowned self] id in IndexPath(indexes: [0, id + self.inserted]) })
            let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: lookup,
                                                  adapter: ScrollAdapter(controller: PrefetchController<Int>(policy: PrefetchPolicies.adaptive, target: target)),
                                                  axis: .vertical, now: { clock.now }, schedule: { timer.schedule($0, $1) })
            self.prefetcher = prefetcher
            // At rest, planned.
            surface.events?.changed(false)
            clock.now += 0.5
            surface.events?.changed(false)
            prefetcher.refresh()
        }
    }

    @Test func anInsertAboveWhoseOffsetFollowsIsOneEvent() {
        // Given a resting view with its plan
        let rig = Rig()
        let held = Set(rig.target.requested.keys)
        #expect(held.isSuperset(of: 200...205))
        let before = rig.target.updates.count
        // When 30 rows are inserted above and, in the same turn, the offset moves 3,000 pt to keep the place
        rig.inserted = 30
        rig.surface.rowCount += 30
        rig.surface.reading?.contentLength += 3_000
        rig.surface.events?.changed(true)
        rig.clock.now += 0.000_01
        rig.surface.reading?.offset += 3_000
        rig.surface.events?.changed(false)
        rig.clock.now += 0.02
        rig.timer.fire()
        // Then nothing held is withdrawn and nothing new is asked for: the rows only moved
        let after = rig.target.updates.dropFirst(before)
        #expect(after.flatMap(\.withdrawals).isEmpty, "withdrawn \(after.flatMap(\.withdrawals).sorted())")
        #expect(Set(after.flatMap(\.requests).map(\.item)).isSubset(of: held), "\(after.flatMap(\.requests).map(\.item))")
        #expect(rig.prefetcher?.adapter.lastState?.velocity == 0)
    }

    @Test func contentThatGrowsAtRestWithNoOffsetChangeIsPlannedAMomentLater() {
        // Given a resting view with its plan
        let rig = Rig()
        let before = rig.target.updates.count
        // When 30 rows are inserted above and the app does not keep the place (the offset stays)
        rig.inserted = 30
        rig.surface.rowCount += 30
        rig.surface.reading?.contentLength += 3_000
        rig.surface.events?.changed(true)
        // Then nothing is planned in that turn; a moment later the check plans the new layout:
        // the rows now on screen (ids 170-175) are asked for
        #expect(rig.target.updates.count == before)
        #expect(rig.timer.pending.count == 1)
        rig.clock.now += 0.02
        rig.timer.fire()
        let requested = Set(rig.target.updates.dropFirst(before).flatMap(\.requests).map(\.item))
        #expect(requested.isSuperset(of: 170...175), "\(requested.sorted())")
    }
}
