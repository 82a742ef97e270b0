import Foundation
import PrefetchCollectionView
import PrefetchKit

/// A cell that holds the consumer of its item's load while the data is on its way.
@MainActor
public protocol FetchingCell: ReusableCell {
    /// The cell's consumer of an in-flight load; withdrawn when the cell is reused.
    var fetchHandle: FetchHandle? { get set }
}

/// The cells holding a consumer, so the consumers of cells the view puts back in its reuse pool
/// are withdrawn at once, in item order.
///
/// A pooled cell would otherwise keep its consumer until the view reuses it, and which pooled
/// cell is reused first depends on the pool's order, so the loads it keeps alive would too.
/// Withdrawing them when they enter the pool keeps runs repeatable; `prepareForReuse()`
/// withdraws the rest. The simulator's and the demo's data sources both use it.
@MainActor
public final class PooledConsumers {
    private var holders: [ObjectIdentifier: (cell: any FetchingCell, item: Int)] = [:]

    /// Creates an empty ledger.
    public init() {}

    /// `cell` now holds a consumer for `item` (a no-op when its handle is nil: a cache hit).
    public func hold(_ cell: some FetchingCell, item: Int) {
        if cell.fetchHandle != nil { holders[ObjectIdentifier(cell)] = (cell, item) }
    }

    /// Withdraws the consumers of cells that are in the reuse pool now, in item order, and
    /// forgets cells whose consumer has heard.
    public func releasePooled() {
        let pooled = holders.filter { $0.value.cell.indexPath == nil || $0.value.cell.fetchHandle == nil }
            .sorted { $0.value.item < $1.value.item }
        for (key, holder) in pooled {
            holders[key] = nil
            holder.cell.fetchHandle?.cancel()
            holder.cell.fetchHandle = nil
        }
    }
}
