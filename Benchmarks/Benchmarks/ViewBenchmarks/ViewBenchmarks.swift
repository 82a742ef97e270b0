import Benchmark
import Dispatch
import Foundation
import PrefetchCollectionView
import PrefetchKit
import Workloads

// The collection view's frame step during a fling, and the prefetch policies' planning.
//
// Frame step: each iteration is one frame. `FlingDriver.prepareFrame()` (re-fling, or jump back
// to the band's start) runs before `startMeasurement()`; only `FlingDriver.frame()`, one
// `step(to:)`, is measured. The 10,000,000- and 1,000-item grids run the same sequence of
// offsets (see `FlingDriver`), so they differ only in item count.
//
// The view is @MainActor. package-benchmark calls a synchronous closure on its runner's
// thread, which is not the main thread (the runner is an async `main`), so `onMainActor` hops
// with `DispatchQueue.main.sync` (the main thread drains the main queue) and asserts the
// isolation there. The hop happens outside the measured span.

let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

/// Runs `body` on the main actor, synchronously.
func onMainActor(_ body: @MainActor () -> Void) {
    if Thread.isMainThread {
        MainActor.assumeIsolated(body)
    } else {
        DispatchQueue.main.sync { MainActor.assumeIsolated(body) }
    }
}

/// The frame-step drivers, by benchmark name; made at the first (warm-up) iteration.
@MainActor var drivers: [String: FlingDriver] = [:]

let benchmarks: @Sendable () -> Void = {
    let perFrame = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 240, scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 20_000)
    let perCall = Benchmark.Configuration(
        metrics: metrics, scalingFactor: .mega, maxDuration: .seconds(3), maxIterations: 1_000)

    // MARK: One step(to:) of a 10,000 pt/s fling, 10,000,000 items against 1,000.

    let variants: [(label: String, policy: any PrefetchPolicy, prefetching: Bool)] = [
        ("uikitLike", PrefetchPolicies.uikitLike, true),
        ("adaptive", PrefetchPolicies.adaptive, true),
        ("no prefetch data source", PrefetchPolicies.uikitLike, false),
    ]
    for variant in variants {
        for items in [largeGrid, smallGrid] {
            let name = "frame step \(variant.label) \(items == largeGrid ? "10M" : "1K")"
            let policy = variant.policy
            let prefetching = variant.prefetching
            Benchmark(name, configuration: perFrame) { benchmark in
                nonisolated(unsafe) let benchmark = benchmark
                onMainActor {
                    let driver: FlingDriver
                    if let existing = drivers[name] {
                        driver = existing
                    } else {
                        driver = FlingDriver(items: items, policy: policy, prefetching: prefetching)
                        drivers[name] = driver
                    }
                    driver.prepareFrame()
                    benchmark.startMeasurement()
                    driver.frame()
                    benchmark.stopMeasurement()
                }
            } teardown: {
                await MainActor.run { drivers[name] = nil }
            }
        }
    }

    // MARK: plan(for:) of each policy, on the context of the fling; a million calls per sample.

    // The view keeps its policy as `any PrefetchPolicy`: call through the existential, as it does.
    let policies: [(label: String, policy: any PrefetchPolicy)] = [
        ("uikitLike", PrefetchPolicies.uikitLike),
        ("textureLike", PrefetchPolicies.textureLike),
        ("Adaptive.standard", PrefetchPolicies.adaptive),
    ]
    for entry in policies {
        let policy = entry.policy
        Benchmark("plan(for:) \(entry.label)", configuration: perCall) { benchmark in
            let policy = identity(policy)
            let context = identity(flingContext)
            for _ in benchmark.scaledIterations {
                blackHole(policy.plan(for: context))
            }
        }
    }
}
