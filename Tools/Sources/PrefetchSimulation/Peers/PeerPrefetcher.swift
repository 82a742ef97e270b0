import Foundation
import PrefetchCollectionView
import PrefetchKit

/// A peer's prefetcher: the view's classic prefetch data source (UIKit's two callbacks) for a
/// peer run, loading what enters the peer's window the way the peer does.
///
/// Items are queued in the order the view names them (nearest first) and started first in,
/// first out while fewer than the cap run; a started prefetch is a consumer of the fetcher at
/// the peer's priority, and holds its place under the cap until its load ends (as a task of
/// Nuke's or SDWebImage's prefetcher does, even when a visible cell joined its load). It is
/// never re-ranked. An item leaving the window leaves the queue and cancels its running
/// prefetch only when the peer cancels (`Loading.cancels`). Items already cached are skipped.
@MainActor
final class PeerPrefetcher<ID: Hashable & Sendable, Value: Sendable>: CollectionViewDataSourcePrefetching, TableViewDataSourcePrefetching {
    /// A queued prefetch.
    private struct Waiting {
        var item: Int
        var id: ID
        var batch: Int
    }

    /// A started prefetch.
    private struct Running {
        var token: Int
        var batch: Int
        var handle: FetchHandle?
    }

    /// How the peer loads.
    let loading: PeerModel.Loading
    private let fetcher: AsyncFetcher<ID, Value>
    private let deliveries: MainActorDeliveries<ID>
    private let identifier: (Int) -> ID?
    private var queue: [Waiting] = []
    private var running: [Int: Running] = [:]
    private var runningPerBatch: [Int: Int] = [:]
    private var nextToken = 0
    private var nextBatch = 0
    /// The most prefetches that ran at once (per call for a per-call cap).
    private(set) var peakRunning = 0

    /// A prefetcher loading with `fetcher`, whose completions go through `deliveries`.
    init(loading: PeerModel.Loading, fetcher: AsyncFetcher<ID, Value>, deliveries: MainActorDeliveries<ID>, identifier: @escaping (Int) -> ID?) {
        self.loading = loading
        self.fetcher = fetcher
        self.deliveries = deliveries
        self.identifier = identifier
    }

    /// Queues the items (nearest first) and starts what the cap allows.
    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        prefetch(indexPaths.map(\.item))
    }

    /// Withdraws the items when the peer cancels.
    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        cancel(indexPaths.map(\.item))
    }

    /// Queues the rows (nearest first) and starts what the cap allows.
    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) {
        prefetch(indexPaths.map(\.item))
    }

    /// Withdraws the rows when the peer cancels.
    func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {
        cancel(indexPaths.map(\.item))
    }

    /// Queues `items` as one call's batch, skipping those queued, running or cached, then starts what it can.
    func prefetch(_ items: [Int]) {
        let batch = nextBatch
        nextBatch += 1
        var queued = Set(queue.map(\.item))
        for item in items where running[item] == nil && !queued.contains(item) {
            guard let id = identifier(item), fetcher.fetchedData(for: id) == nil else { continue }
            queue.append(Waiting(item: item, id: id, batch: batch))
            queued.insert(item)
        }
        pump()
    }

    /// Takes `items` out of the queue and cancels their running prefetches, when the peer cancels.
    func cancel(_ items: [Int]) {
        guard loading.cancels, !items.isEmpty else { return }
        let leaving = Set(items)
        queue.removeAll { leaving.contains($0.item) }
        for item in items.sorted() {
            guard let entry = running.removeValue(forKey: item) else { continue }
            release(entry.batch)
            entry.handle?.cancel()
        }
        pump()
    }

    /// Cancels every prefetch: the end of a run.
    func stop() {
        queue.removeAll()
        let entries = running.sorted { $0.key < $1.key }.map(\.value)
        running.removeAll()
        runningPerBatch.removeAll()
        for entry in entries { entry.handle?.cancel() }
    }

    /// Starts queued prefetches, first in first out, while the cap allows.
    private func pump() {
        var index = 0
        while index < queue.count {
            let waiting = queue[index]
            if let cap = loading.cap {
                let count = loading.scope == .shared ? running.count : runningPerBatch[waiting.batch, default: 0]
                if count >= cap {
                    // A shared cap is full for everyone; a per-call cap only for this call's items.
                    if loading.scope == .shared { return }
                    index += 1
                    continue
                }
            }
            queue.remove(at: index)
            start(waiting)
        }
    }

    /// Starts one prefetch: a consumer of the fetcher at the peer's priority.
    private func start(_ waiting: Waiting) {
        guard fetcher.fetchedData(for: waiting.id) == nil else { return }
        let token = nextToken
        nextToken += 1
        let item = waiting.item
        running[item] = Running(token: token, batch: waiting.batch, handle: nil)
        runningPerBatch[waiting.batch, default: 0] += 1
        peakRunning = max(peakRunning, loading.scope == .shared ? running.count : runningPerBatch[waiting.batch, default: 0])
        let handle = fetcher.fetchAsync(waiting.id, priority: loading.priority, completion: deliveries.completion(for: waiting.id) { [weak self] _ in
            self?.finished(item, token: token)
        })
        if let handle {
            running[item]?.handle = handle
        } else if running[item]?.token == token {
            // Answered at once (cached meanwhile) or refused: nothing runs.
            running[item] = nil
            release(waiting.batch)
        }
    }

    /// A prefetch's load ended (or was cancelled): its place under the cap goes to the next.
    private func finished(_ item: Int, token: Int) {
        guard let entry = running[item], entry.token == token else { return }
        running[item] = nil
        release(entry.batch)
        pump()
    }

    private func release(_ batch: Int) {
        let left = runningPerBatch[batch, default: 1] - 1
        runningPerBatch[batch] = left > 0 ? left : nil
    }
}
