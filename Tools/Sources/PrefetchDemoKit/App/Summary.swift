import Foundation
import PrefetchSimulation
import PrefetchToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    package var bytesReceived: Int
    /// Seconds since the run started.
    package var seconds: Double
    /// The server's shared bandwidth (`--server-bandwidth`), when given.
    package var budget: BandwidthRate?

    /// Figures of `bytesReceived` over `seconds`, with the server's `budget` when given.
    package init(bytesReceived: Int, seconds: Double, budget: BandwidthRate?) {
        (self.bytesReceived, self.seconds, self.budget) = (bytesReceived, seconds, budget)
    }

    /// Bytes per second received over the budget (0 to about 1), when there is a budget.
    package var utilisation: Double? {
        budget.map { seconds > 0 ? Double(bytesReceived) / seconds / Double($0.bytesPerSecond) : 0 }
    }

    /// `1.23 MB received, link 87.0% of 1 Mbit/s`.
    var text: String { phrases.joined(separator: ", ") }

    /// `1.23 MB received` and `link 87.0% of 1 Mbit/s`: the status line's phrases.
    package var phrases: [String] {
        let received = "\(formatBytes(bytesReceived)) received"
        guard let budget, let utilisation else { return [received] }
        return [received, "link \(formatPercent(utilisation)) of \(budget)"]
    }
}

/// What the memory figures count: the fetcher's cost of each value.
package enum MemoryCost: Sendable, Equatable {
    /// Each value costs a modelled decoded size (the simulated network, or a memory budget):
    /// the figures are a model, not the process's memory.
    case modelled(bytesPerValue: Int)
    /// Each value costs its bytes as received plus 64 (a server without a memory budget).
    case payload

    /// `1 MiB`, `64 KiB`, `512 B`.
    static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) B"
    }
}

/// The largest resident set this process has had, in bytes (`getrusage`), or nil when unknown.
package func processPeakResidentBytes() -> Int? {
    var usage = rusage()
    #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    let who = RUSAGE_SELF
    #endif
    guard getrusage(who, &usage) == 0, usage.ru_maxrss > 0 else { return nil }
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)          // bytes on Darwin
    #else
    return Int(usage.ru_maxrss) * 1_024  // kilobytes on Linux
    #endif
}

/// The end of a run as the demo prints it: the simulator's ``PrefetchSimulation/SimulationResult``
/// (the same figures `prefetch-bench` reports, from the same meter), with a server's figures
/// when the data came from one.
package struct DemoSummary {
    package var result: SimulationResult
    package var network: NetworkFigures?
    /// What the memory figures count.
    package var memoryCost: MemoryCost = .modelled(bytesPerValue: 1 << 20)
    /// The process's peak resident set in bytes, to set beside the memory figure (nil in a
    /// repeatable run, whose summary must not vary).
    package var processPeakBytes: Int?
    /// Whether the run prefetched as in Low Data Mode (`--low-data`): the summary says what it saves.
    package var lowData = false
    /// With previews: where they came from and the link, e.g. `prefix(15 %) on a shared 10 Mbit/s
    /// link, 60 KB median payloads`; the summary then counts the cells that appeared with a preview only.
    package var previews: String?

    /// The summary of `result`, with a server's `network` figures when the data came from one.
    package init(result: SimulationResult, network: NetworkFigures? = nil) {
        (self.result, self.network) = (result, network)
    }

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
          peak memory held     \(memoryText)
        """
        if lowData {
            text += """

              low data             prefetches only where a fling rests, or the next screen at rest; every cell that
                                   scrolls in still loads at visible priority, so it saves the loads that would be
                                   wasted (\(r.loadsWasted) wasted here) more than loads started: compare with a run without --low-data
            """
        }
        if let previews, let previewReady = r.previewReadyRate {
            text += "\n" + Self.previewLines(previews, result: r, previewReady: previewReady).joined(separator: "\n")
        }
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

extension DemoSummary {
    /// The summary's lines about previews: how the cells appeared (full, a preview only, blank),
    /// counted from the result's two rates, each a count over the appearances.
    static func previewLines(_ previews: String, result r: SimulationResult, previewReady: Double) -> [String] {
        let shown = Double(r.displayed)
        let full = Int((r.displayReadyRate * shown).rounded()), any = Int((previewReady * shown).rounded())
        let previewOnly = max(0, any - full), blank = max(0, r.displayed - any)
        func share(_ count: Int) -> String { formatPercent(r.displayed == 0 ? 0 : Double(count) / shown) }
        return [
            "  previews             \(previews)",
            "  appeared full        \(full) (\(share(full)))",
            "  preview only         \(previewOnly) (\(share(previewOnly))): a preview on screen, the full value still on its way",
            "  blank                \(blank) (\(share(blank))): nothing yet",
        ]
    }

    /// The peak memory held, and what it counts: `230.0 MiB modelled: 230 values × 1 MiB each
    /// (a decoded 512 × 512 RGBA bitmap), cache and loads in flight; a model, not the process's
    /// memory (its peak RSS: 35.8 MiB)`.
    var memoryText: String {
        let peak = result.peakMemoryBytes
        let held = String(format: "%.1f MiB", Double(peak) / 1_048_576)
        let rss = processPeakBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) }
        switch memoryCost {
        case .modelled(let bytes):
            let values = bytes > 0 ? peak / bytes : 0
            let bitmap = bytes == 1 << 20 ? " (a decoded 512 × 512 RGBA bitmap)" : ""
            return "\(held) modelled: \(values) values × \(MemoryCost.describe(bytes: bytes)) each\(bitmap),\n"
                + "                       cache and loads in flight; a model, not the process's memory"
                + (rss.map { " (its peak RSS: \($0))" } ?? "")
        case .payload:
            return "\(held) of thumbnails as received (+64 B each), cache and loads in flight"
                + (rss.map { ";\n                       the process's peak RSS: \($0)" } ?? "")
        }
    }
}

/// `mem 12.0 MiB (peak 30.0)`, with ` modelled` when each value's cost is a model: the memory
/// the fetcher holds now and at most so far.
func formatMemory(_ s: StatusFigures) -> String {
    String(format: "mem %.1f MiB%@ (peak %.1f)", Double(s.memoryHeld) / 1_048_576, s.memoryModelled ? " modelled" : "",
           Double(s.peakMemoryHeld) / 1_048_576)
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
