import PrefetchSimulation
import Foundation

@MainActor func main() throws {
    var results: [SimulationResult] = []
    for scenario in StandardSuite.all {
        for policy in SimulationPolicy.standard {
            results.append(try Simulator.run(scenario, policy: policy))
        }
    }
    print(ResultTable.render(results))
}
try MainActor.assumeIsolated { try main() }
