// What the UIKit examples of the documentation take as given: the app's fetcher, its collection
// view and data source, the cell at hand. `run` writes each example beside this file, into
// Generated/ (Checks/doc-examples); nothing here runs.
import Foundation
import PrefetchKit
import PrefetchUIKit
import UIKit

let fetcher = try! AsyncFetcher<Int, Data> { id in Data("\(id)".utf8) }
let id = 42
let indexPath: IndexPath = [0, 3]
@MainActor let collectionView = UICollectionView(frame: .zero, collectionViewLayout: UICollectionViewLayout())
@MainActor let dataSource = UICollectionViewDiffableDataSource<Int, Int>(collectionView: collectionView) { _, _, _ in nil }
@MainActor var prefetcher: ScrollViewPrefetcher<Int>!
@MainActor var monitor: NetworkConditionsMonitor!

/// The app's own `UICollectionViewDataSourcePrefetching` code.
final class OwnPrefetching: NSObject, UICollectionViewDataSourcePrefetching {
    func collectionView(_ collectionView: UICollectionView, prefetchItemsAt indexPaths: [IndexPath]) {}
    func collectionView(_ collectionView: UICollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {}
}

/// A view controller as an app has one.
final class PhotosViewController: UIViewController {
    let collectionView = UICollectionView(frame: .zero, collectionViewLayout: UICollectionViewLayout())
    let prefetching = OwnPrefetching()
    var prefetcher: ScrollViewPrefetcher<IndexPath>?
}
