import Foundation

/// The state of a diffable data source's data at one moment: sections of items, each
/// identified by a unique hashable value, like `NSDiffableDataSourceSnapshot`.
///
/// Identifiers must be unique across the snapshot: adding one twice traps with a message
/// naming it, as does referring to one that is not in the snapshot. Give it to a
/// ``DiffableDataSource`` with ``DiffableDataSource/apply(_:animatingDifferences:)``.
///
/// ```swift
/// var snapshot = Snapshot<Section, Item.ID>()
/// snapshot.appendSections([.main])
/// snapshot.appendItems(items.map(\.id))
/// snapshot.reloadItems([items[0].id])
/// ```
public struct Snapshot<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    private var sections: [SectionIdentifierType] = []
    private var items: [[ItemIdentifierType]] = []
    private var sectionOfItem: [ItemIdentifierType: SectionIdentifierType] = [:]

    /// Items marked by ``reloadItems(_:)`` since the snapshot was taken.
    package private(set) var reloadedItemIdentifiers: Set<ItemIdentifierType> = []
    /// Items marked by ``reconfigureItems(_:)`` since the snapshot was taken.
    package private(set) var reconfiguredItemIdentifiers: Set<ItemIdentifierType> = []
    /// Sections marked by ``reloadSections(_:)`` since the snapshot was taken.
    package private(set) var reloadedSectionIdentifiers: Set<SectionIdentifierType> = []

    /// Creates an empty snapshot.
    public init() {}

    // MARK: Reading

    /// The number of items in all sections.
    public var numberOfItems: Int { sectionOfItem.count }
    /// The number of sections.
    public var numberOfSections: Int { sections.count }
    /// The sections, in order.
    public var sectionIdentifiers: [SectionIdentifierType] { sections }
    /// All items, section by section.
    public var itemIdentifiers: [ItemIdentifierType] { items.flatMap { $0 } }

    /// The items of `section`, in order.
    public func itemIdentifiers(inSection section: SectionIdentifierType) -> [ItemIdentifierType] {
        items[sectionIndex(section, "itemIdentifiers(inSection:)")]
    }

    /// The number of items in `section`.
    public func numberOfItems(inSection section: SectionIdentifierType) -> Int {
        items[sectionIndex(section, "numberOfItems(inSection:)")].count
    }

    /// The section that holds `item`, or nil.
    package func sectionIdentifier(containingItem item: ItemIdentifierType) -> SectionIdentifierType? {
        sectionOfItem[item]
    }

    /// The position of `item` in its section, or nil.
    ///
    /// - Complexity: O(items in its section).
    package func indexOfItem(_ item: ItemIdentifierType) -> Int? {
        guard let section = sectionOfItem[item], let index = sections.firstIndex(of: section) else { return nil }
        return items[index].firstIndex(of: item)
    }

    /// The position of `section`, or nil.
    package func indexOfSection(_ section: SectionIdentifierType) -> Int? {
        sections.firstIndex(of: section)
    }

    // MARK: Sections

    /// Adds sections at the end.
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        insertSections(identifiers, at: sections.count)
    }

    /// Inserts sections before `section`.
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], beforeSection section: SectionIdentifierType) {
        insertSections(identifiers, at: sectionIndex(section, "insertSections(_:beforeSection:)"))
    }

    /// Inserts sections after `section`.
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], afterSection section: SectionIdentifierType) {
        insertSections(identifiers, at: sectionIndex(section, "insertSections(_:afterSection:)") + 1)
    }

    private mutating func insertSections(_ identifiers: [SectionIdentifierType], at index: Int) {
        for (offset, identifier) in identifiers.enumerated() {
            precondition(!sections.contains(identifier), "section \(identifier) is already in the snapshot; section identifiers must be unique")
            sections.insert(identifier, at: index + offset)
            items.insert([], at: index + offset)
        }
    }

    /// Deletes sections and their items.
    public mutating func deleteSections(_ identifiers: [SectionIdentifierType]) {
        for identifier in identifiers {
            let index = sectionIndex(identifier, "deleteSections(_:)")
            for item in items[index] { forget(item) }
            sections.remove(at: index)
            items.remove(at: index)
            reloadedSectionIdentifiers.remove(identifier)
        }
    }

    /// Moves `identifier` before `section`.
    public mutating func moveSection(_ identifier: SectionIdentifierType, beforeSection section: SectionIdentifierType) {
        moveSection(identifier, next: section, after: false, "moveSection(_:beforeSection:)")
    }

    /// Moves `identifier` after `section`.
    public mutating func moveSection(_ identifier: SectionIdentifierType, afterSection section: SectionIdentifierType) {
        moveSection(identifier, next: section, after: true, "moveSection(_:afterSection:)")
    }

    private mutating func moveSection(_ identifier: SectionIdentifierType, next section: SectionIdentifierType, after: Bool, _ function: String) {
        let from = sectionIndex(identifier, function)
        let content = items.remove(at: from)
        sections.remove(at: from)
        let to = sectionIndex(section, function) + (after ? 1 : 0)
        sections.insert(identifier, at: to)
        items.insert(content, at: to)
    }

    /// Marks sections to be reloaded: their cells are requested again.
    public mutating func reloadSections(_ identifiers: [SectionIdentifierType]) {
        for identifier in identifiers {
            _ = sectionIndex(identifier, "reloadSections(_:)")
            reloadedSectionIdentifiers.insert(identifier)
        }
    }

    // MARK: Items

    /// Adds items at the end of `section`, or of the last section when `section` is nil.
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection section: SectionIdentifierType? = nil) {
        let index: Int
        if let section {
            index = sectionIndex(section, "appendItems(_:toSection:)")
        } else {
            precondition(!sections.isEmpty, "appendItems(_:) needs a section; append one with appendSections(_:) first")
            index = sections.count - 1
        }
        insertItems(identifiers, section: index, at: items[index].count)
    }

    /// Inserts items before `item`.
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], beforeItem item: ItemIdentifierType) {
        let (section, position) = location(item, "insertItems(_:beforeItem:)")
        insertItems(identifiers, section: section, at: position)
    }

    /// Inserts items after `item`.
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], afterItem item: ItemIdentifierType) {
        let (section, position) = location(item, "insertItems(_:afterItem:)")
        insertItems(identifiers, section: section, at: position + 1)
    }

    private mutating func insertItems(_ identifiers: [ItemIdentifierType], section: Int, at position: Int) {
        for identifier in identifiers {
            precondition(sectionOfItem[identifier] == nil, "item \(identifier) is already in the snapshot; item identifiers must be unique")
            sectionOfItem[identifier] = sections[section]
        }
        items[section].insert(contentsOf: identifiers, at: position)
    }

    /// Deletes items.
    public mutating func deleteItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            let (section, position) = location(identifier, "deleteItems(_:)")
            items[section].remove(at: position)
            forget(identifier)
        }
    }

    /// Deletes every item and section.
    public mutating func deleteAllItems() {
        self = Snapshot()
    }

    /// Moves `identifier` before `item`.
    public mutating func moveItem(_ identifier: ItemIdentifierType, beforeItem item: ItemIdentifierType) {
        moveItem(identifier, next: item, after: false, "moveItem(_:beforeItem:)")
    }

    /// Moves `identifier` after `item`.
    public mutating func moveItem(_ identifier: ItemIdentifierType, afterItem item: ItemIdentifierType) {
        moveItem(identifier, next: item, after: true, "moveItem(_:afterItem:)")
    }

    private mutating func moveItem(_ identifier: ItemIdentifierType, next item: ItemIdentifierType, after: Bool, _ function: String) {
        precondition(identifier != item, "\(function) cannot move item \(identifier) relative to itself")
        let (fromSection, from) = location(identifier, function)
        items[fromSection].remove(at: from)
        let (section, position) = location(item, function)
        items[section].insert(identifier, at: position + (after ? 1 : 0))
        sectionOfItem[identifier] = sections[section]
    }

    /// Marks items to be reloaded: their cells are requested again.
    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            _ = location(identifier, "reloadItems(_:)")
            reloadedItemIdentifiers.insert(identifier)
        }
    }

    /// Marks items to be reconfigured. The headless views request their cells again, as for
    /// ``reloadItems(_:)``.
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            _ = location(identifier, "reconfigureItems(_:)")
            reconfiguredItemIdentifiers.insert(identifier)
        }
    }

    // MARK: Internals

    func item(at section: Int, _ index: Int) -> ItemIdentifierType? {
        guard section >= 0, section < items.count, index >= 0, index < items[section].count else { return nil }
        return items[section][index]
    }

    var itemsBySection: [[ItemIdentifierType]] { items }

    /// The index path of every item.
    ///
    /// - Complexity: O(n) for n items.
    var indexPathsByItem: [ItemIdentifierType: IndexPath] {
        var locations: [ItemIdentifierType: IndexPath] = [:]
        locations.reserveCapacity(numberOfItems)
        for (section, row) in items.enumerated() {
            for (index, item) in row.enumerated() { locations[item] = IndexPath(indexes: [section, index]) }
        }
        return locations
    }

    /// The snapshot without its reload and reconfigure marks.
    var clearingMarks: Snapshot {
        var copy = self
        copy.reloadedItemIdentifiers = []
        copy.reconfiguredItemIdentifiers = []
        copy.reloadedSectionIdentifiers = []
        return copy
    }

    private mutating func forget(_ item: ItemIdentifierType) {
        sectionOfItem[item] = nil
        reloadedItemIdentifiers.remove(item)
        reconfiguredItemIdentifiers.remove(item)
    }

    private func sectionIndex(_ section: SectionIdentifierType, _ function: String) -> Int {
        guard let index = sections.firstIndex(of: section) else {
            preconditionFailure("\(function): section \(section) is not in the snapshot")
        }
        return index
    }

    private func location(_ item: ItemIdentifierType, _ function: String) -> (section: Int, index: Int) {
        guard let section = sectionOfItem[item], let sectionIndex = sections.firstIndex(of: section),
              let index = items[sectionIndex].firstIndex(of: item) else {
            preconditionFailure("\(function): item \(item) is not in the snapshot")
        }
        return (sectionIndex, index)
    }
}

extension Snapshot: Equatable {
    /// Whether both snapshots hold the same sections and items in the same order.
    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs.sections == rhs.sections && lhs.items == rhs.items
    }
}

extension Snapshot: Sendable where SectionIdentifierType: Sendable, ItemIdentifierType: Sendable {}
