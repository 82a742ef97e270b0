/// Where a scrolling surface's items lie along its scroll axis: what a ``PrefetchController``
/// needs of a layout.
///
/// Extents are ranges of content coordinates along the scroll axis. An item "meets" a range when
/// their overlap has a positive length. Answer both questions without visiting the items outside
/// the range: the controller asks every frame, about the slivers of content that entered or left
/// its plan.
///
/// ```swift
/// struct Rows: ItemGeometry {
///     let count: Int, height: Double
///     func forEachItem(meeting range: Range<Double>, _ body: (Int, Range<Double>) -> Void) {
///         guard count > 0, range.upperBound > 0 else { return }
///         let first = max(0, Int((range.lowerBound / height).rounded(.down)))
///         let last = min(count - 1, Int((range.upperBound / height).rounded(.up)) - 1)
///         guard first <= last else { return }
///         for row in first...last { body(row, Double(row) * height..<Double(row + 1) * height) }
///     }
///     func extent(of item: Int) -> Range<Double>? {
///         (0..<count).contains(item) ? Double(item) * height..<Double(item + 1) * height : nil
///     }
/// }
/// ```
public protocol ItemGeometry<Item> {
    /// What the surface shows: an index path, a row number, a model's identifier.
    associatedtype Item: Hashable

    /// Calls `body` with each item whose extent meets `range`, and that extent, in ascending
    /// order along the axis.
    ///
    /// - Complexity: Should be O(log n + k) or better for k items in the range.
    func forEachItem(meeting range: Range<Double>, _ body: (Item, Range<Double>) -> Void)

    /// The extent of `item` along the axis, or `nil` when the item no longer exists.
    ///
    /// - Complexity: Should be O(1) or O(log n).
    func extent(of item: Item) -> Range<Double>?
}
