import Foundation
import PrefetchKit
import Testing
@testable import PrefetchUIKit

// PrefetchDataSourceTarget calls the app's UICollectionViewDataSourcePrefetching the way UIKit
// does: prefetchItemsAt once per item that enters the window, cancelPrefetchingForItemsAt at
// the index path the item has now, nothing for deleted items or after reloadData().

@MainActor
@Suite("PrefetchDataSourceTarget")
struct DataSourceTargetTests {
    /// The app's prefetching data source: what it was called with, in order.
    @MainActor private final class AppPrefetching {
        var calls: [String] = []
        var bridge: PrefetchingBridge {
            PrefetchingBridge(prefetch: { [unowned self] in calls.append("prefetch \($0.map { $0[1] })") },
                              cancelPrefetching: { [unowned self] in calls.append("cancel \($0.map { $0[1] })") })
        }
    }

    private func path(_ row: Int) -> IndexPath { IndexPath(indexes: [0, row]) }

    @Test func aReprioritisationCallsNothingAndWithdrawalsCancelWhereTheItemIsNow() {
        let app = AppPrefetching()
        let target = PrefetchDataSourceTarget<IndexPath>(bridge: app.bridge, lookup: .indexPaths)
        target.updatePrefetching(PrefetchUpdate(requests: [PrefetchRequest(item: path(3), priority: .visible),
                                                           PrefetchRequest(item: path(4), priority: .prefetch)]))
        // The same items, other priorities, plus one: only the new one is asked for
        target.updatePrefetching(PrefetchUpdate(requests: [PrefetchRequest(item: path(4), priority: .visible),
                                                           PrefetchRequest(item: path(3), priority: .prefetch),
                                                           PrefetchRequest(item: path(5), priority: .prefetch)]))
        target.updatePrefetching(PrefetchUpdate(withdrawals: [path(3), path(9)]))
        #expect(app.calls == ["prefetch [3, 4]", "prefetch [5]", "cancel [3]"])
    }

    @Test func deletedItemsGetNoCallbackAndMovedItemsKeepTheirRequest() {
        // Rows 3, 4, 5 requested; a batch update deletes row 3, so 4 and 5 become 3 and 4
        let app = AppPrefetching()
        let target = PrefetchDataSourceTarget<IndexPath>(bridge: app.bridge, lookup: .indexPaths)
        target.updatePrefetching(PrefetchUpdate(requests: [3, 4, 5].map { PrefetchRequest(item: path($0), priority: .prefetch) }))
        target.updatePrefetching(PrefetchUpdate(moved: [PrefetchMove(from: path(4), to: path(3)), PrefetchMove(from: path(5), to: path(4))],
                                                removed: [path(3)],
                                                requests: [3, 4, 5].map { PrefetchRequest(item: path($0), priority: .prefetch) }))
        // Row 3 (the old 4) and row 4 (the old 5) are already asked for; only the new row 5 is
        #expect(app.calls == ["prefetch [3, 4, 5]", "prefetch [5]"])
        // Withdrawing the old 5, now row 4, cancels row 4
        target.updatePrefetching(PrefetchUpdate(withdrawals: [path(4)]))
        #expect(app.calls.last == "cancel [4]")
    }

    @Test func itemsWithoutAnIndexPathAreSkipped() {
        let app = AppPrefetching()
        let ids = ["a", "b", "c"]
        let target = PrefetchDataSourceTarget<String>(bridge: app.bridge, lookup: ItemLookup(identifiers: ids))
        target.updatePrefetching(PrefetchUpdate(requests: ["c", "gone", "a"].map { PrefetchRequest(item: $0, priority: .prefetch) }))
        #expect(app.calls == ["prefetch [2, 0]"])
        // A later request for "gone" is still nothing; withdrawing it calls nothing
        target.updatePrefetching(PrefetchUpdate(withdrawals: ["gone"]))
        #expect(app.calls.count == 1)
    }

    @Test func aControllerDrivesItThroughABatchUpdate() {
        // The full path: a controller planning index paths, a batch update that inserts two rows above
        let app = AppPrefetching()
        let target = PrefetchDataSourceTarget<IndexPath>(bridge: app.bridge, lookup: .indexPaths)
        let controller = PrefetchController<IndexPath>(policy: PrefetchPolicies.adaptive, target: target)
        var rows = UniformRowsGeometry(items: (0..<100).map(path), rowLength: 100)
        controller.update(ScrollState(seconds: 1, viewport: 0..<600, contentLength: rows.contentLength), geometry: rows)
        let first = app.calls
        #expect(first.first?.hasPrefix("prefetch [0, 1, 2") == true)
        controller.moveItems { IndexPath(indexes: [0, $0[1] + 2]) }
        rows = UniformRowsGeometry(items: (0..<102).map(path), rowLength: 100)
        controller.update(ScrollState(seconds: 1.1, viewport: 0..<600, contentLength: rows.contentLength), geometry: rows)
        // Rows 0 and 1 are new; nothing planned before is asked for twice
        let asked = app.calls.filter { $0.hasPrefix("prefetch") }
        #expect(asked.count == 2)
        #expect(asked.last?.contains("0") == true)
    }
}
