/// A named network: the latency distributions `prefetch-bench --latency-profile` offers.
///
/// | profile | log-normal median | p99 | failed attempts |
/// |---|---|---|---|
/// | `wifi` | 40 ms | 400 ms | none |
/// | `lte` (the default) | 150 ms | 1.5 s | none |
/// | `emerging` | 400 ms | 4 s | 2 %, retried by the fetcher's `RetryPolicy` |
///
/// ```swift
/// var configuration = SimulationConfiguration()
/// configuration.latency = try LatencyProfile.named("emerging").model
/// ```
public enum LatencyProfile: String, Sendable, Hashable, CaseIterable {
    /// A home or office network.
    case wifi
    /// A good mobile network: today's default (``LatencyModel/mobile``).
    case lte
    /// A congested or distant mobile network, where some attempts fail.
    case emerging

    /// The profile's latency model.
    public var model: LatencyModel {
        switch self {
        case .wifi: try! LatencyModel.logNormal(median: 0.040, p99: 0.4)
        case .lte: LatencyModel.mobile
        case .emerging: try! LatencyModel.logNormal(median: 0.400, p99: 4, failureRate: 0.02)
        }
    }

    /// The profile with this name.
    /// - Throws: ``SimulationError`` naming the unknown value and the known names.
    public static func named(_ name: String) throws -> LatencyProfile {
        guard let profile = LatencyProfile(rawValue: name) else {
            throw SimulationError("latency profile '\(name)' is unknown; use one of \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return profile
    }
}
