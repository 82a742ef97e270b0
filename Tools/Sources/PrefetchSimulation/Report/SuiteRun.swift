import Foundation

/// Scenarios run under policies, as `prefetch-bench` runs them, with the bench's table, JSON and
/// HTML report of the results.
@MainActor
public struct SuiteRun {
    private var runs: [HTMLReport.Run] = []

    /// Runs each of `scenarios` under each of `policies`, calling `progress(done, total, label)`
    /// before each run; with `timelines`, keeps what the report draws.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public init(
        _ scenarios: [Scenario], policies: [SimulationPolicy], configuration: SimulationConfiguration = SimulationConfiguration(),
        timelines: Bool = false, progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) async throws {
        for scenario in scenarios {
            for policy in policies {
                progress(runs.count, scenarios.count * policies.count, "\(scenario.name) · \(policy.name)")
                let (result, timeline) = try await Simulator.run(scenario, policy: policy, configuration: configuration, recordsTimeline: timelines)
                runs.append(HTMLReport.Run(result: result, timeline: timeline))
            }
        }
    }

    /// The results, scenario by scenario, each under every policy.
    public var results: [SimulationResult] { runs.map(\.result) }

    /// The table of every run, the totals per policy and, when a reference ran, each scenario's
    /// share of the references and every run where a real policy beat one.
    public var text: String {
        var text = ResultTable.render(results) + "\n\n" + SuiteSummary.render(results)
        if let shares = SuiteSummary.renderShares(results) { text += "\n\n" + shares }
        if let beaten = SuiteSummary.renderBeatenReferences(results) { text += "\n\n" + beaten }
        return text
    }

    /// The results as the bench's JSON file: `{"results": [...]}`, pretty-printed, keys sorted.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(["results": results])
    }

    /// A self-contained HTML page: per scenario, a table and bar charts of the policies, and each
    /// run's timeline (when recorded).
    public func report(subtitle: String) -> String {
        HTMLReport.render(runs, subtitle: subtitle)
    }
}
