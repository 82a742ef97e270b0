import Foundation
import PrefetchKit

extension ItemScrollView {
    /// Whether the view has a size to show anything in.
    var hasArea: Bool { size.width > 0 && size.height > 0 }

    /// Does the work the state says is due before a pass: reads the data source when a reload is
    /// due (ending the display of every cell, forgetting the prefetch state), then prepares the
    /// layout when the data or the geometry changed. Does nothing when nothing is due.
    func prepareData() {
        guard state.work != .none else { return }
        if state.takeReload() {
            var newCounts: [Int] = []
            let sections = host?.hostNumberOfSections() ?? 0
            precondition(sections >= 0, "numberOfSections returned \(sections); it must be at least 0")
            newCounts.reserveCapacity(sections)
            for section in 0..<sections {
                let count = host?.hostNumberOfItems(inSection: section) ?? 0
                precondition(count >= 0, "\(names.countFunction) \(section) returned \(count); it must be at least 0")
                newCounts.append(count)
            }
            // Old index paths may mean other items now: end displaying, recycle, forget prefetches.
            for indexPath in displayed.sorted() {
                guard let cell = cells[indexPath] else { continue }
                endDisplaying(cell, at: indexPath)
            }
            displayed.removeAll()
            // Sorted, so cells reach the pool (and are reused) in the same order in every process.
            for indexPath in cells.keys.sorted() { recycle(cells[indexPath]!) }
            cells.removeAll()
            pendingPrefetch.removeAll()
            controller.invalidateItems()
            counts = newCounts
            host?.hostItemsChanged(map: nil)
        }
        if state.takeLayout() {
            controller.invalidateLayout()
            guard hasArea else { return }
            let environment = host?.hostLayoutEnvironment(counts: counts)
                ?? LayoutEnvironment(boundsSize: size, contentInset: contentInset, numberOfItems: counts)
            let contentBefore = layoutObject.contentSize
            do {
                try layoutObject.prepare(environment)
            } catch {
                preconditionFailure("the layout rejected the view's data or size: \(error)")
            }
            if layoutObject.contentSize != contentBefore { contentSizeChangePending = true }
        }
    }

    /// The layout's environment with the delegate's sizes (`sizeForItem` is nil for an item the
    /// layout sizes): the first item's answer tells whether the delegate gives sizes at all.
    func layoutEnvironment(counts: [Int], sizeForItem: @escaping (IndexPath) -> CGSize?) -> LayoutEnvironment {
        let provides = counts.firstIndex { $0 > 0 }.map { sizeForItem(IndexPath(indexes: [$0, 0])) != nil } ?? false
        return LayoutEnvironment(
            boundsSize: size, contentInset: contentInset, numberOfItems: counts, providesItemSizes: provides, sizeForItem: sizeForItem)
    }

    /// Tells the cell and the delegate that the cell left the screen.
    func endDisplaying(_ cell: ReusableCell, at indexPath: IndexPath) {
        cell.isDisplayed = false
        emit(.didEndDisplaying, indexPath)
        host?.hostDidEndDisplaying(cell, at: indexPath)
    }

    /// Runs a layout pass now: reads the data source if a reload is pending, then updates the
    /// visible cells, runs the prefetch controller and updates the prepared cells for the
    /// current offset.
    ///
    /// ``step(to:)`` calls it on every frame. Call it yourself after ``reloadData()`` or a change
    /// of data to see the result without advancing time. Calls made from inside a callback of a
    /// pass are ignored; the pass in progress finishes the work.
    ///
    /// - Complexity: O(v + p + c) for v visible items, p items in the prefetch window and c
    ///   changed items, plus the layout's query cost.
    public func layoutIfNeeded() {
        guard state.beginPass() else { return }
        var passes = 0
        var offsetBefore: CGPoint
        repeat {
            passes += 1
            prepareData()
            host?.hostSizeItemsOnScreen()
            offsetBefore = settledOffset(contentOffsetStorage.y)
            layoutPass()
            // A callback may have reloaded the data or moved the content: lay out again.
        } while (state.work != .none || contentOffsetStorage != offsetBefore) && passes < 4
        state.endPass()
        // A pass that moved the content (a clamp, a jump) or prepared a new content size is heard.
        notifyScrollObserver()
    }

    private func layoutPass() {
        contentOffsetStorage = settledOffset(contentOffsetStorage.y)
        let viewport = bounds

        // 1. What is visible now.
        var visibleFrames: [IndexPath: CGRect] = [:]
        // Room for a screenful that changed by a row, so that filling it never grows the table.
        visibleFrames.reserveCapacity(displayed.count + 8)
        if hasArea {
            layoutObject.forEachItem(in: viewport) { indexPath, frame in visibleFrames[indexPath] = frame }
        }

        // 2. What to load and how urgently: the controller's decisions for this frame. Its
        // withdrawals reach the data source now, its requests after the display changes.
        let decisions = planPrefetching()
        deliverWithdrawals(of: decisions, visible: visibleFrames)

        // 3. Cells leaving the screen. (Cells are kept within the preparation distance of the
        // viewport, as it is before any callback of this pass; see step 7.)
        let kept = preparationDistance
        let retention = CGRect(x: viewport.minX, y: viewport.minY - kept, width: viewport.width, height: viewport.height + 2 * kept)
        // Plain loops rather than `filter` closures: a main-actor closure passed to a generic
        // standard-library function checks its isolation at run time on every call.
        var ended: [IndexPath] = []
        for indexPath in displayed where visibleFrames[indexPath] == nil { ended.append(indexPath) }
        ended.sort()
        for indexPath in ended {
            displayed.remove(indexPath)
            if let cell = cells[indexPath] { endDisplaying(cell, at: indexPath) }
        }

        // 4. Cells coming on screen, nearest the top first.
        var appearing: [IndexPath] = []
        for (indexPath, frame) in visibleFrames {
            if displayed.contains(indexPath) { cells[indexPath]?.frame = frame } else { appearing.append(indexPath) }
        }
        appearing.sort()
        for indexPath in appearing {
            guard let frame = visibleFrames[indexPath] else { continue }
            // Displayed items leave the prefetch state without a cancel.
            pendingPrefetch.remove(indexPath)
            let cell = cells[indexPath] ?? requestCell(indexPath, frame: frame)
            cell.frame = frame
            cell.isDisplayed = true
            displayed.insert(indexPath)
            emit(.willDisplay, indexPath)
            host?.hostWillDisplay(cell, at: indexPath)
        }

        // 5. Prefetch what entered the plan off screen, most urgent first (a prioritized
        // prefetch data source gets the whole update).
        deliverRequests(of: decisions, visible: visibleFrames)

        // 6. Prepare cells ahead in the direction of travel.
        let distance = preparationDistance
        if hasArea, velocity != 0, distance > 0 {
            let ahead = velocity > 0
                ? CGRect(x: viewport.minX, y: viewport.maxY, width: viewport.width, height: distance)
                : CGRect(x: viewport.minX, y: viewport.minY - distance, width: viewport.width, height: distance)
            var toPrepare: [(IndexPath, CGRect, Double)] = []
            layoutObject.forEachItem(in: ahead) { indexPath, frame in
                guard cells[indexPath] == nil else { return }
                toPrepare.append((indexPath, frame, Self.distance(of: frame, from: viewport)))
            }
            toPrepare.sort { $0.2 != $1.2 ? $0.2 < $1.2 : $0.0 < $1.0 }
            for (indexPath, frame, _) in toPrepare where cells[indexPath] == nil && !displayed.contains(indexPath) {
                _ = requestCell(indexPath, frame: frame)
            }
        }

        // 7. Cells that are neither displayed nor near the viewport go back to the pool.
        var released: [IndexPath] = []
        for (indexPath, cell) in cells where !displayed.contains(indexPath) {
            let frame = layoutObject.frameForItem(at: indexPath) ?? cell.frame
            if !hasArea || !frame.overlapsWithPositiveArea(retention) { released.append(indexPath) }
        }
        released.sort()  // the same reuse order in every process: Dictionary order is seeded per process
        for indexPath in released {
            if let cell = cells.removeValue(forKey: indexPath) { recycle(cell) }
        }
    }

    /// How far beyond the viewport cells are prepared and kept; 0 with prefetching off.
    var preparationDistance: Double {
        isPrefetchingEnabled ? (cellPreparationDistance ?? size.height / 2) : 0
    }

    /// The distance along the scroll axis between `frame` and the viewport; 0 when they overlap.
    static func distance(of frame: CGRect, from viewport: CGRect) -> Double {
        if frame.maxY <= viewport.minY { return viewport.minY - frame.maxY }
        if frame.minY >= viewport.maxY { return frame.minY - viewport.maxY }
        return 0
    }

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
    package func _checkInvariants() {
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
        if case .none = host?.hostPrefetching ?? .none { canPrefetch = false } else { canPrefetch = isPrefetchingEnabled }
        // Before the first pass and during one, the view is between frames: check no further.
        guard state.pass == .idle else { return }
        precondition(canPrefetch || pendingPrefetch.isEmpty, "prefetching is off but \(pendingPrefetch.count) items are pending")
        guard state.work == .none else { return }
        let range = contentOffsetRange
        precondition(range.contains(contentOffset.y), "content offset \(contentOffset.y) lies outside \(range)")
        var expected = Set<IndexPath>()
        if hasArea { layoutObject.forEachItem(in: bounds) { indexPath, _ in expected.insert(indexPath) } }
        precondition(expected == displayed, "displayed items \(displayed.sorted()) differ from the layout's items in the viewport \(expected.sorted())")
        for indexPath in displayed {
            if let frame = layoutObject.frameForItem(at: indexPath) {
                precondition(cells[indexPath]?.frame == frame, "displayed cell at \(indexPath) has a stale frame")
            }
        }
        for indexPath in pendingPrefetch {
            precondition(controller.requestedPriority(of: indexPath) != nil, "pending prefetch \(indexPath) is not in the controller's plan")
        }
    }
}
