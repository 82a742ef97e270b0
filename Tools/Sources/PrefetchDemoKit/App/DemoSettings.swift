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
    package var policy: any PrefetchPolicy = PrefetchPolicies.adaptive
    /// The app binding that drives the prefetching (`--toolkit`).
    package var toolkit = Toolkit.uikit
    /// The simulated network's latency: a fixed 300 ms, or with previews the lte profile's
    /// (``latency(previews:)``), unless the flags say otherwise.
    package var latency = DemoSettings.latency(previews: false)
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
    /// Where items' previews come from (`--previews`); `.none` (the default) keeps Apple's
    /// sample's network: independent latencies, no payload.
    package var previews = PreviewSource.none
    /// How the app's controller allots bytes between previews and full values, with previews.
    package var previewPlan = PreviewPlan.standard
    /// Slots beyond the cap that only previews take (`--preview-slots`; `FetcherConfiguration`'s default).
    package var previewSlots = FetcherConfiguration().previewSlots
    /// With previews, the latency profile whose link capacity the loads share (`--latency-profile`, lte by default).
    package var linkProfile = LatencyProfile.lte

    /// Creates the defaults: grid, adaptive (the glue's default), prefetching on, 300 ms fixed latency, seed 1, interactive,
    /// no previews.
    package init() {}

    /// The simulated network's latency when no flag sets it: Apple's sample's fixed 300 ms, or with
    /// previews the lte profile's (log-normal, median 150 ms, p99 1.5 s), `prefetch-bench`'s default.
    package static func latency(previews: Bool) -> LatencyModel {
        previews ? LatencyProfile.lte.model : try! LatencyModel(.fixed(.milliseconds(300)))
    }

    /// With previews, the shared link the loads move their payloads through: the capacity of
    /// ``linkProfile`` (lte: 10 Mbit/s), HTTP/2, payloads log-normal with a median of 60 KB and
    /// a 99th percentile of 600 KB (`prefetch-bench`'s defaults); `nil` without previews.
    package var previewLink: SharedLink? {
        previews.isEnabled ? SharedLink(linkProfile) : nil
    }

    /// `prefix(15 %) on a shared 10 Mbit/s link, 60 KB median payloads, 6 preview slots`, or nil without previews.
    package var previewsText: String? {
        previewLink.map { "\(previews) on a \(Self.describe($0)), \(previewSlots) preview slots" }
    }

    /// `shared 10 Mbit/s link, 60 KB median payloads`, or without `sizes` `10 Mbit/s link`: the
    /// link in a few words.
    package static func describe(_ link: SharedLink, sizes: Bool = true) -> String {
        let mbps = link.capacityBytesPerSecond * 8 / 1e6
        let rate = mbps == mbps.rounded() ? String(Int(mbps)) : String(format: "%.1f", mbps)
        let sizes = if sizes, case .logNormal(let median, _) = link.sizes { ", \(median / 1_000) KB median payloads" } else { "" }
        return sizes.isEmpty ? "\(rate) Mbit/s link" : "shared \(rate) Mbit/s link\(sizes)"
    }

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
    /// With previews, loads share ``previewLink`` instead, each moving its payload's bytes, so a
    /// preview (a share of them) arrives before the full value.
    package var simulationConfiguration: SimulationConfiguration {
        var configuration = SimulationConfiguration()
        configuration.network = previewLink.map { .shared($0) } ?? .independent
        configuration.previews = previews
        configuration.previewPlan = previewPlan
        configuration.previewSlots = previewSlots
        configuration.latency = latency
        configuration.seed = seed
        configuration.maxConcurrentLoads = maxConcurrentLoads
        configuration.cacheCountLimit = max(itemCount, 1)
        configuration.retry = .none
        if let duration { configuration.maxDuration = duration }
        configuration.conditions = conditions
        configuration.memoryBudgetBytes = memoryBudgetBytes
        configuration.valueBytes = valueBytes
        configuration.toolkit = toolkit
        return configuration
    }
}
