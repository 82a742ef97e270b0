/// A cell of a ``TableView``, like `UITableViewCell`.
@MainActor
open class TableViewCell: ReusableCell {
    /// Creates a cell.
    public required init() { super.init() }
}
