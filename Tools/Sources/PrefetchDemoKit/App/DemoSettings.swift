import Foundation
import PrefetchKit
import PrefetchSimulation

/// The two screens of the sample app.
public enum DemoLayout: String, CaseIterable, Sendable {
    /// The collection view of Apple's sample: a two-column grid of coloured cells.
    case grid
    /// The tutorial's table view: a title and a thumbnail per row, at most 4 loads at once.
    case list
}

/// Everything that decides what a run does, checked.
public struct DemoSettings: Sendable {
    /// Grid or list.
    public var layout: DemoLayout = .grid
    /// Whether the view prefetches (`isPrefetchingEnabled`).
    public var prefetching = true
    /// The prefetch policy, one of `PrefetchPolicies.all`.
    public var policy: any PrefetchPolicy = PrefetchPolicies.uikitLike
    /// The simulated network's latency.
    public var latency: LatencyModel = try! .fixed(0.3)
    /// Seeds the identifiers and the latency draws.
    public var seed: UInt64 = 1
    /// The number of items: the 1,000 of Apple's sample.
    public var itemCount = 1_000

    /// Creates the defaults: grid, uikitLike, prefetching on, 300 ms fixed latency, seed 1.
    public init() {}

    /// The most loads at once: the fetcher's default 6 for the grid, the tutorial's 4 for the list.
    public var maxConcurrentLoads: Int { layout == .list ? 4 : 6 }

    /// The visible area in points: the collection view of Apple's sample, or a phone-sized table
    /// view.
    public var viewport: Viewport { layout == .grid ? .seedGrid : .phoneList }

    /// The scrolled content: the storyboard grid of Apple's sample (two columns of 150×100 items,
    /// 10 points apart and from the edges), or the tutorial's 66-point rows.
    public var scenarioLayout: ScenarioLayout {
        layout == .grid ? .seedSample(itemCount: itemCount) : .list(itemCount: itemCount)
    }

    /// The fetcher's settings over the simulated network: the layout's cap, a cache for every item, no retries.
    public var fetcherConfiguration: FetcherConfiguration {
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = maxConcurrentLoads
        configuration.cacheCountLimit = max(itemCount, 1)
        return configuration
    }

    /// The simulator's scenario of `script` in these settings: the same view, items and gestures.
    public func scenario(_ script: Script) -> Scenario {
        Scenario(name: script.rawValue, layout: scenarioLayout, viewport: viewport, motion: .gestures(script.gestures), payloadBytes: 0)
    }

    /// The simulator's configuration matching these settings, so a scenario run by `prefetch-bench`
    /// measures what the demo measures.
    public var simulationConfiguration: SimulationConfiguration {
        var configuration = SimulationConfiguration()
        configuration.latency = latency
        configuration.seed = seed
        configuration.maxConcurrentLoads = maxConcurrentLoads
        configuration.cacheCountLimit = max(itemCount, 1)
        configuration.retry = .none
        return configuration
    }
}
