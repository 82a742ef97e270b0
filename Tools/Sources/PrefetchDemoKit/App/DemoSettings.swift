import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchSimulation
import PrefetchTesting

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
    package var layout: DemoLayout = .grid
    /// Whether the view prefetches (`isPrefetchingEnabled`).
    package var prefetching = true
    /// The prefetch policy, one of `PrefetchPolicies.all`.
    package var policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard
    /// The simulated network's latency.
    package var latency = try! LatencyModel(.fixed(.milliseconds(300)))
    /// Seeds the identifiers and the latency draws.
    package var seed: UInt64 = 1
    /// The number of items: the 1,000 of Apple's sample.
    package var itemCount = 1_000
    /// The scroll scenario played without input (nil: interactive).
    package var script: Script?
    /// The longest the run lasts, in seconds (simulated over the simulated network).
    package var duration: Double?
    /// Low Data Mode (`--low-data`): the view's controller prefetches only what it expects to show.
    package var lowData = false
    /// The fetcher's memory budget in bytes (`--memory-budget-mb`); `nil` for none.
    package var memoryBudgetBytes: Int?
    /// The decoded size of each value, its memory cost: 1 MiB, a 512 × 512 RGBA bitmap.
    package var valueBytes = 1 << 20

    /// Creates the defaults: grid, adaptive (the glue's default), prefetching on, 300 ms fixed latency, seed 1, interactive.
    package init() {}

    /// The network's conditions the view prefetches under: Low Data Mode with `--low-data`.
    package var conditions: NetworkConditions { NetworkConditions(isConstrained: lowData) }

    /// The most loads at once: the fetcher's default 6 for the grid, the tutorial's 4 for the list.
    package var maxConcurrentLoads: Int { layout == .list ? 4 : 6 }

    /// The visible area in points: the collection view of Apple's sample, or a phone-sized table
    /// view.
    package var viewport: Viewport { layout == .grid ? .seedGrid : .phoneList }

    /// The scrolled content: the storyboard grid of Apple's sample (two columns of 150×100 items,
    /// 10 points apart and from the edges), or the tutorial's 66-point rows (at least one item).
    package var scenarioLayout: ScenarioLayout {
        layout == .grid ? .seedSample(itemCount: max(itemCount, 1)) : .list(itemCount: max(itemCount, 1))
    }

    /// The run's scenario: `script`'s gestures in these settings' view and items (none for an
    /// interactive session, whose keys move the view).
    package var scenario: Scenario {
        Scenario(name: script?.rawValue ?? "interactive", layout: scenarioLayout, viewport: viewport,
                 gestures: script?.gestures ?? [], payloadBytes: 0)
    }

    /// The simulator's configuration of these settings: the layout's cap, a cache for every
    /// item, no retries, the run's `duration` (10 minutes when not given), the conditions, the
    /// memory budget and the values' decoded size. Loads have independent latencies, as in
    /// Apple's sample (a delay per item, no payload): `--serve` puts a real link under the demo.
    package var simulationConfiguration: SimulationConfiguration {
        var configuration = SimulationConfiguration()
        configuration.network = .independent
        configuration.latency = latency
        configuration.seed = seed
        configuration.maxConcurrentLoads = maxConcurrentLoads
        configuration.cacheCountLimit = max(itemCount, 1)
        configuration.retry = .none
        if let duration { configuration.maxDuration = duration }
        configuration.conditions = conditions
        configuration.memoryBudgetBytes = memoryBudgetBytes
        configuration.valueBytes = valueBytes
        return configuration
    }
}
