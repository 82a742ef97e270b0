import Foundation
import PrefetchSimulation
import PrefetchToolSupport

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
    /// Body bytes received over HTTP, thumbnails and pages, cancelled transfers included.
    var bytesReceived = 0
    /// `--server-bandwidth` in bytes per second, when given.
    var serverBandwidth: Int?

    /// `4.56 MB (thumbnails and pages)`, and `, 87.0% of the server's 1 Mbit/s` with a bandwidth
    /// (the result's `linkUtilisation`: bytes on the wire per second over it).
    func bytesText(linkUtilisation: Double) -> String {
        let bytes = "\(formatBytes(bytesReceived)) (thumbnails and pages)"
        guard let rate = serverBandwidth.flatMap({ try? BandwidthRate(bytesPerSecond: $0) }) else { return bytes }
        return "\(bytes), \(formatPercent(linkUtilisation)) of the server's \(rate)"
    }
}

/// Bytes on the wire over a server, and the share of the server's bandwidth they used.
package struct WireFigures: Sendable, Equatable {
    /// Body bytes received so far.
    var bytesReceived: Int
    /// Seconds since the run started.
    var seconds: Double
    /// The server's shared bandwidth (`--server-bandwidth`), when given.
    var budget: BandwidthRate?

    /// Bytes per second received over the budget (0 to about 1), when there is a budget.
    var utilisation: Double? {
        budget.map { seconds > 0 ? Double(bytesReceived) / seconds / Double($0.bytesPerSecond) : 0 }
    }

    /// `1.23 MB received, link 87.0% of 1 Mbit/s`.
    var text: String {
        let received = "\(formatBytes(bytesReceived)) received"
        guard let budget, let utilisation else { return received }
        return "\(received), link \(formatPercent(utilisation)) of \(budget)"
    }
}

/// The end of a run as the demo prints it: the simulator's ``PrefetchSimulation/SimulationResult``
/// (the same figures `prefetch-bench` reports, from the same meter), with a server's figures
/// when the data came from one.
package struct DemoSummary {
    package var result: SimulationResult
    package var network: NetworkFigures?

    /// One JSON object, keys sorted; rates rounded to 0.0001, times to 0.001.
    ///
    /// The keys of `prefetch-bench`'s results; over a real network more: `source`, `diskCache`
    /// (strings), `diskHits`, `networkLoads`, `pageLoads`, `loadsFailed`, `bytesReceived`, and with
    /// `--server-bandwidth` `serverBandwidth` (bytes per second); the bench's `bytesOnWire` and
    /// `linkUtilisation` are the server's bytes and their share of that bandwidth.
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
          peak memory held     \(String(format: "%.1f MiB", Double(r.peakMemoryBytes) / 1_048_576)) (cache and loads in flight)
        """
        if let network {
            text += """

              disk cache hits      \(network.diskHits) (loads answered from disk)
              HTTP requests        \(network.networkLoads) thumbnails, \(network.pageLoads) pages; \(network.loadsFailed) loads failed after retries
              bytes received       \(network.bytesText(linkUtilisation: r.linkUtilisation))
              source               \(network.source)
              disk cache           \(network.diskCache)
            """
        }
        return text
    }
}

/// `mem 12.0 MiB (peak 30.0)`: the memory the fetcher holds now and at most so far.
func formatMemory(_ s: StatusFigures) -> String {
    String(format: "mem %.1f MiB (peak %.1f)", Double(s.memoryHeld) / 1_048_576, Double(s.peakMemoryHeld) / 1_048_576)
}

func formatPercent(_ rate: Double) -> String {
    String(format: "%.1f%%", rate * 100)
}

func formatMs(_ ms: Double) -> String {
    String(format: "%.1f ms", ms)
}

/// `950 B`, `12.3 KB`, `4.56 MB` (powers of 1,000, as link rates are).
func formatBytes(_ bytes: Int) -> String {
    if bytes < 1_000 { return "\(bytes) B" }
    if bytes < 1_000_000 { return String(format: "%.1f KB", Double(bytes) / 1e3) }
    return String(format: "%.2f MB", Double(bytes) / 1e6)
}
