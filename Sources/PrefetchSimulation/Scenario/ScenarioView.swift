import Foundation
import PrefetchCollectionView

/// The view a ``ScenarioLayout`` describes: a `CollectionView` with a `FlowLayout` for a grid,
/// a `TableView` for a list. The simulator and the demo build their views here, so both scroll
/// the same geometry.
@MainActor
public enum ScenarioView {
    /// A grid.
    case collection(CollectionView)
    /// A list.
    case table(TableView)

    /// The view, whichever kind it is.
    public var view: ItemScrollView {
        switch self {
        case .collection(let collectionView): collectionView
        case .table(let tableView): tableView
        }
    }
}

extension ScenarioLayout {
    /// Builds the view of this layout in a viewport of `viewport`, without a data source.
    /// - Throws: ``SimulationError`` naming a value of the layout or the viewport out of range.
    @MainActor
    public func makeView(viewport: Viewport) throws -> ScenarioView {
        try validate()
        try viewport.validate()
        let frame = CGRect(x: 0, y: 0, width: viewport.width, height: viewport.height)
        switch kind {
        case .grid:
            let inset = sectionInset
            let layout = try FlowLayout(
                itemSize: CGSize(width: itemWidth, height: itemHeight), minimumLineSpacing: spacing,
                minimumInteritemSpacing: spacing, sectionInset: ContentInsets(top: inset, left: inset, bottom: inset, right: inset))
            return .collection(CollectionView(frame: frame, collectionViewLayout: layout))
        case .list:
            let tableView = TableView(frame: frame)
            tableView.rowHeight = itemHeight
            return .table(tableView)
        }
    }
}
