// What the examples of the lab's documentation take as given (the tools, the headless views,
// the simulator): a loader, a server configuration, an app's data and views.
// `Checks/doc-examples --tools` writes each example beside this file, into Generated/; .ci/run
// builds them. Nothing here runs.
import Foundation
import PrefetchCollectionView
import PrefetchHTTP
import PrefetchKit
import PrefetchServer
import PrefetchSimulation
import PrefetchToolSupport

let loader = try! HTTPLoader<Int> { id in URL(string: "http://127.0.0.1:8080/thumb/\(id)")! }
let configuration = ServerConfiguration()

// MARK: The app's data

struct DisplayData: Sendable, Hashable { var color: String }
struct Model: Identifiable, Sendable {
    let id: Int
    var identifier: Int { id }
}
struct Item: Identifiable, Sendable { let id: Int }
enum Section: Hashable, Sendable { case main }
let ids = Array(0..<1_000)
let items = ids.map(Item.init(id:))
let id = 42, t = 1.0
let models = ids.map(Model.init(id:))
let fetcher = try! AsyncFetcher<Int, Data>(loader: loader)
let indexPath = IndexPath(item: 3, section: 0)

// MARK: The app's views (headless)

@MainActor final class Cell: CollectionViewCell {
    static let reuseIdentifier = "Cell"
    func configure(with id: Int) {}
}

@MainActor final class CustomTableViewCell: TableViewCell {
    static let identifier = "CustomTableViewCell"
}

@MainActor final class AppDataSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching,
    TableViewDataSource, TableViewDataSourcePrefetching {
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { ids.count }
    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath)
    }
    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {}
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { ids.count }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: CustomTableViewCell.identifier, for: indexPath)
    }
    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) {}
}

@MainActor let dataSource = AppDataSource()
@MainActor let collectionView = CollectionView(
    frame: CGRect(x: 0, y: 0, width: 343, height: 333),
    collectionViewLayout: try! FlowLayout(itemSize: CGSize(width: 150, height: 100)))
@MainActor let view = collectionView
@MainActor var prefetcher: FetcherPrefetchDataSource<Int, Data>?
