import Foundation
import PrefetchCollectionView
import PrefetchKit
@testable import PrefetchSimulation

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
