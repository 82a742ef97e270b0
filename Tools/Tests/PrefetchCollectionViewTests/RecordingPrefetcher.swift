import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchTesting

/// A prioritized prefetch data source that records every update and keeps what is requested,
/// as a fetcher would.
@MainActor
final class RecordingPrefetcher: CollectionViewDataSourcePrioritizedPrefetching, TableViewDataSourcePrioritizedPrefetching {
    let target = RecordingPrefetchTarget<IndexPath>()
    var expectedLatency: Duration?

    func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        target.updatePrefetching(update)
    }

    func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        target.updatePrefetching(update)
    }

    var updates: [PrefetchUpdate<IndexPath>] { target.updates }
    var requested: [IndexPath: FetchPriority] { target.requested }
}
