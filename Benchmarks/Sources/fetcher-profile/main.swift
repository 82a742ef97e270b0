// Runs one benchmark workload many times with no harness around it, for a profiler:
//
//     swift build -c release --product fetcher-profile
//     valgrind --tool=callgrind .build/release/fetcher-profile hit-prefetchkit 100000
//
// Workloads: hit-prefetchkit, hit-seedstyle, cancel-prefetchkit, cancel-seedstyle,
// cancel-reversed-prefetchkit (diagnostic),
// cycle-prefetchkit, cycle-seedstyle, coalesce-prefetchkit, coalesce-seedstyle. The second
// argument is the repetition count.
//
// Frame step (the count is the number of measured frames; `FlingDriver.frame()` is the
// measured part, so count only it with `--toggle-collect='*FlingDriver.frame*'`):
// step-uikit-10m, step-uikit-1k, step-adaptive-10m, step-adaptive-1k, step-noprefetch-10m,
// step-noprefetch-1k. Policies (the count is the number of calls): plan-uikit, plan-texture,
// plan-adaptive. Set SWIFT_DETERMINISTIC_HASHING=1 so that counts repeat exactly.
import Baseline
import Foundation
import PrefetchCollectionView
import PrefetchKit
import Workloads

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: fetcher-profile WORKLOAD COUNT\n".utf8))
    exit(2)
}

func warmPrefetchKit() -> PrefetchKitFetcher {
    let fetcher = makePrefetchKit { DisplayData($0) }
    let loaded = Countdown(1)
    fetcher.fetchAsync(42) { _ in loaded.arrive() }
    loaded.wait()
    return fetcher
}

func warmSeedStyle() -> SeedFetcher {
    let fetcher = makeSeedStyle { id, _ in DisplayData(id) }
    let loaded = Countdown(1)
    fetcher.fetchAsync(42) { _ in loaded.arrive() }
    loaded.wait()
    return fetcher
}

let ids = Array(0..<batch)
let started = ContinuousClock.now
switch arguments[1] {
case "hit-prefetchkit":
    let fetcher = warmPrefetchKit()
    for _ in 0..<count { precondition(fetcher.fetchedData(for: 42) != nil) }
case "hit-seedstyle":
    let fetcher = warmSeedStyle()
    for _ in 0..<count { precondition(fetcher.fetchedData(for: 42) != nil) }
case "cancel-prefetchkit":
    let loader = HangingLoader()
    let fetcher = makePrefetchKit { try await loader.load($0) }
    for _ in 0..<count {
        fetcher.prefetch(ids)
        fetcher.cancelPrefetching(ids)
        loader.waitUntilEmpty()
    }
    let stats = fetcher.statistics
    print("loads started \(stats.loadsStarted), cancelled \(stats.loadsCancelled) for \(count * batch) prefetches")
case "cancel-reversed-prefetchkit":
    // Diagnostic: cancelling the queued ids before the running ones starts no replacement
    // loads, which is what a batched release in the scheduler would do for any order.
    let loader = HangingLoader()
    let fetcher = makePrefetchKit { try await loader.load($0) }
    for _ in 0..<count {
        fetcher.prefetch(ids)
        fetcher.cancelPrefetching(ids.reversed())
        loader.waitUntilEmpty()
    }
    let stats = fetcher.statistics
    print("loads started \(stats.loadsStarted), cancelled \(stats.loadsCancelled) for \(count * batch) prefetches")
case "cancel-seedstyle":
    let fetcher = makeSeedStyle { _, context in
        context.waitUntilCancelled()
        return nil
    }
    for _ in 0..<count {
        for id in ids { fetcher.fetchAsync(id) }
        for id in ids { fetcher.cancelFetch(id) }
        fetcher.waitUntilFetchesEnd()
    }
case "cycle-prefetchkit":
    for _ in 0..<count {
        let fetcher = makePrefetchKit { DisplayData($0) }
        let answered = Countdown(batch)
        for id in ids { fetcher.fetchAsync(id) { _ in answered.arrive() } }
        answered.wait()
    }
case "cycle-seedstyle":
    for _ in 0..<count {
        let fetcher = makeSeedStyle { id, _ in DisplayData(id) }
        let answered = Countdown(batch)
        for id in ids { fetcher.fetchAsync(id) { _ in answered.arrive() } }
        answered.wait()
        fetcher.waitUntilFetchesEnd()
    }
case "coalesce-prefetchkit":
    for _ in 0..<count {
        let gate = AsyncGate()
        let fetcher = makePrefetchKit { id in
            await gate.wait()
            return DisplayData(id)
        }
        let answered = Countdown(coalescedRequests)
        for i in 0..<coalescedRequests { fetcher.fetchAsync(i % coalescedIDs) { _ in answered.arrive() } }
        gate.open()
        answered.wait()
    }
case "coalesce-seedstyle":
    for _ in 0..<count {
        let gate = BlockingGate()
        let fetcher = makeSeedStyle { id, _ in
            gate.wait()
            return DisplayData(id)
        }
        let answered = Countdown(coalescedRequests)
        for i in 0..<coalescedRequests { fetcher.fetchAsync(i % coalescedIDs) { _ in answered.arrive() } }
        gate.open()
        answered.wait()
        fetcher.waitUntilFetchesEnd()
    }
case "step-uikit-10m", "step-uikit-1k", "step-adaptive-10m", "step-adaptive-1k",
     "step-noprefetch-10m", "step-noprefetch-1k":
    let parts = arguments[1].split(separator: "-")
    let items = parts[2] == "10m" ? largeGrid : smallGrid
    let policy: any PrefetchPolicy = parts[1] == "adaptive" ? PrefetchPolicies.adaptive : PrefetchPolicies.uikitLike
    let prefetching = parts[1] != "noprefetch"
    MainActor.assumeIsolated {
        let driver = FlingDriver(items: items, policy: policy, prefetching: prefetching)
        for _ in 0..<count {
            driver.prepareFrame()
            driver.frame()
        }
        print("\(driver.frames) frames, \(driver.jumps) jumps; offset \(driver.view.contentOffset.y), \(driver.view.indexPathsPendingPrefetch.count) pending prefetch")
    }
case "plan-uikit", "plan-texture", "plan-adaptive":
    let policy: any PrefetchPolicy = switch arguments[1] {
    case "plan-uikit": PrefetchPolicies.uikitLike
    case "plan-texture": PrefetchPolicies.textureLike
    default: PrefetchPolicies.adaptive
    }
    var regions = 0
    for _ in 0..<count { regions &+= policy.plan(for: flingContext).regions.count }
    print("\(regions) regions")
default:
    FileHandle.standardError.write(Data("unknown workload \(arguments[1])\n".utf8))
    exit(2)
}
print("\(arguments[1]) x\(count): \(ContinuousClock.now - started)")
