import Foundation

/// Formats results as a plain-text table: one row per scenario and policy.
enum ResultTable {
    /// The table, with a header line and aligned columns. With previews, `ready%` counts cells
    /// that appeared with their full data and `preview%` those that showed at least a preview,
    /// and `blank s` is the time cells showed nothing. On a shared link `bound s` follows it: the
    /// lower bound on blank time no policy can beat (`BlankTimeBound`).
    static func render(_ results: [SimulationResult]) -> String {
        let previews = results.contains { $0.previewReadyRate != nil }
        var header = ["scenario", "policy", "ready%", "wait ms", "p95 ms", "blank s", "settle ms", "settle p95", "started", "cancel", "wasted", "at end", "wasted MB", "wire MB", "link%", "unseen", "peak", "mem MiB", "req/s", "frame µs"]
        // The lower bound on blank time, beside it: only when a run has one (a shared link).
        let bounds = results.contains { $0.blankLowerBound != nil }
        if bounds { header.insert("bound s", at: 6) }
        if previews { header.insert("preview%", at: 3) }
        var rows = [header]
        for r in results {
            var row = [
                r.scenario, r.policy,
                String(format: "%.1f", r.displayReadyRate * 100),
                String(format: "%.0f", r.visibleWaitMeanMs),
                String(format: "%.0f", r.visibleWaitP95Ms),
                String(format: "%.1f", r.blankCellSeconds),
                String(format: "%.0f", r.settleMeanMs),
                String(format: "%.0f", r.settleP95Ms),
                "\(r.loadsStarted)", "\(r.loadsCancelled)", "\(r.loadsWasted)", "\(r.loadsWastedAtEnd)",
                String(format: "%.1f", Double(r.bytesWasted) / 1e6),
                String(format: "%.1f", Double(r.bytesOnWire) / 1e6),
                String(format: "%.0f", r.linkUtilisation * 100),
                "\(r.loadsNeverShown)",
                "\(r.peakInFlight)",
                String(format: "%.0f", Double(r.peakMemoryBytes) / 1_048_576),
                String(format: "%.1f", r.requestsPerSecond),
                String(format: "%.0f", r.frameTime.meanMicroseconds),
            ]
            if bounds { row.insert(r.blankLowerBound.map { String(format: "%.1f", $0) } ?? "-", at: 6) }
            if previews { row.insert(String(format: "%.1f", (r.previewReadyRate ?? r.displayReadyRate) * 100), at: 3) }
            rows.append(row)
        }
        return aligned(rows, leftColumns: 2)
    }

    /// `rows` as lines of columns two spaces apart: the first `leftColumns` columns padded on
    /// the right, the others on the left (numbers line up).
    static func aligned(_ rows: [[String]], leftColumns: Int) -> String {
        let widths = (rows.first ?? []).indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column < leftColumns ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
