import Foundation

/// Per-policy totals over a set of results: the numbers the suite's goals are stated in.
public enum SuiteSummary {
    /// One policy's totals.
    public struct Row: Sendable, Hashable {
        /// The policy.
        public var policy: String
        /// The mean of the scenarios' display-ready rates, from 0 to 1.
        public var meanDisplayReadyRate: Double
        /// The mean visible wait over every appearance in every scenario, in ms.
        public var visibleWaitMeanMs: Double
        /// Wasted loads over all scenarios.
        public var loadsWasted: Int
        /// Loads started over all scenarios.
        public var loadsStarted: Int
    }

    /// The totals, one row per policy in first-seen order.
    public static func rows(_ results: [SimulationResult]) -> [Row] {
        var policies: [String] = []
        for r in results where !policies.contains(r.policy) { policies.append(r.policy) }
        return policies.map { policy in
            let group = results.filter { $0.policy == policy }
            let displayed = group.map(\.displayed).reduce(0, +)
            let waitSum = group.map { $0.visibleWaitMeanMs * Double($0.displayed) }.reduce(0, +)
            return Row(
                policy: policy,
                meanDisplayReadyRate: group.map(\.displayReadyRate).reduce(0, +) / Double(max(group.count, 1)),
                visibleWaitMeanMs: displayed == 0 ? 0 : waitSum / Double(displayed),
                loadsWasted: group.map(\.loadsWasted).reduce(0, +),
                loadsStarted: group.map(\.loadsStarted).reduce(0, +))
        }
    }

    /// The totals as text.
    public static func render(_ results: [SimulationResult]) -> String {
        var lines = ["suite totals: policy, mean ready %, mean visible wait ms, wasted loads, loads started"]
        for row in rows(results) {
            let name = row.policy.padding(toLength: max(12, row.policy.count), withPad: " ", startingAt: 0)
            lines.append("  " + name + String(format: " %6.1f %8.1f %7d %7d",
                                row.meanDisplayReadyRate * 100, row.visibleWaitMeanMs, row.loadsWasted, row.loadsStarted))
        }
        return lines.joined(separator: "\n")
    }
}
