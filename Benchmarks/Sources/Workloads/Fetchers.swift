import Baseline
import PrefetchKit

/// PrefetchKit's fetcher as the benchmarks use it.
public typealias PrefetchKitFetcher = AsyncFetcher<Int, DisplayData>
/// The seed-style baseline as the benchmarks use it.
public typealias SeedFetcher = SeedStyleFetcher<Int, DisplayData>

/// The number of ids a prefetch-and-cancel or load-cycle iteration works on.
public let batch = 1_000
/// Coalescing: requests per iteration.
public let coalescedRequests = 10_000
/// Coalescing: the ids the requests share.
public let coalescedIDs = 100
/// The cap on concurrent loads, for both fetchers (PrefetchKit's default).
public let loadCap = 6

/// A PrefetchKit fetcher with the shared cap and a cache that holds a whole batch.
public func makePrefetchKit(_ load: @escaping @Sendable (Int) async throws -> DisplayData) -> PrefetchKitFetcher {
    var configuration = FetcherConfiguration()
    configuration.maxConcurrentLoads = loadCap
    configuration.cacheCountLimit = max(batch, coalescedIDs)
    do {
        return try AsyncFetcher(configuration: configuration, load: load)
    } catch {
        fatalError("benchmark fetcher configuration rejected: \(error)")
    }
}

/// A seed-style fetcher with the shared cap.
public func makeSeedStyle(_ load: @escaping SeedFetcher.Load) -> SeedFetcher {
    SeedStyleFetcher(maxConcurrentFetches: loadCap, load: load)
}
