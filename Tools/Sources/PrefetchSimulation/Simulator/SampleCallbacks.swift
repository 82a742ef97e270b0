import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchUIKit

/// The views' data source and delegate for a ``SampleApp``: Apple's sample's callbacks.
@MainActor
final class SampleCallbacks<ID: Hashable & Sendable, Value: Sendable>:
    CollectionViewDataSource, CollectionViewDelegate, TableViewDataSource, TableViewDelegate
{
    unowned let app: SampleApp<ID, Value>

    init(app: SampleApp<ID, Value>) { self.app = app }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { app.itemCount }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: sampleCellIdentifier, for: indexPath)
        guard let sample = cell as? SampleGridCell<ID, Value> else { preconditionFailure("expected a SampleGridCell, got \(cell)") }
        app.populate(sample, item: app.itemNumber(indexPath.item), priority: app.priority(at: indexPath))
        return cell
    }

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.appeared(cell, item: app.itemNumber(indexPath.item), priority: app.priority(at: indexPath))
    }

    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.disappeared(cell, item: app.itemNumber(indexPath.item))
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { app.itemCount }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: sampleCellIdentifier, for: indexPath)
        guard let sample = cell as? SampleListCell<ID, Value> else { preconditionFailure("expected a SampleListCell, got \(cell)") }
        let item = app.itemNumber(indexPath.row)
        app.populate(sample, item: item, priority: app.priority(at: indexPath))
        // A self-sizing row's cell knows its height from what it shows.
        if app.rowsSizeThemselves { sample.fittingHeight = app.rowHeights?.height(ofItem: item) }
        return cell
    }

    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.appeared(cell, item: app.itemNumber(indexPath.row), priority: app.priority(at: indexPath))
    }

    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.disappeared(cell, item: app.itemNumber(indexPath.row))
    }

    /// A row's own height, by its item (so an insert above moves no height to another row), or
    /// the view's one row height when the list's rows share it; a self-sizing row's comes from
    /// its cell.
    func tableView(_ tableView: TableView, heightForRowAt indexPath: IndexPath) -> Double {
        if app.rowsSizeThemselves { return TableView.automaticDimension }
        return app.rowHeights?.height(ofItem: app.itemNumber(indexPath.row)) ?? TableView.automaticDimension
    }
}
