import Foundation
import PrefetchKit

/// The changes recorded inside one `performBatchUpdates` call, in UIKit's terms: deletions,
/// reloads and move sources refer to index paths before the update; insertions and move
/// destinations to index paths after it.
struct BatchUpdate {
    var deletedSections: Set<Int> = []
    var insertedSections: Set<Int> = []
    var deletedItems: Set<IndexPath> = []
    var insertedItems: Set<IndexPath> = []
    var reloadedItems: Set<IndexPath> = []
    var moves: [(from: IndexPath, to: IndexPath)] = []
}

/// Maps index paths from before a batch update to after it.
struct IndexPathMapping {
    /// New section for each old section; nil for deleted ones.
    var sectionMap: [Int?]
    /// Per old section: sorted old item indexes removed (deleted or moved away).
    var removed: [[Int]]
    /// Per new section: sorted new item indexes added (inserted or moved in).
    var added: [[Int]]
    var moveTargets: [IndexPath: IndexPath]
    var deleted: Set<IndexPath>

    /// The index path of the same item after the update, or nil when it was deleted.
    func map(_ indexPath: IndexPath) -> IndexPath? {
        if let target = moveTargets[indexPath] { return target }
        if deleted.contains(indexPath) { return nil }
        let oldSection = indexPath[0]
        guard oldSection < sectionMap.count, let newSection = sectionMap[oldSection] else { return nil }
        let item = indexPath[1]
        let removedBefore = partitionPoint(removed[oldSection].count) { removed[oldSection][$0] >= item }
        var slot = item - removedBefore
        for index in added[newSection] {
            if index <= slot { slot += 1 } else { break }
        }
        return IndexPath(indexes: [newSection, slot])
    }
}

extension ItemScrollView {
    /// Applies several changes at once: change your data and call the insert, delete, move and
    /// reload methods inside `updates`.
    ///
    /// As in UIKit, deletions, reloads and move sources use index paths from before the update;
    /// insertions and move destinations use index paths after it. Displayed and prepared cells
    /// and the prefetch state move with their items; every callback after the update uses the
    /// new index paths (only `didEndDisplaying` of a deleted item carries its old index path).
    /// A change made outside `performBatchUpdates` is applied at once, as its own update.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) when an index path is out of
    ///   range or the data source's counts disagree with the changes, naming the counts. The
    ///   view then keeps its state from before the update; call ``reloadData()``.
    public func performBatchUpdates(_ updates: () throws -> Void) throws {
        precondition(state.pass != .running, "performBatchUpdates was called from a callback during a layout pass; call it after the pass (for example on the next frame)")
        precondition(batchUpdate == nil, "performBatchUpdates calls must not be nested")
        prepareData()
        batchUpdate = BatchUpdate()
        defer { batchUpdate = nil }
        try updates()
        guard let update = batchUpdate else { return }
        try apply(update)
    }

    /// Inserts sections (indexes after the update).
    public func insertSections(_ sections: IndexSet) {
        record("insertSections") { $0.insertedSections.formUnion(sections) }
    }

    /// Deletes sections (indexes before the update).
    public func deleteSections(_ sections: IndexSet) {
        record("deleteSections") { $0.deletedSections.formUnion(sections) }
    }

    /// Records `change` in the batch update under way, or applies it as its own update.
    func record(_ function: String, _ change: (inout BatchUpdate) -> Void) {
        if batchUpdate != nil {
            change(&batchUpdate!)
            return
        }
        do {
            try performBatchUpdates { change(&self.batchUpdate!) }
        } catch {
            preconditionFailure("\(function) outside performBatchUpdates failed: \(error)")
        }
    }

    private func invalid(_ message: String) -> PrefetchError {
        PrefetchError(.invalidArgument, "performBatchUpdates: \(message)")
    }

    private func apply(_ update: BatchUpdate) throws {
        let noun = names.noun
        let oldCounts = counts
        let oldSections = oldCounts.count
        let newSections = host?.hostNumberOfSections() ?? 0

        // Sections.
        for section in update.deletedSections where section < 0 || section >= oldSections {
            throw invalid("deleted section \(section) is out of range: the view had \(oldSections) sections before the update")
        }
        for section in update.insertedSections where section < 0 || section >= newSections {
            throw invalid("inserted section \(section) is out of range: the data source reports \(newSections) sections after the update")
        }
        let expectedSections = oldSections - update.deletedSections.count + update.insertedSections.count
        guard newSections == expectedSections else {
            throw invalid("the data source reports \(newSections) sections after the update, but the view had \(oldSections) before it, with \(update.insertedSections.count) inserted and \(update.deletedSections.count) deleted, so it expected \(expectedSections)")
        }
        var sectionMap: [Int?] = Array(repeating: nil, count: oldSections)
        var newToOld: [Int?] = Array(repeating: nil, count: newSections)
        var nextNew = 0
        for old in 0..<oldSections where !update.deletedSections.contains(old) {
            while update.insertedSections.contains(nextNew) { nextNew += 1 }
            sectionMap[old] = nextNew
            newToOld[nextNew] = old
            nextNew += 1
        }

        // Items.
        func checkOld(_ indexPath: IndexPath, _ what: String) throws {
            guard validIndexPath(indexPath, counts: oldCounts) else {
                let detail = indexPath.count == 2 && indexPath[0] >= 0 && indexPath[0] < oldSections
                    ? "section \(indexPath[0]) had \(oldCounts[indexPath[0]]) \(noun)s before the update"
                    : "the view had \(oldSections) sections before the update"
                throw invalid("\(what) index path \(indexPath) is out of range: \(detail)")
            }
            guard !update.deletedSections.contains(indexPath[0]) else {
                throw invalid("\(what) index path \(indexPath) lies in deleted section \(indexPath[0])")
            }
        }
        var newCounts: [Int] = []
        newCounts.reserveCapacity(newSections)
        for section in 0..<newSections {
            let count = host?.hostNumberOfItems(inSection: section) ?? 0
            guard count >= 0 else { throw invalid("the data source reports \(count) \(noun)s in section \(section)") }
            newCounts.append(count)
        }
        func checkNew(_ indexPath: IndexPath, _ what: String) throws {
            guard validIndexPath(indexPath, counts: newCounts) else {
                let detail = indexPath.count == 2 && indexPath[0] >= 0 && indexPath[0] < newSections
                    ? "section \(indexPath[0]) has \(newCounts[indexPath[0]]) \(noun)s after the update"
                    : "the data source reports \(newSections) sections after the update"
                throw invalid("\(what) index path \(indexPath) is out of range: \(detail)")
            }
            guard !update.insertedSections.contains(indexPath[0]) else {
                throw invalid("\(what) index path \(indexPath) lies in inserted section \(indexPath[0]); inserting the section inserts its \(noun)s")
            }
        }
        var removed: [[Int]] = Array(repeating: [], count: oldSections)
        var added: [[Int]] = Array(repeating: [], count: newSections)
        var moveTargets: [IndexPath: IndexPath] = [:]
        for indexPath in update.deletedItems {
            try checkOld(indexPath, "deleted")
            removed[indexPath[0]].append(indexPath[1])
        }
        for indexPath in update.reloadedItems {
            try checkOld(indexPath, "reloaded")
            if update.deletedItems.contains(indexPath) { throw invalid("\(indexPath) is both deleted and reloaded") }
        }
        for indexPath in update.insertedItems {
            try checkNew(indexPath, "inserted")
            added[indexPath[0]].append(indexPath[1])
        }
        var moveDestinations: Set<IndexPath> = []
        for (from, to) in update.moves {
            try checkOld(from, "move source")
            try checkNew(to, "move destination")
            if update.deletedItems.contains(from) || update.reloadedItems.contains(from) || moveTargets[from] != nil {
                throw invalid("move source \(from) is also deleted, reloaded or moved elsewhere")
            }
            if update.insertedItems.contains(to) || !moveDestinations.insert(to).inserted {
                throw invalid("move destination \(to) is also inserted or the destination of another move")
            }
            moveTargets[from] = to
            removed[from[0]].append(from[1])
            added[to[0]].append(to[1])
        }
        for section in 0..<newSections {
            guard let old = newToOld[section] else { continue }
            let expected = oldCounts[old] - removed[old].count + added[section].count
            guard newCounts[section] == expected else {
                let movedIn = update.moves.filter { $0.to[0] == section }.count
                let movedOut = update.moves.filter { $0.from[0] == old }.count
                let inserted = added[section].count - movedIn
                let deleted = removed[old].count - movedOut
                throw invalid("the data source reports \(newCounts[section]) \(noun)s in section \(section) after the update, but the view had \(oldCounts[old]) before it, with \(inserted) inserted, \(deleted) deleted, \(movedIn) moved in and \(movedOut) moved out, so it expected \(expected)")
            }
        }
        for index in removed.indices { removed[index].sort() }
        for index in added.indices { added[index].sort() }
        let mapping = IndexPathMapping(
            sectionMap: sectionMap, removed: removed, added: added,
            moveTargets: moveTargets, deleted: update.deletedItems
        )

        // Remap the state; collect the cells that end.
        var endings: [(ReusableCell, IndexPath)] = []
        var newCells: [IndexPath: ReusableCell] = [:]
        var newDisplayed: Set<IndexPath> = []
        for (indexPath, cell) in cells {
            let wasDisplayed = displayed.contains(indexPath)
            guard let target = mapping.map(indexPath) else {
                // Deleted: the only callback with an index path from before the update.
                if wasDisplayed { endings.append((cell, indexPath)) } else { recycle(cell) }
                continue
            }
            if update.reloadedItems.contains(indexPath) {
                if wasDisplayed { endings.append((cell, target)) } else { recycle(cell) }
                continue
            }
            cell.indexPath = target
            newCells[target] = cell
            if wasDisplayed { newDisplayed.insert(target) }
        }
        var newPending: Set<IndexPath> = []
        for indexPath in pendingPrefetch {
            if let target = mapping.map(indexPath) { newPending.insert(target) }
        }
        cells = newCells
        displayed = newDisplayed
        pendingPrefetch = newPending
        // The controller's requests move with their items; deleted and reloaded items are
        // withdrawn under their old index paths (a reloaded item is asked for again, afresh).
        controller.moveItems { indexPath in
            update.reloadedItems.contains(indexPath) ? nil : mapping.map(indexPath)
        }
        counts = newCounts
        host?.hostItemsChanged { update.reloadedItems.contains($0) ? nil : mapping.map($0) }
        state.invalidate(.layout)
        for (cell, indexPath) in endings.sorted(by: { $0.1 < $1.1 }) {
            endDisplaying(cell, at: indexPath)
            recycle(cell)
        }
        prepareData()
        if state.laysOutOnChange { layoutIfNeeded() }
    }
}
