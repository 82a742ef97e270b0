import Foundation
import PrefetchKit

extension ItemScrollView {
    /// Whether the view has a size to show anything in.
    var hasArea: Bool { frame.width > 0 && frame.height > 0 }

    /// The visible rectangle in content coordinates.
    var viewportRect: CGRect { bounds }

    /// Reads the data source when a reload is pending, and prepares the layout.
    func prepareData() {
        if needsReload {
            needsReload = false
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
                cell.isDisplayed = false
                emit(.didEndDisplaying, indexPath)
                host?.hostDidEndDisplaying(cell, at: indexPath)
            }
            displayed.removeAll()
            // Sorted, so cells reach the pool (and are reused) in the same order in every process.
            for indexPath in cells.keys.sorted() { recycle(cells[indexPath]!) }
            cells.removeAll()
            pendingPrefetch.removeAll()
            controller.invalidateItems()
            counts = newCounts
            needsLayoutPreparation = true
        }
        if needsLayoutPreparation {
            needsLayoutPreparation = false
            controller.invalidateLayout()
            guard hasArea else { return }
            let environment = host?.hostLayoutEnvironment(counts: counts)
                ?? LayoutEnvironment(boundsSize: size, contentInset: contentInset, numberOfItems: counts)
            do {
                try layoutObject.prepare(environment)
            } catch {
                preconditionFailure("the layout rejected the view's data or size: \(error)")
            }
        }
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
        guard !isInLayoutPass else { return }
        isInLayoutPass = true
        defer { isInLayoutPass = false }
        var passes = 0
        var offsetBefore: CGPoint
        repeat {
            passes += 1
            prepareData()
            offsetBefore = clampedOffset(contentOffsetStorage.y)
            layoutPass()
            // A callback may have reloaded the data or moved the content: lay out again.
        } while (needsReload || needsLayoutPreparation || contentOffsetStorage != offsetBefore) && passes < 4
        hasLaidOut = true
    }

    private func layoutPass() {
        contentOffsetStorage = clampedOffset(contentOffset.y)
        let viewport = viewportRect

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
        for update in decisions { deliverWithdrawals(of: update, visible: visibleFrames) }

        // 3. Cells leaving the screen.
        let retention = retentionRect(viewport)
        // Plain loops rather than `filter` closures: a main-actor closure passed to a generic
        // standard-library function checks its isolation at run time on every call.
        var ended: [IndexPath] = []
        for indexPath in displayed where visibleFrames[indexPath] == nil { ended.append(indexPath) }
        ended.sort()
        for indexPath in ended {
            displayed.remove(indexPath)
            guard let cell = cells[indexPath] else { continue }
            cell.isDisplayed = false
            emit(.didEndDisplaying, indexPath)
            host?.hostDidEndDisplaying(cell, at: indexPath)
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
        for update in decisions { deliverRequests(of: update, visible: visibleFrames) }

        // 6. Prepare cells ahead in the direction of travel.
        if isPrefetchingEnabled, hasArea, velocity != 0 {
            let distance = preparationDistance
            if distance > 0 {
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

    var preparationDistance: Double {
        isPrefetchingEnabled ? (cellPreparationDistance ?? frame.height / 2) : 0
    }

    /// The viewport, grown by the preparation distance on both sides.
    func retentionRect(_ viewport: CGRect) -> CGRect {
        let distance = preparationDistance
        return CGRect(x: viewport.minX, y: viewport.minY - distance, width: viewport.width, height: viewport.height + 2 * distance)
    }

    /// The distance along the scroll axis between `frame` and the viewport; 0 when they overlap.
    static func distance(of frame: CGRect, from viewport: CGRect) -> Double {
        if frame.maxY <= viewport.minY { return viewport.minY - frame.maxY }
        if frame.minY >= viewport.maxY { return frame.minY - viewport.maxY }
        return 0
    }
}
