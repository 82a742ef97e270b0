import Foundation
import PrefetchSimulation

/// The measurements at the end of a run, as plain mode prints them and `--json` encodes them.
///
/// The figures are a ``PrefetchSimulation/ReadinessMeter``'s, the simulator's meter: appearances
/// on the first screen are not counted, and every counted appearance contributes a wait, 0 when
/// its data was ready.
public struct DemoSummary: Codable, Hashable, Sendable {
    /// Cell appearances after the first screen.
    public var displayed: Int
    /// The share of those appearances whose data was already there, from 0 to 1.
    public var displayReadyRate: Double
    /// The mean time an appearing cell waited for its data, zeros included, in ms.
    public var visibleWaitMeanMs: Double
    /// The 95th percentile of that wait, in ms.
    public var visibleWaitP95Ms: Double
    /// The total time counted cells were on screen without their data, in seconds.
    public var blankCellSeconds: Double
    /// Loads started.
    public var loadsStarted: Int
    /// Loads cancelled because every interest left.
    public var loadsCancelled: Int
    /// Loads completed for items never displayed.
    public var loadsWasted: Int
    /// The most loads in flight at once.
    public var peakInFlight: Int

    // Runs over a real network (`--serve`, `--source`) only; nil otherwise, and then left out
    // of the JSON.

    /// The server's base URL.
    public var source: String?
    /// The disk cache's file.
    public var diskCache: String?
    /// Loads answered by the disk cache instead of the network.
    public var diskHits: Int?
    /// HTTP requests for thumbnails, retries included.
    public var networkLoads: Int?
    /// HTTP requests for pages of the model list, retries included.
    public var pageLoads: Int?
    /// Loads that failed after their retries.
    public var loadsFailed: Int?

    /// The summary of a meter's figures.
    public init(_ r: Readiness) {
        displayed = r.displayed
        displayReadyRate = r.displayReadyRate
        visibleWaitMeanMs = r.visibleWaitMeanMs
        visibleWaitP95Ms = r.visibleWaitP95Ms
        blankCellSeconds = r.blankCellSeconds
        loadsStarted = r.loadsStarted
        loadsCancelled = r.loadsCancelled
        loadsWasted = r.loadsWasted
        peakInFlight = r.peakInFlight
    }

    /// One JSON object, keys sorted; rates and waits rounded to 0.001.
    ///
    /// Exactly the nine keys over the simulated network; six more over a real one: `source`,
    /// `diskCache` (strings), `diskHits`, `networkLoads`, `pageLoads` and `loadsFailed`.
    public var json: String {
        var rounded = self
        rounded.displayReadyRate = (displayReadyRate * 10_000).rounded() / 10_000
        rounded.visibleWaitMeanMs = (visibleWaitMeanMs * 1_000).rounded() / 1_000
        rounded.visibleWaitP95Ms = (visibleWaitP95Ms * 1_000).rounded() / 1_000
        rounded.blankCellSeconds = (blankCellSeconds * 1_000).rounded() / 1_000
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding numbers and strings cannot fail.
        return String(decoding: try! encoder.encode(rounded), as: UTF8.self)
    }

    /// The human summary, one figure per line under `title`.
    public func text(title: String) -> String {
        var text = """
        \(title)
          cells displayed      \(displayed) (after the first screen)
          display-ready rate   \(formatPercent(displayReadyRate))
          visible wait         mean \(formatMs(visibleWaitMeanMs)), p95 \(formatMs(visibleWaitP95Ms))
          blank cell-seconds   \(String(format: "%.2f s", blankCellSeconds))
          loads                started \(loadsStarted), cancelled \(loadsCancelled), wasted \(loadsWasted) (completed, never displayed)
          peak in flight       \(peakInFlight)
        """
        if let diskHits, let networkLoads, let pageLoads, let loadsFailed {
            text += """

              disk cache hits      \(diskHits) (loads answered from disk)
              HTTP requests        \(networkLoads) thumbnails, \(pageLoads) pages; \(loadsFailed) loads failed after retries
            """
        }
        if let source { text += "\n  source               \(source)" }
        if let diskCache { text += "\n  disk cache           \(diskCache)" }
        return text
    }
}

func formatPercent(_ rate: Double) -> String {
    String(format: "%.1f%%", rate * 100)
}

func formatMs(_ ms: Double) -> String {
    String(format: "%.1f ms", ms)
}
