import Foundation

/// Places the items of a ``CollectionView`` or ``TableView``; implement it for a custom layout.
///
/// The view calls ``prepare(_:)`` when its data or size changes, then asks
/// ``forEachItem(in:_:)`` for the items in the viewport and the prefetch regions on every
/// frame. Layouts scroll vertically: frames are in content coordinates, `y` grows toward the
/// end of the content, and the content is as wide as the view minus its horizontal insets.
///
/// A layout for large collections must answer ``forEachItem(in:_:)`` without visiting, or
/// allocating for, the items outside the rectangle: the views run it on every frame.
@MainActor
public protocol CollectionLayout: AnyObject {
    /// Computes the layout for the view's current data and size.
    ///
    /// - Throws: `PrefetchError` when the environment breaks a rule of the
    ///   layout, such as an item wider than the view.
    /// - Complexity: Should be O(sections) for uniform layouts; O(items) is acceptable for
    ///   layouts that store one value per item.
    func prepare(_ environment: LayoutEnvironment) throws

    /// The size of the whole content, as of the last ``prepare(_:)``.
    var contentSize: CGSize { get }

    /// The frame of the item at `indexPath`, or nil when there is no such item.
    ///
    /// - Complexity: Should be O(1) or O(log n).
    func frameForItem(at indexPath: IndexPath) -> CGRect?

    /// Calls `body` with each item whose frame overlaps `rect` with a positive area, in index
    /// path order.
    ///
    /// - Complexity: Should be O(log n + k) or better, where k is the number of items in `rect`.
    func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void)
}

extension CollectionLayout {
    /// The index paths of the items whose frames overlap `rect`, in index path order.
    ///
    /// - Complexity: The cost of ``forEachItem(in:_:)``.
    package func indexPathsForItems(in rect: CGRect) -> [IndexPath] {
        var result: [IndexPath] = []
        forEachItem(in: rect) { indexPath, _ in result.append(indexPath) }
        return result
    }
}

/// What a ``CollectionLayout`` needs to know to lay out a view's items.
public struct LayoutEnvironment {
    /// The view's size.
    public var boundsSize: CGSize
    /// The view's content inset; the content is ``contentWidth`` wide.
    public var contentInset: ContentInsets
    /// The number of items in each section.
    public var numberOfItems: [Int]
    /// Whether ``sizeForItem`` gives sizes (the delegate implements `sizeForItemAt` or
    /// `heightForRowAt`); when false, layouts use their own sizes and never call it.
    public var providesItemSizes: Bool
    /// The size the delegate gives for an item, or nil to use the layout's own size.
    public var sizeForItem: (IndexPath) -> CGSize?

    /// Creates an environment.
    package init(
        boundsSize: CGSize,
        contentInset: ContentInsets = .zero,
        numberOfItems: [Int],
        providesItemSizes: Bool = false,
        sizeForItem: @escaping (IndexPath) -> CGSize? = { _ in nil }
    ) {
        self.boundsSize = boundsSize
        self.contentInset = contentInset
        self.numberOfItems = numberOfItems
        self.providesItemSizes = providesItemSizes
        self.sizeForItem = sizeForItem
    }

    /// The width of the content: the bounds' width minus the horizontal content insets.
    public var contentWidth: Double { boundsSize.width - contentInset.horizontal }
}

/// Finds the first index in `0..<count` for which `isAfter` is true, given that it is false
/// then true along the range.
func partitionPoint(_ count: Int, _ isAfter: (Int) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
        let mid = low + (high - low) / 2
        if isAfter(mid) { high = mid } else { low = mid + 1 }
    }
    return low
}

func validIndexPath(_ indexPath: IndexPath, counts: [Int]) -> Bool {
    indexPath.count == 2 && indexPath[0] >= 0 && indexPath[0] < counts.count
        && indexPath[1] >= 0 && indexPath[1] < counts[indexPath[0]]
}
