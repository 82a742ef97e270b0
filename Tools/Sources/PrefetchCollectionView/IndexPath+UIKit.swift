import Foundation

#if !canImport(UIKit)
extension IndexPath {
    /// Creates an index path for an item in a section of a collection view, as UIKit does.
    ///
    /// ```swift
    /// let indexPath = IndexPath(item: 3, section: 0)   // [0, 3]
    /// ```
    public init(item: Int, section: Int) { self = .pair(section, item) }

    /// Creates an index path for a row in a section of a table view, as UIKit does.
    public init(row: Int, section: Int) { self = .pair(section, row) }

    /// The section: the first index. Traps when the index path does not have exactly two indexes.
    public var section: Int {
        get { self[pair: 0, "section"] }
        set { self[pair: 0, "section"] = newValue }
    }

    /// The item in a collection view section: the second index.
    public var item: Int {
        get { self[pair: 1, "item"] }
        set { self[pair: 1, "item"] = newValue }
    }

    /// The row in a table view section: the second index, the same as ``item``.
    public var row: Int {
        get { item }
        set { item = newValue }
    }

    /// Index `position` of a two-index path; traps naming `property` for other paths.
    private subscript(pair position: Int, property: String) -> Int {
        get {
            precondition(count == 2, "IndexPath \(self) has \(count) indexes; \(property) needs exactly 2 ([section, item])")
            return self[position]
        }
        set {
            precondition(count == 2, "IndexPath \(self) has \(count) indexes; \(property) needs exactly 2 ([section, item])")
            self[position] = newValue
        }
    }
}
#endif

extension IndexPath {
    /// The index path `[section, item]`, built without the array that `IndexPath(indexes:)`
    /// takes: an array literal is a heap allocation, and a layout query makes one index path per
    /// item on every frame. A one-index path extended by one index is stored as a pair inline.
    @inline(__always)
    static func pair(_ section: Int, _ item: Int) -> IndexPath {
        var indexPath = IndexPath(index: section)
        indexPath.append(item)
        return indexPath
    }
}
