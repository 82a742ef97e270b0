import Foundation

/// The batch update that turns one snapshot into another, in UIKit's terms.
struct SnapshotDifference: Equatable {
    var deletedSections = IndexSet()
    var insertedSections = IndexSet()
    var deletedItems: [IndexPath] = []
    var insertedItems: [IndexPath] = []
    var reloadedItems: [IndexPath] = []
    var moves: [Move] = []

    struct Move: Equatable {
        var from: IndexPath
        var to: IndexPath
    }
}

/// The indexes (into `values`) of one longest strictly increasing subsequence.
///
/// - Complexity: O(n log n).
func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
    var tails: [Int] = []          // indexes into values
    var previous = Array(repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        let position = partitionPoint(tails.count) { values[tails[$0]] >= value }
        if position > 0 { previous[index] = tails[position - 1] }
        if position == tails.count { tails.append(index) } else { tails[position] = index }
    }
    var result = Set<Int>()
    var cursor = tails.last ?? -1
    while cursor >= 0 {
        result.insert(cursor)
        cursor = previous[cursor]
    }
    return result
}

extension Snapshot {
    /// The batch update from `old` to `self`.
    ///
    /// Sections that stay in place keep their items: items that stay in the same section in the
    /// same relative order stay, other surviving items move, the rest are deleted or inserted.
    /// Sections that move or are reloaded are deleted and inserted with their items.
    ///
    /// - Complexity: O(n log n) for n items.
    func difference(from old: Snapshot) -> SnapshotDifference {
        var result = SnapshotDifference()
        let oldSections = old.sectionIdentifiers
        let newSections = sectionIdentifiers
        var newSectionIndex: [SectionIdentifierType: Int] = [:]
        for (index, section) in newSections.enumerated() { newSectionIndex[section] = index }

        // Sections kept in place: the common ones in increasing order, minus reloaded ones.
        var common: [(old: Int, new: Int)] = []
        for (index, section) in oldSections.enumerated() {
            if let new = newSectionIndex[section] { common.append((index, new)) }
        }
        let stableCommon = longestIncreasingSubsequence(common.map(\.new))
        var oldToNewSection: [Int: Int] = [:]
        for (position, pair) in common.enumerated()
        where stableCommon.contains(position) && !reloadedSectionIdentifiers.contains(newSections[pair.new]) {
            oldToNewSection[pair.old] = pair.new
        }
        let keptNewSections = Set(oldToNewSection.values)
        for index in oldSections.indices where oldToNewSection[index] == nil { result.deletedSections.insert(index) }
        for index in newSections.indices where !keptNewSections.contains(index) { result.insertedSections.insert(index) }

        // Where every item sits in each snapshot.
        let oldLocation = old.indexPathsByItem
        let newLocation = indexPathsByItem

        // Deletions: items of kept old sections that are gone or land in a section that is not kept.
        for oldSection in oldToNewSection.keys {
            for (index, item) in old.itemsBySection[oldSection].enumerated()
            where !(newLocation[item].map { keptNewSections.contains($0[0]) } ?? false) {
                result.deletedItems.append(IndexPath(indexes: [oldSection, index]))
            }
        }
        let marked = reloadedItemIdentifiers.union(reconfiguredItemIdentifiers)
        for newSection in keptNewSections.sorted() {
            let items = itemsBySection[newSection]
            var sameSection: [(newIndex: Int, oldIndex: Int)] = []
            for (index, item) in items.enumerated() {
                let target = IndexPath(indexes: [newSection, index])
                guard let source = oldLocation[item], let mapped = oldToNewSection[source[0]] else {
                    result.insertedItems.append(target)
                    continue
                }
                if mapped == newSection {
                    sameSection.append((index, source[1]))
                } else {
                    if marked.contains(item) {
                        result.deletedItems.append(source)
                        result.insertedItems.append(target)
                    } else {
                        result.moves.append(.init(from: source, to: target))
                    }
                }
            }
            let oldSection = oldToNewSection.first { $0.value == newSection }!.key
            let stable = longestIncreasingSubsequence(sameSection.map(\.oldIndex))
            for (position, pair) in sameSection.enumerated() {
                let source = IndexPath(indexes: [oldSection, pair.oldIndex])
                let target = IndexPath(indexes: [newSection, pair.newIndex])
                let item = items[pair.newIndex]
                if stable.contains(position) {
                    if marked.contains(item) { result.reloadedItems.append(source) }
                } else if marked.contains(item) {
                    result.deletedItems.append(source)
                    result.insertedItems.append(target)
                } else {
                    result.moves.append(.init(from: source, to: target))
                }
            }
        }
        result.deletedItems.sort()
        result.insertedItems.sort()
        result.reloadedItems.sort()
        result.moves.sort { $0.from < $1.from }
        return result
    }
}
