import Baseline
import Benchmark
import PrefetchKit
import Workloads

// Each workload runs twice in the same run: on PrefetchKit's `AsyncFetcher` and on
// `SeedStyleFetcher`, the baseline built the way the `AsyncFetcher` of Apple's sample is built.
// Both use a cap of 6 concurrent loads (PrefetchKit's default) and the same `DisplayData` value.
//
// Every closure is synchronous: it runs on the runner's thread, off the cooperative pool, and
// blocks on a `Countdown` where it must wait for answers. Per-iteration set-up (a new fetcher,
// a new gate) and tear-down (waiting for cancelled loads to leave) sit outside
// `startMeasurement()` / `stopMeasurement()`.

let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
    let perCall = Benchmark.Configuration(
        metrics: metrics, scalingFactor: .mega, maxDuration: .seconds(4), maxIterations: 1_000)
    let perBatch = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 3, scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 2_000)

    // MARK: fetchedData(for:) hit: cache warm, one id, a million calls per sample.

    Benchmark("hit fetchedData(for:) PrefetchKit", configuration: perCall) { (benchmark, fetcher: PrefetchKitFetcher) in
        for _ in benchmark.scaledIterations {
            blackHole(fetcher.fetchedData(for: 42))
        }
    } setup: {
        let fetcher = makePrefetchKit { DisplayData($0) }
        _ = try await fetcher.value(for: 42)
        precondition(fetcher.fetchedData(for: 42) != nil, "PrefetchKit cache is not warm")
        return fetcher
    }

    Benchmark("hit fetchedData(for:) SeedStyle", configuration: perCall) { (benchmark, fetcher: SeedFetcher) in
        for _ in benchmark.scaledIterations {
            blackHole(fetcher.fetchedData(for: 42))
        }
    } setup: {
        let fetcher = makeSeedStyle { id, _ in DisplayData(id) }
        let loaded = Countdown(1)
        fetcher.fetchAsync(42) { _ in loaded.arrive() }
        loaded.wait()
        precondition(fetcher.fetchedData(for: 42) != nil, "SeedStyle cache is not warm")
        return fetcher
    }

    // MARK: Prefetch 1,000 ids, then cancel them all; loads never complete on their own.

    Benchmark("prefetch+cancel 1000 PrefetchKit", configuration: perBatch) { (benchmark, context: (PrefetchKitFetcher, HangingLoader)) in
        let (fetcher, loader) = context
        let ids = Array(0..<batch)
        benchmark.startMeasurement()
        fetcher.prefetch(ids)
        fetcher.cancelPrefetching(ids)
        benchmark.stopMeasurement()
        loader.waitUntilEmpty()
        precondition(fetcher.statistics.inFlight == 0 && fetcher.statistics.queued == 0, "loads left behind")
    } setup: {
        let loader = HangingLoader()
        return (makePrefetchKit { try await loader.load($0) }, loader)
    }

    Benchmark("prefetch+cancel 1000 SeedStyle", configuration: perBatch) { (benchmark, fetcher: SeedFetcher) in
        let ids = Array(0..<batch)
        benchmark.startMeasurement()
        for id in ids { fetcher.fetchAsync(id) }
        for id in ids { fetcher.cancelFetch(id) }
        // The sample's calls only enqueue; the work is done when the serial queue is idle.
        fetcher.waitUntilIdle()
        benchmark.stopMeasurement()
        fetcher.waitUntilFetchesEnd()
    } setup: {
        makeSeedStyle { _, context in
            context.waitUntilCancelled()
            return nil
        }
    }

    // MARK: 10,000 requests over 100 ids, coalesced behind loads held at a gate.

    Benchmark("coalesced 10000 over 100 ids PrefetchKit", configuration: perBatch) { benchmark in
        let gate = AsyncGate()
        let fetcher = makePrefetchKit { id in
            await gate.wait()
            return DisplayData(id)
        }
        let answered = Countdown(coalescedRequests)
        benchmark.startMeasurement()
        for i in 0..<coalescedRequests {
            fetcher.fetchAsync(i % coalescedIDs) { _ in answered.arrive() }
        }
        gate.open()
        answered.wait()
        benchmark.stopMeasurement()
        blackHole(fetcher)
    }

    Benchmark("coalesced 10000 over 100 ids SeedStyle", configuration: perBatch) { benchmark in
        let gate = BlockingGate()
        let fetcher = makeSeedStyle { id, _ in
            gate.wait()
            return DisplayData(id)
        }
        let answered = Countdown(coalescedRequests)
        benchmark.startMeasurement()
        for i in 0..<coalescedRequests {
            fetcher.fetchAsync(i % coalescedIDs) { _ in answered.arrive() }
        }
        gate.open()
        answered.wait()
        benchmark.stopMeasurement()
        fetcher.waitUntilFetchesEnd()
    }

    // MARK: Full cycle, instant loader: request, load, deliver, cache; 1,000 distinct ids.

    Benchmark("load cycle 1000 ids PrefetchKit", configuration: perBatch) { benchmark in
        let fetcher = makePrefetchKit { DisplayData($0) }
        let answered = Countdown(batch)
        benchmark.startMeasurement()
        for id in 0..<batch {
            fetcher.fetchAsync(id) { _ in answered.arrive() }
        }
        answered.wait()
        benchmark.stopMeasurement()
        precondition(fetcher.cachedCount == batch, "PrefetchKit cached \(fetcher.cachedCount) of \(batch)")
    }

    Benchmark("load cycle 1000 ids SeedStyle", configuration: perBatch) { benchmark in
        let fetcher = makeSeedStyle { id, _ in DisplayData(id) }
        let answered = Countdown(batch)
        benchmark.startMeasurement()
        for id in 0..<batch {
            fetcher.fetchAsync(id) { _ in answered.arrive() }
        }
        answered.wait()
        benchmark.stopMeasurement()
        fetcher.waitUntilFetchesEnd()
        precondition(fetcher.fetchedData(for: batch - 1) != nil, "SeedStyle did not cache")
    }

    // MARK: One frame of the fetcher's prefetch target (PrefetchTargetBenchmarks.swift).

    prefetchTargetBenchmarks()
}
