import Foundation
import Testing
@testable import PrefetchKit

/// The withdrawal grace (`LeavingItems`), at the edge `Fuzz/Sources/FuzzScrollAdapter` found: a
/// grace too small to change the frame's time (a `withdrawalGrace` of 7.3e-304 typical latencies).
@Suite struct LeavingItemsTests {
    private func entry(_ item: Int) -> HeldEntry {
        HeldEntry(extent: Double(item) * 88..<Double(item + 1) * 88, rank: Rank(priority: .prefetch), sequence: UInt64(item))
    }

    @Test func anItemThatLeftThisFrameIsNotWithdrawnInTheUpdateThatKeepsIt() {
        var leaving = LeavingItems<Int>()
        let grace = 7.3e-304 * 1.16
        // Item 30 left at 1 s; items 37-39 leave at 2 s, when 30's grace is long over
        var first = Changes<Int>(moved: [], removed: [])
        leaving.retire(30, entry(30), at: 1, &first)
        leaving.expire(now: 1, grace: grace, &first)
        #expect(first.withdrawals.isEmpty)
        var second = Changes<Int>(moved: [], removed: [])
        for item in 37...39 { leaving.retire(item, entry(item), at: 2, &second) }
        leaving.expire(now: 2, grace: grace, &second)
        // Then 30 is withdrawn, and 37-39, requested at background in this update, are kept:
        // no update both requests an item and withdraws it
        #expect(second.withdrawals == [30])
        #expect(Set(second.requestItems) == [37, 38, 39])
        #expect(Set(leaving.items.keys) == [37, 38, 39])
        // and they go at the next frame, the grace having passed
        var third = Changes<Int>(moved: [], removed: [])
        leaving.expire(now: 2 + 1.0 / 60, grace: grace, &third)
        #expect(third.withdrawals.sorted() == [37, 38, 39])
        #expect(leaving.items.isEmpty)
    }
}
