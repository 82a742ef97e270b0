import Benchmark
import PrefetchKit

// The per-frame cost of the `PrefetchTarget` an `AsyncFetcher` makes
// (`fetcher.prefetchTarget(identifier:)`): one `updatePrefetching(_:)` of a fling's frame.
//
// The window is 60 rows, nearest first, and slides 2 rows per frame: each update withdraws the
// 2 rows that left it and requests all 60 rows again, each at its new rank
// (`FetchPriority(level: .prefetch, order: rank)`), so every row still held is re-ranked. Rows
// map to ids as `row / rowsPerId`: with 1 row per id every id has one holder; with 4, every id
// has four, and its interest is the most urgent of theirs.
//
// The fetcher is shut down before the target is made, so no load ever starts and the fetcher's
// part of a frame is one lock that rejects the requests: what is measured is the target's own
// work (its per-item and per-id records, and building the one batch it sends). The updates are
// built before `startMeasurement()` and released after `stopMeasurement()`; the fetcher and its
// target live across iterations (made once, in `setup`), as a view's do across frames.

/// The rows a frame requests.
private let windowRows = 60
/// The rows that leave the window (and enter it ahead) each frame.
private let slideRows = 2

/// A fling over a shut-down fetcher's target: the target, and the window it was last sent.
final class TargetFling {
    let fetcher: AsyncFetcher<Int, Int>
    let target: any PrefetchTarget<Int>
    /// The first row of the window the target holds now.
    private var start = 0

    init(rowsPerId: Int) {
        do {
            fetcher = try AsyncFetcher<Int, Int> { $0 }
        } catch {
            fatalError("benchmark fetcher configuration rejected: \(error)")
        }
        fetcher.shutdown()
        target = fetcher.prefetchTarget { (row: Int) -> Int? in row / rowsPerId }
        // The first frame: the whole window, unmeasured.
        target.updatePrefetching(PrefetchUpdate(requests: Self.requests(from: 0)))
    }

    /// The next frame's update: the window moves `slideRows` rows on.
    func nextUpdate() -> PrefetchUpdate<Int> {
        let left = Array(start..<(start + slideRows))
        start += slideRows
        return PrefetchUpdate(withdrawals: left, requests: Self.requests(from: start))
    }

    /// The window's rows from `start`, nearest first, each at its rank.
    private static func requests(from start: Int) -> [PrefetchRequest<Int>] {
        (0..<windowRows).map { rank in
            PrefetchRequest(item: start + rank, priority: FetchPriority(level: .prefetch, order: Double(rank)))
        }
    }
}

/// Registers the prefetch-target benchmarks; called from `benchmarks` in FetcherBenchmarks.swift.
func prefetchTargetBenchmarks() {
    let perFrame = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 240, scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 20_000)

    for rowsPerId in [1, 4] {
        let name = "prefetch target frame, \(windowRows) rows re-ranked, \(rowsPerId) row\(rowsPerId == 1 ? "" : "s") per id"
        Benchmark(name, configuration: perFrame) { (benchmark, fling: TargetFling) in
            let update = fling.nextUpdate()
            benchmark.startMeasurement()
            fling.target.updatePrefetching(update)
            benchmark.stopMeasurement()
            blackHole(update)
        } setup: {
            TargetFling(rowsPerId: rowsPerId)
        }
    }
}
