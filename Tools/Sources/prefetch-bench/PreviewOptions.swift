import ArgumentParser
import PrefetchKit
import PrefetchSimulation

/// The bench's preview flags: where previews come from (`--previews`), how large they are
/// (`--preview-share`) and how far ahead the controller loads full values (`--preview-full-within-ms`).
struct PreviewOptions: ParsableArguments {
    /// Where previews come from, by name.
    enum Source: String, CaseIterable, ExpressibleByArgument {
        case none, prefix, variant
    }

    @Option(name: .long, help: "Previews: none (full values only, the output before previews), prefix (the payload's first --preview-share, completed later by a range request) or variant (a separate representation of --preview-share of the payload's size).")
    var previews: Source = .none

    @Option(name: .long, help: ArgumentHelp("A preview's size as a share of its payload, above 0 and below 1 (default 0.15: a progressive JPEG's first scan).", valueName: "share"))
    var previewShare: Double?

    @Option(name: .long, help: ArgumentHelp("With previews, items arriving on screen within this many ms get their full value at once; later ones a preview first (0 to 60000; default 1000).", valueName: "ms"))
    var previewFullWithinMs: Double?

    func validate() throws {
        if let previewShare {
            guard previewShare.isFinite, previewShare > 0, previewShare < 1 else {
                throw ValidationError("--preview-share must be a number above 0 and below 1; got \(previewShare)")
            }
        }
        if let previewFullWithinMs {
            guard previewFullWithinMs.isFinite, (0...60_000).contains(previewFullWithinMs) else {
                throw ValidationError("--preview-full-within-ms must be a number of ms from 0 to 60000; got \(previewFullWithinMs)")
            }
        }
        if previews == .none, previewShare != nil || previewFullWithinMs != nil {
            throw ValidationError("--preview-share and --preview-full-within-ms need --previews prefix or variant")
        }
    }

    /// Sets the configuration's previews.
    func apply(to configuration: inout SimulationConfiguration) throws {
        let share = previewShare ?? 0.15
        switch previews {
        case .none: configuration.previews = .none
        case .prefix: configuration.previews = .prefix(share: share)
        case .variant: configuration.previews = .variant(share: share)
        }
        if let previewFullWithinMs {
            configuration.previewPlan = try PreviewPlan(fullWithin: .microseconds(Int64((previewFullWithinMs * 1_000).rounded())))
        }
    }

    /// `, previews prefix(15 %), full within 1000 ms` with previews; empty without.
    func summary(_ configuration: SimulationConfiguration) -> String {
        guard configuration.previews.isEnabled else { return "" }
        return ", previews \(configuration.previews), full within \(Int((configuration.previewPlan.fullWithin / .milliseconds(1)).rounded())) ms"
    }
}
