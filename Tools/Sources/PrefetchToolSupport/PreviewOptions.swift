import ArgumentParser
import PrefetchKit

/// The preview flags of `prefetch-bench run` and `prefetch-demo`: where previews come from
/// (`--previews`), how large they are (`--preview-share`) and how far ahead the controller loads
/// full values (`--preview-full-within-ms`). One parser and one set of rules; the simulator's
/// `PreviewOptions.apply(to:)` (in PrefetchSimulation) sets a configuration from them.
///
/// ```
/// prefetch-bench run --latency-profile emerging --previews prefix
/// prefetch-demo --previews variant --preview-share 0.1
/// ```
public struct PreviewOptions: ParsableArguments, Sendable {
    /// Where previews come from, by name.
    public enum Mode: String, CaseIterable, ExpressibleByArgument, Sendable {
        /// Full values only.
        case none
        /// The payload's first share, completed later by a range request.
        case prefix
        /// A separate representation of a share of the payload's size.
        case variant
    }

    /// A preview's share of its payload when `--preview-share` is not given: a progressive JPEG's first scan.
    public static let defaultShare = 0.15

    /// Where previews come from.
    @Option(name: .long, help: "Previews: none (full values only, as before previews), prefix (the payload's first --preview-share, completed later by a range request) or variant (a separate representation of --preview-share of the payload's size).")
    public var previews: Mode = .none

    /// A preview's size as a share of its payload.
    @Option(name: .long, help: ArgumentHelp("A preview's size as a share of its payload, above 0 and below 1 (default 0.15: a progressive JPEG's first scan).", valueName: "share"))
    public var previewShare: Double?

    /// How far ahead of its arrival an item's full value is loaded at once, in ms.
    @Option(name: .long, help: ArgumentHelp("With previews, items arriving on screen within this many ms get their full value at once; later ones a preview first (0 to 60000; default 2000).", valueName: "ms"))
    public var previewFullWithinMs: Double?

    /// Slots beyond the cap that only previews take (`FetcherConfiguration.previewSlots`).
    @Option(name: .long, help: ArgumentHelp("With previews, slots beyond the cap that only previews (and full values' first bytes, until their preview is in) take (0 to 64; default \(FetcherConfiguration().previewSlots), the library's).", valueName: "n"))
    public var previewSlots: Int?

    /// Creates the options with no flag given.
    public init() {}

    /// The preview slots: `--preview-slots`, or `FetcherConfiguration`'s default.
    public var slots: Int { previewSlots ?? FetcherConfiguration().previewSlots }

    /// Whether items have previews (`--previews prefix` or `variant`).
    public var isEnabled: Bool { previews != .none }

    /// The flags given, for a command to say where they do not apply.
    public var given: [String] {
        [("--previews", previews != .none), ("--preview-share", previewShare != nil), ("--preview-full-within-ms", previewFullWithinMs != nil),
         ("--preview-slots", previewSlots != nil)]
            .filter(\.1).map(\.0)
    }

    /// A preview's share of its payload: `--preview-share`, or ``defaultShare``.
    public var share: Double { previewShare ?? Self.defaultShare }

    /// The controller's plan: `--preview-full-within-ms`, or `PreviewPlan.standard`.
    /// - Throws: `ValidationError` naming the flag when the value is out of range.
    public func plan() throws -> PreviewPlan {
        guard let previewFullWithinMs else { return .standard }
        do {
            return try PreviewPlan(fullWithin: .microseconds(Int64((previewFullWithinMs * 1_000).rounded())))
        } catch let error as PrefetchError {
            throw ValidationError("--preview-full-within-ms: \(error.message)")
        }
    }

    /// Checks each value against its range, naming the flag and the rule.
    public func validate() throws {
        if let previewShare {
            guard previewShare.isFinite, previewShare > 0, previewShare < 1 else {
                throw ValidationError("--preview-share must be a number above 0 and below 1; got \(LatencyOptions.format(previewShare))")
            }
        }
        if let previewFullWithinMs {
            guard previewFullWithinMs.isFinite, (0...60_000).contains(previewFullWithinMs) else {
                throw ValidationError("--preview-full-within-ms must be a number of ms from 0 to 60000; got \(LatencyOptions.format(previewFullWithinMs))")
            }
        }
        if let previewSlots, !(0...64).contains(previewSlots) {
            throw ValidationError("--preview-slots must be a whole number from 0 to 64; got \(previewSlots)")
        }
        if previews == .none, previewShare != nil || previewFullWithinMs != nil || previewSlots != nil {
            throw ValidationError("--preview-share, --preview-full-within-ms and --preview-slots need --previews prefix or variant")
        }
    }
}
