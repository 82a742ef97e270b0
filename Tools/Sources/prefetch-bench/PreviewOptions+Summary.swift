import PrefetchSimulation
import PrefetchToolSupport

extension PreviewOptions {
    /// `, previews prefix(15 %), full within 2000 ms, 6 preview slots` with previews; empty without.
    func summary(_ configuration: SimulationConfiguration) -> String {
        guard configuration.previews.isEnabled else { return "" }
        return ", previews \(configuration.previews), full within \(Int((configuration.previewPlan.fullWithin / .milliseconds(1)).rounded())) ms"
            + ", \(configuration.previewSlots) preview slots"
    }
}
