/// A cell of a ``CollectionView``, like `UICollectionViewCell`.
///
/// ```swift
/// final class Cell: CollectionViewCell {
///     static let reuseIdentifier = "Cell"
///     var representedIdentifier: UUID?
///     var color: String?
///     func configure(with data: DisplayData?) { color = data?.color }
/// }
/// collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
/// ```
@MainActor
open class CollectionViewCell: ReusableCell {
    /// Creates a cell.
    public required init() { super.init() }
}
