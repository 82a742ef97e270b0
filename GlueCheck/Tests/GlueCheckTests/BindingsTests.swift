import Network
import PrefetchKit
@testable import PrefetchUIKit
import UIKit
import XCTest

/// The real UIKit bindings (observers, conformances, initialisers) driven through the stand-in
/// UIKit, whose scroll view reports changes to key-value observers as UIKit does. What the
/// prefetcher makes of the callbacks is tested in the main package (PrefetchGlueTests); this
/// checks the wiring. Nothing here depends on the wall clock: only where the viewport is, never
/// how fast it moved.
/// XCTest on Linux runs each test on the main thread but cannot call a `@MainActor` test method:
/// each body asserts the main actor instead.
final class BindingsTests: XCTestCase {
    @MainActor private static func makeGrid(rows: Int) throws -> (UICollectionView, UICollectionViewDiffableDataSource<Int, Int>, AsyncFetcher<Int, Int>) {
        let layout = UICollectionViewLayout()
        let view = UICollectionView(frame: CGRect(x: 0, y: 0, width: 320, height: 600), collectionViewLayout: layout)
        view.window = UIWindow()
        let dataSource = UICollectionViewDiffableDataSource<Int, Int>(collectionView: view) { _, _, _ in nil }
        var snapshot = NSDiffableDataSourceSnapshot<Int, Int>()
        snapshot.appendSections([0])
        snapshot.appendItems(Array(1_000..<(1_000 + rows)))
        dataSource.apply(snapshot)
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4)) { id in
            try await Task.sleep(for: .seconds(3_600))   // never finishes: the test reads only what was asked for
            return id
        }
        return (view, dataSource, fetcher)
    }

    func testTheObserversSeeEveryStepAndDetachStopsThem() throws {
        try MainActor.assumeIsolated {
        let (view, dataSource, fetcher) = try Self.makeGrid(rows: 500)
        let prefetcher = ScrollViewPrefetcher(collectionView: view, dataSource: dataSource, fetcher: fetcher)
        XCTAssertNil(view.prefetchDataSource)
        view.setTracking(dragging: true, decelerating: false)
        view.contentOffset = CGPoint(x: 0, y: 1_000)
        XCTAssertEqual(prefetcher.adapter.lastState?.viewport, 1_000..<1_600)
        XCTAssertEqual(prefetcher.adapter.lastState?.phase, .dragging)
        XCTAssertEqual(prefetcher.adapter.lastState?.contentLength, 50_000)
        // The planned items are the data source's ids, not index paths
        XCTAssertTrue(prefetcher.controller.requestedItems.contains { $0.item == 1_012 })
        XCTAssertEqual(prefetcher.priority(at: IndexPath(indexes: [0, 12])).level, .visible)
        // A page of rows arrives: heard with the offset unchanged, the new length waits for the
        // offset that may keep the user's place, and the next step plans with it
        var snapshot = NSDiffableDataSourceSnapshot<Int, Int>()
        snapshot.appendSections([0])
        snapshot.appendItems(Array(1_000..<1_800))
        dataSource.apply(snapshot)
        XCTAssertEqual(prefetcher.adapter.lastState?.contentLength, 50_000)
        view.contentOffset = CGPoint(x: 0, y: 1_020)
        XCTAssertEqual(prefetcher.adapter.lastState?.contentLength, 80_000)
        // After detach nothing is observed and nothing is requested
        prefetcher.detach()
        XCTAssertEqual(prefetcher.controller.requestedCount, 0)
        view.contentOffset = CGPoint(x: 0, y: 3_000)
        XCTAssertEqual(prefetcher.adapter.lastState?.viewport, 1_020..<1_620)
        fetcher.shutdown()
        }
    }

    func testAPageScrollAnimatesAndVoiceOverHearsWhereItLanded() throws {
        try MainActor.assumeIsolated {
        let (view, dataSource, fetcher) = try Self.makeGrid(rows: 50)   // 5,000 pt: offsets 0…4,400
        let prefetcher = ScrollViewPrefetcher(collectionView: view, dataSource: dataSource, fetcher: fetcher)
        view.contentOffset = CGPoint(x: 0, y: 600)
        XCTAssertTrue(prefetcher.scrollPage(.forward))
        XCTAssertEqual(view.animatedOffsets, [CGPoint(x: 0, y: 1_200)])
        let before = UIAccessibility.posted.count
        view.contentOffset = CGPoint(x: 0, y: 1_200)   // the animation arrives
        XCTAssertEqual(UIAccessibility.posted.count, before + 1)
        XCTAssertEqual(UIAccessibility.posted.last?.0, .pageScrolled)
        XCTAssertEqual(UIAccessibility.posted.last?.1 as? String, "Page 3 of 9")
        fetcher.shutdown()
        }
    }

    func testAPlainDataSourceTargetForwardsRequestsToTheAppsPrefetching() throws {
        try MainActor.assumeIsolated {
        final class AppPrefetching: NSObject, UICollectionViewDataSourcePrefetching {
            var asked: [[IndexPath]] = []
            func collectionView(_ collectionView: UICollectionView, prefetchItemsAt indexPaths: [IndexPath]) { asked.append(indexPaths) }
        }
        let (view, _, fetcher) = try Self.makeGrid(rows: 100)
        let app = AppPrefetching()
        let target = PrefetchDataSourceTarget<IndexPath>(lookup: .indexPaths,
                                                         prefetch: { [unowned view] in app.collectionView(view, prefetchItemsAt: $0) },
                                                         cancelPrefetching: { _ in })
        let controller = PrefetchController(policy: PrefetchPolicies.adaptive, target: target)
        let prefetcher = ScrollViewPrefetcher(collectionView: view, lookup: .indexPaths, controller: controller)
        view.contentOffset = CGPoint(x: 0, y: 100)
        XCTAssertEqual(app.asked.first?.first, IndexPath(indexes: [0, 1]), "the most urgent first: the top visible row")
        prefetcher.detach()
        fetcher.shutdown()
        }
    }

    func testAMemoryWarningShrinksThePlanAndLowDataModeReachesTheController() throws {
        try MainActor.assumeIsolated {
        let (view, dataSource, fetcher) = try Self.makeGrid(rows: 500)
        let prefetcher = ScrollViewPrefetcher(collectionView: view, dataSource: dataSource, fetcher: fetcher)
        view.contentOffset = CGPoint(x: 0, y: 1_000)   // at rest: the visible rows and the window ahead
        func wanted() -> Int { fetcher.statistics.inFlight + fetcher.statistics.queued }
        XCTAssertGreaterThan(wanted(), 12)
        // UIKit's memory warning: at once, the fetcher is asked for the screen's rows only
        NotificationCenter.default.post(name: UIApplication.didReceiveMemoryWarningNotification, object: nil)
        XCTAssertTrue(prefetcher.controller.isUnderMemoryPressure)
        XCTAssertLessThanOrEqual(wanted(), 7)
        view.contentOffset = CGPoint(x: 0, y: 1_001)
        XCTAssertLessThanOrEqual(wanted(), 8)
        // Low Data Mode, as NWPathMonitor reports it, reaches the controller on the main actor
        let monitor = NetworkConditionsMonitor { prefetcher.controller.networkConditions = $0 }
        monitor.monitor.simulate(NWPath(isConstrained: true, isExpensive: false))
        XCTAssertEqual(prefetcher.controller.networkConditions, .constrained)
        monitor.monitor.simulate(NWPath(isConstrained: false, isExpensive: true))
        XCTAssertEqual(prefetcher.controller.networkConditions, .expensive)
        // Detached, the prefetcher hears no more warnings
        prefetcher.detach()
        let other = ScrollViewPrefetcher(collectionView: view, dataSource: dataSource, fetcher: fetcher)
        other.detach()
        NotificationCenter.default.post(name: UIApplication.didReceiveMemoryWarningNotification, object: nil)
        XCTAssertFalse(other.controller.isUnderMemoryPressure)
        fetcher.shutdown()
        }
    }
}
