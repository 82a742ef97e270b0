import Foundation
import PrefetchSimulation

/// A run over a server's figures beside the meter's: the source, the disk cache, the requests.
package struct NetworkFigures: Codable, Hashable, Sendable {
    /// The server's base URL.
    var source: String
    /// The disk cache's file.
    var diskCache: String
    /// Loads answered by the disk cache instead of the network.
    var diskHits: Int
    /// HTTP requests for thumbnails, retries included.
    var networkLoads: Int
    /// HTTP requests for pages of the model list, retries included.
    var pageLoads: Int
    /// Loads that failed after their retries.
    var loadsFailed: Int
}

/// The end of a run as the demo prints it: the simulator's ``PrefetchSimulation/SimulationResult``
/// (the same figures `prefetch-bench` reports, from the same meter), with a server's figures
/// when the data came from one.
package struct DemoSummary {
    package var result: SimulationResult
    package var network: NetworkFigures?

    /// One JSON object, keys sorted; rates rounded to 0.0001, times to 0.001.
    ///
    /// The keys of `prefetch-bench`'s results; over a real network six more: `source`,
    /// `diskCache` (strings), `diskHits`, `networkLoads`, `pageLoads` and `loadsFailed`.
    package var json: String {
        get throws { try result.roundedJSON(adding: network) }
    }

    /// The human summary, one figure per line under `title`.
    package func text(title: String) -> String {
        let r = result
        var text = """
        \(title)
          cells displayed      \(r.displayed) (after the first screen)
          display-ready rate   \(formatPercent(r.displayReadyRate))
          visible wait         mean \(formatMs(r.visibleWaitMeanMs)), p95 \(formatMs(r.visibleWaitP95Ms))
          blank cell-seconds   \(String(format: "%.2f s", r.blankCellSeconds))
          loads                started \(r.loadsStarted), cancelled \(r.loadsCancelled), wasted \(r.loadsWasted) (completed, never displayed)
          peak in flight       \(r.peakInFlight)
        """
        if let network {
            text += """

              disk cache hits      \(network.diskHits) (loads answered from disk)
              HTTP requests        \(network.networkLoads) thumbnails, \(network.pageLoads) pages; \(network.loadsFailed) loads failed after retries
              source               \(network.source)
              disk cache           \(network.diskCache)
            """
        }
        return text
    }
}

func formatPercent(_ rate: Double) -> String {
    String(format: "%.1f%%", rate * 100)
}

func formatMs(_ ms: Double) -> String {
    String(format: "%.1f ms", ms)
}
