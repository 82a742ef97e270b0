import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchTesting
import Testing

/// `handleMemoryPressure()` on the views (issue #27): the withdrawals reach a classic prefetch
/// data source as cancels and a prioritized one as an update, which is then told what to keep.
@Suite("Memory pressure")
@MainActor
struct MemoryPressureTests {
    /// A prioritized prefetch data source that records what it was told to keep.
    final class TrimmingPrefetcher: CollectionViewDataSourcePrioritizedPrefetching, TableViewDataSourcePrioritizedPrefetching {
        let recording = RecordingPrefetcher()
        var kept: [[IndexPath]] = []
        var expectedLatency: Duration? { nil }
        func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
            recording.target.updatePrefetching(update)
        }
        func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
            recording.target.updatePrefetching(update)
        }
        func trimMemory(keeping indexPaths: [IndexPath]) { kept.append(indexPaths) }
    }

    @Test func aClassicDataSourceHearsTheCancelsAtOnce() throws {
        let (view, _, recorder) = try makeSeedCollectionView()
        view.step(to: 0)
        let pending = view.indexPathsPendingPrefetch
        #expect(!pending.isEmpty)
        recorder.removeAll()
        view.handleMemoryPressure()
        // At rest: only the screen is kept, so every pending prefetch is cancelled, in index path order
        #expect(view.indexPathsPendingPrefetch.isEmpty)
        #expect(recorder.events(.cancelPrefetch).map(\.indexPath) == pending)
        // While the pressure lasts (0.5 s by default) nothing is prefetched; then the window comes back
        view.step(to: 0.4)
        #expect(view.indexPathsPendingPrefetch.isEmpty)
        view.step(to: 0.6)
        #expect(view.indexPathsPendingPrefetch == pending)
    }

    @Test func aPrioritizedDataSourceGetsTheWithdrawalsThenKeepsTheScreen() throws {
        let table = TableView(frame: CGRect(x: 0, y: 0, width: 320, height: 300))
        let source = RowSource()
        let prefetcher = TrimmingPrefetcher()
        table.register(TableViewCell.self, forCellReuseIdentifier: "cell")
        table.dataSource = source
        table.prefetchDataSource = prefetcher
        table.step(to: 0)
        let visible = Set(table.indexPathsForVisibleRows)
        let requested = Set(prefetcher.recording.requested.keys)
        #expect(requested.isStrictSuperset(of: visible))
        table.handleMemoryPressure()
        #expect(Set(prefetcher.recording.requested.keys) == visible)
        #expect(Set(prefetcher.recording.updates.last?.withdrawals ?? []) == requested.subtracting(visible))
        #expect(prefetcher.kept.count == 1 && Set(prefetcher.kept[0]) == visible)
    }

    /// 100 rows of the default height.
    final class RowSource: TableViewDataSource {
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 100 }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
            tableView.dequeueReusableCell(withIdentifier: "cell", for: indexPath)
        }
    }
}
