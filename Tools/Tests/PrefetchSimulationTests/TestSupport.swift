import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
@testable import PrefetchSimulation

extension SimulationConfiguration {
    /// The glue and moments tests' configuration: every load takes 200 ms, each on its own
    /// network (no shared link), no retry, played through `toolkit`'s binding.
    static func fixed200ms(_ toolkit: Toolkit = .uikit) throws -> SimulationConfiguration {
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.fixed(.milliseconds(200)))
        configuration.network = .independent
        configuration.retry = .none
        configuration.toolkit = toolkit
        return configuration
    }
}

extension TraceFile {
    /// Parses `json` as the file `trace.json`, or returns the error it gives, as text.
    static func parseError(_ json: String) -> String? {
        do {
            _ = try parse(Data(json.utf8), fileName: "trace.json")
            return nil
        } catch {
            return "\(error)"
        }
    }
}

extension Simulator {
    /// One pass of the bench's app loop over `scenario`; `inspect` sees the simulation and its
    /// view whenever they are at rest: after every finished attempt and every frame.
    @MainActor
    static func play(
        _ scenario: Scenario, configuration: SimulationConfiguration, policy: any PrefetchPolicy,
        inspect: ((Simulation<Int, SimulatedData>, ItemScrollView) -> Void)? = nil
    ) async throws -> Simulation<Int, SimulatedData> {
        let simulation = try Simulator.simulation(scenario, configuration: configuration, policy: policy)
        simulation.onRest = { inspect?(simulation, simulation.app.view) }
        _ = try await simulation.run()
        return simulation
    }
}

extension ReadinessMeter {
    /// The figures so far.
    var readiness: SimulationResult { result() }
}

extension SimulationResult {
    /// The measured figures alone: without the names and the real frame time.
    var readiness: SimulationResult {
        var figures = self
        (figures.scenario, figures.policy, figures.frameTime) = ("", "", FrameTime())
        return figures
    }
}
