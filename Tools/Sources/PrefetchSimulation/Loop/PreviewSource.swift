import Foundation
import PrefetchToolSupport

/// Where a simulated item's preview comes from, and what it costs on the wire.
///
/// - ``none``: no previews; every load moves the whole payload (the model before previews, and
///   `prefetch-bench --previews none`).
/// - ``prefix(share:)``: the first `share` of the payload (a progressive JPEG's first scan is
///   typically 10-15 % of the file). A preview load moves only those bytes; the item's full load
///   later moves only the rest (a range request), and a full load shows the preview on the way
///   as soon as its bytes pass the prefix.
/// - ``variant(share:)``: a separate small representation (a thumbnail URL) of `share` of the
///   payload's size: a load of its own, which the full load does not build on.
///
/// ```swift
/// import PrefetchSimulation
///
/// var configuration = SimulationConfiguration()
/// configuration.previews = .prefix(share: 0.15)
/// ```
public enum PreviewSource: Sendable, Hashable, CustomStringConvertible {
    /// No previews.
    case none
    /// The payload's first `share` (above 0, below 1).
    case prefix(share: Double)
    /// A separate representation of `share` of the payload's size (above 0, below 1).
    case variant(share: Double)

    /// Whether items have previews.
    public var isEnabled: Bool { self != .none }

    /// Throws when the share is not a number above 0 and below 1.
    func validate() throws {
        switch self {
        case .none: break
        case .prefix(let share), .variant(let share):
            guard share.isFinite, share > 0, share < 1 else {
                throw SimulationError("preview share is \(share), but it must be a number above 0 and below 1")
            }
        }
    }

    /// The bytes of a preview of a payload of `bytes` (at least 1 for a non-empty payload).
    func previewBytes(of bytes: Int) -> Int {
        switch self {
        case .none: bytes
        case .prefix(let share), .variant(let share): bytes == 0 ? 0 : min(max(Int((Double(bytes) * share).rounded()), 1), bytes)
        }
    }

    /// `none`, `prefix(15 %)` or `variant(10 %)`.
    public var description: String {
        switch self {
        case .none: "none"
        case .prefix(let share): "prefix(\(Self.percent(share)))"
        case .variant(let share): "variant(\(Self.percent(share)))"
        }
    }

    private static func percent(_ share: Double) -> String {
        let value = share * 100
        return value == value.rounded() ? "\(Int(value)) %" : String(format: "%.1f %%", value)
    }
}

extension PreviewSource {
    /// The previews `--previews` names (`PreviewOptions.Mode`), `share` of each payload.
    public init(_ mode: PreviewOptions.Mode, share: Double) {
        switch mode {
        case .none: self = .none
        case .prefix: self = .prefix(share: share)
        case .variant: self = .variant(share: share)
        }
    }
}

extension PreviewOptions {
    /// The previews the flags name: `none`, or `prefix` or `variant` of `--preview-share`.
    public var source: PreviewSource { PreviewSource(previews, share: share) }

    /// Sets the configuration's previews, its preview slots and, with `--preview-full-within-ms`, its plan.
    /// - Throws: `ValidationError` naming the flag when a value is out of range.
    public func apply(to configuration: inout SimulationConfiguration) throws {
        configuration.previews = source
        configuration.previewSlots = slots
        if previewFullWithinMs != nil { configuration.previewPlan = try plan() }
    }
}
