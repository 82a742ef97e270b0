import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import Testing

@Suite("Prefetch contract")
@MainActor
struct PrefetchContractTests {
    @Test func firstLayoutEmitsTheInitialWindowNearestFirst() throws {
        // Given Apple's sample's view at rest
        let (collectionView, _, recorder) = try makeSeedCollectionView()
        // When it lays out for the first time
        collectionView.step(to: 0)
        collectionView._checkInvariants()
        // Then the window of 0.75 viewport below the screen is prefetched, nearest row first
        let prefetched = recorder.events(.prefetch).map(\.indexPath.item)
        #expect(prefetched == [6, 7, 8, 9, 10, 11])
        #expect(Set(prefetched).isDisjoint(with: collectionView.indexPathsForVisibleItems.map(\.item)))
        #expect(recorder.events(.willDisplay).count == 6)
        #expect(recorder.events.allSatisfy { $0.time == 0 })
    }

    @Test func visibleItemsAreNeverPrefetchedAndItemsArePrefetchedOnceUntilCancelledOrDisplayed() throws {
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView()
        var pending = Set<IndexPath>()
        collectionView.onEvent = { [weak recorder] event in
            recorder?.record(event)
            switch event.kind {
            case .prefetch:
                #expect(!pending.contains(event.indexPath), "\(event.indexPath) prefetched twice")
                #expect(collectionView.cellForItem(at: event.indexPath) == nil)
                pending.insert(event.indexPath)
            case .cancelPrefetch: pending.remove(event.indexPath)
            case .willDisplay: pending.remove(event.indexPath)
            default: break
            }
        }
        // When the view scrolls down, stops, and scrolls back up
        let problems = runFrames(collectionView, dataSource, from: 0, count: 240) { frame in
            if frame < 100 { collectionView.drag(by: 12) } else if frame == 100 { collectionView.endDragging() } else if frame > 140 { collectionView.drag(by: -9) }
        }
        #expect(problems.isEmpty)
        #expect(recorder.events(.prefetch).count > 30)
        #expect(Set(collectionView.indexPathsPendingPrefetch) == pending)
    }

    @Test func directionReversalCancelsTheItemsAhead() throws {
        // Given a view scrolling down with its window below the screen
        // (loads of 1 s, so they are in flight; no prepared cells, so no cell holds them)
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView(latency: { _ in 1 })
        collectionView.cellPreparationDistance = 0
        _ = runFrames(collectionView, dataSource, from: 0, count: 30) { _ in collectionView.drag(by: 10) }
        let ahead = Set(collectionView.indexPathsPendingPrefetch)
        let top = collectionView.contentOffset.y
        #expect(!ahead.isEmpty)
        #expect(ahead.allSatisfy { collectionView.frameForItem(at: $0)!.minY >= top + 333 })
        recorder.removeAll()
        // When it reverses
        _ = runFrames(collectionView, dataSource, from: 0.5, count: 1) { _ in collectionView.drag(by: -10) }
        // Then every item that was ahead is cancelled, and the new window is above the screen
        #expect(Set(recorder.events(.cancelPrefetch).map(\.indexPath)) == ahead)
        let newTop = collectionView.contentOffset.y
        #expect(collectionView.indexPathsPendingPrefetch.allSatisfy { collectionView.frameForItem(at: $0)!.maxY <= newTop })
        #expect(dataSource.asyncFetcher.cancelled.count == ahead.count)
    }

    @Test func prefetchingOffStopsBothCellPreparationAndDataPrefetch() throws {
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView()
        collectionView.isPrefetchingEnabled = false
        _ = runFrames(collectionView, dataSource, from: 0, count: 60) { _ in collectionView.drag(by: 8) }
        #expect(recorder.events(.prefetch).isEmpty)
        #expect(collectionView.indexPathsForPreparedItems.isEmpty)
        // Every cell request is for an item that becomes visible in the same frame.
        let requests = recorder.events(.cellRequest)
        let displays = recorder.events(.willDisplay)
        #expect(requests.map(\.indexPath) == displays.map(\.indexPath))
        #expect(zip(requests, displays).allSatisfy { $0.time == $1.time })
    }

    @Test func turningPrefetchingOffCancelsPendingItems() throws {
        let (collectionView, _, recorder) = try makeSeedCollectionView()
        collectionView.step(to: 0)
        let pending = collectionView.indexPathsPendingPrefetch
        #expect(!pending.isEmpty)
        collectionView.isPrefetchingEnabled = false
        #expect(recorder.events(.cancelPrefetch).map(\.indexPath) == pending)
        collectionView._checkInvariants()
    }

    @Test func nilPrefetchDataSourceStillPreparesCells() throws {
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView()
        collectionView.prefetchDataSource = nil
        _ = runFrames(collectionView, dataSource, from: 0, count: 20) { _ in collectionView.drag(by: 8) }
        #expect(recorder.events(.prefetch).isEmpty)
        #expect(!collectionView.indexPathsForPreparedItems.isEmpty)
        let visible = Set(collectionView.indexPathsForVisibleItems)
        #expect(collectionView.indexPathsForPreparedItems.allSatisfy { !visible.contains($0) })
    }

    @Test func policyGetsTheLatencyThePrioritizedPrefetchDataSourceReports() throws {
        struct Spy: PrefetchPolicy {
            let seen: @Sendable (ScrollContext) -> Void
            var name: String { "spy" }
            func plan(for context: ScrollContext) -> PrefetchPlan {
                seen(context)
                return .empty
            }
        }
        // Given a view whose prioritized prefetch data source has measured 500 ms (more than a
        // quarter away from the 300 ms fallback, so the view plans with it)
        let (collectionView, _, _) = try makeSeedCollectionView()
        let prefetcher = RecordingPrefetcher()
        prefetcher.expectedLatency = .milliseconds(500)
        collectionView.prefetchDataSource = prefetcher
        let contexts = Locked<[ScrollContext]>([])
        collectionView.prefetchPolicy = Spy { context in contexts.withLock { $0.append(context) } }
        // When it lays out
        collectionView.step(to: 0)
        // Then the policy plans with that latency, the viewport and the content
        let context = try #require(contexts.withLock { $0.last })
        #expect(context.expectedLatency == .milliseconds(500))
        #expect(context.viewport == 0..<333)
        #expect(context.contentLength == Double(collectionView.contentSize.height))
        #expect(context.phase == .idle)
    }

    @Test func atRestTheWindowOnBothSidesIsPrefetchedNearestFirst() throws {
        // Given textureLike (2.5 screens below, 1.5 above) at rest in the middle of the grid
        let (collectionView, _, recorder) = try makeSeedCollectionView()
        collectionView.prefetchPolicy = PrefetchPolicies.textureLike
        collectionView.setContentOffset(CGPoint(x: 0, y: 2200), animated: false)
        collectionView.step(to: 0)
        let prefetched = recorder.events(.prefetch).map(\.indexPath)
        let frames = prefetched.map { collectionView.frameForItem(at: $0)! }
        let top = collectionView.contentOffset.y
        // Then both sides are prefetched, and the controller ranks them by distance from the
        // viewport whichever side they lie on: no motion says one side comes first.
        func distance(_ frame: CGRect) -> Double { frame.minY >= top + 333 ? frame.minY - (top + 333) : top - frame.maxY }
        #expect(frames.contains { $0.minY >= top + 333 + 2 * 333 })
        #expect(frames.contains { $0.maxY <= top - 333 })
        #expect(frames.allSatisfy { $0.minY >= top + 333 || $0.maxY <= top })
        #expect(frames.map(distance) == frames.map(distance).sorted())
    }

    @Test(arguments: [true, false])
    func anAnimatedScrollTellsTheControllerItsDestinationWhichLoadsFirst(byItem: Bool) throws {
        // Given Apple's sample's grid at rest at the top (rows 110 pt apart from y 10, two items a row),
        // with a prioritized prefetch data source and uikitLike
        let (collectionView, _, _) = try makeSeedCollectionView()
        let prefetcher = RecordingPrefetcher()
        collectionView.prefetchDataSource = prefetcher
        collectionView.prefetchPolicy = PrefetchPolicies.uikitLike
        collectionView.step(to: 0)
        // When it scrolls, animated, to item 100 (row 50, at y 5,510)
        if byItem {
            try collectionView.scrollToItem(at: IndexPath(item: 100, section: 0), at: .top, animated: true)
        } else {
            collectionView.setContentOffset(CGPoint(x: 0, y: 5_510), animated: true)
        }
        // Then the call's own layout pass gives the controller the destination
        #expect(collectionView.scrollState.phase == .programmatic(targetOffset: 5_510, duration: .seconds(0.3)))
        // And the most urgent requests are the destination's cells, rows 50–53 (5,510..<5,843),
        // items 100–107, at visible priority (what the user asked to see), in order of arrival;
        // the cells on screen now leave within milliseconds and come last
        let update = try #require(prefetcher.updates.last)
        #expect(update.requests.prefix(8).map(\.item.item) == Array(100...107))
        #expect(update.requests.prefix(8).allSatisfy { $0.priority.level == .visible })
        #expect(update.requests.filter { $0.item.item < 8 }.allSatisfy { $0.priority.level == .background })
        #expect(prefetcher.requested.keys.allSatisfy { $0.item < 8 || $0.item >= 100 })
    }
}
