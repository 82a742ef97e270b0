import Foundation

extension ItemScrollView {
    /// Traps, naming the broken rule, when the view's internal state is inconsistent.
    ///
    /// Checks that the visible items are exactly the layout's items in the viewport (after a
    /// layout pass), that displayed items have cells, that no item is both displayed and pending
    /// prefetch, that every held cell belongs to this view, is in use and knows its index path,
    /// that no cell is both held and pooled, that every index path is in range, and that the
    /// content offset lies within the content; and that the prefetch controller holds exactly
    /// the items of its plan, every pending prefetch among them. Call it in tests after every frame.
    ///
    /// - Complexity: O(v + p + c + pool), plus one layout query of the viewport.
    public func _checkInvariants() {
        var seen = Set<ObjectIdentifier>()
        for (indexPath, cell) in cells {
            precondition(validIndexPath(indexPath, counts: counts), "held cell at \(indexPath) is out of range of the counts \(counts)")
            precondition(cell.state == .inUse, "held cell at \(indexPath) is in state \(cell.state), expected inUse")
            precondition(cell.owner === self, "held cell at \(indexPath) belongs to another view")
            precondition(cell.indexPath == indexPath, "held cell at \(indexPath) believes it is at \(String(describing: cell.indexPath))")
            precondition(cell.isDisplayed == displayed.contains(indexPath), "cell at \(indexPath) has isDisplayed \(cell.isDisplayed) but the view disagrees")
            precondition(seen.insert(ObjectIdentifier(cell)).inserted, "one cell is held for two items, one of them \(indexPath)")
        }
        for cell in pool.all {
            precondition(cell.state == .pooled, "pooled cell is in state \(cell.state)")
            precondition(cell.indexPath == nil && !cell.isDisplayed, "pooled cell still has index path \(String(describing: cell.indexPath))")
            precondition(seen.insert(ObjectIdentifier(cell)).inserted, "a cell is both held and pooled, or pooled twice")
        }
        for indexPath in displayed {
            precondition(cells[indexPath] != nil, "displayed item \(indexPath) has no cell (visible must be a subset of prepared)")
            precondition(!pendingPrefetch.contains(indexPath), "item \(indexPath) is both displayed and pending prefetch")
        }
        for indexPath in pendingPrefetch {
            precondition(validIndexPath(indexPath, counts: counts), "pending prefetch \(indexPath) is out of range of the counts \(counts)")
        }
        let canPrefetch: Bool
        if case .none = host?.hostPrefetching ?? .none { canPrefetch = false } else { canPrefetch = true }
        if !isPrefetchingEnabled || !canPrefetch {
            precondition(pendingPrefetch.isEmpty || !hasLaidOut || isInLayoutPass, "prefetching is off but \(pendingPrefetch.count) items are pending")
        }
        guard hasLaidOut, !needsReload, !needsLayoutPreparation, !isInLayoutPass else { return }
        let range = contentOffsetRange
        precondition(range.contains(contentOffset.y), "content offset \(contentOffset.y) lies outside \(range)")
        var expected = Set<IndexPath>()
        if hasArea { layoutObject.forEachItem(in: viewportRect) { indexPath, _ in expected.insert(indexPath) } }
        precondition(expected == displayed, "displayed items \(displayed.sorted()) differ from the layout's items in the viewport \(expected.sorted())")
        for indexPath in displayed {
            if let frame = layoutObject.frameForItem(at: indexPath) {
                precondition(cells[indexPath]?.frame == frame, "displayed cell at \(indexPath) has a stale frame")
            }
        }
        controller._checkInvariants(geometry: geometry)
        for indexPath in pendingPrefetch {
            precondition(controller.requestedPriority(of: indexPath) != nil, "pending prefetch \(indexPath) is not in the controller's plan")
        }
    }
}
