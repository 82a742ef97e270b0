import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import Testing

@MainActor
private final class DisplayTracker: CollectionViewDelegate {
    var displayed: [IndexPath: ObjectIdentifier] = [:]
    var pairs = 0
    var errors: [String] = []

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        if displayed[indexPath] != nil { errors.append("willDisplay twice for \(indexPath)") }
        displayed[indexPath] = ObjectIdentifier(cell)
    }

    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        if displayed.removeValue(forKey: indexPath) != ObjectIdentifier(cell) { errors.append("didEndDisplaying without willDisplay for \(indexPath)") }
        pairs += 1
    }
}

@Suite("Cell lifecycle")
@MainActor
struct CellLifecycleTests {
    @Test func willDisplayAndDidEndDisplayingComeInPairs() throws {
        let (collectionView, dataSource, _) = try makeSeedCollectionView()
        let tracker = DisplayTracker()
        collectionView.delegate = tracker
        _ = runFrames(collectionView, dataSource, from: 0, count: 200) { frame in
            collectionView.drag(by: frame < 120 ? 15 : -20)
        }
        #expect(tracker.errors.isEmpty)
        #expect(tracker.pairs > 20)
        #expect(Set(tracker.displayed.keys) == Set(collectionView.indexPathsForVisibleItems))
    }

    @Test func cellsArePreparedAheadAndSomeAreNeverDisplayed() throws {
        // Given a view scrolling down slowly
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView()
        _ = runFrames(collectionView, dataSource, from: 0, count: 3) { _ in collectionView.drag(by: 2) }
        // Then cells below the screen were requested before display
        let prepared = collectionView.indexPathsForPreparedItems
        #expect(!prepared.isEmpty)
        let bottom = collectionView.contentOffset.y + 333
        #expect(prepared.allSatisfy { collectionView.frameForItem(at: $0)!.minY >= bottom })
        // When it jumps far away, the prepared cells go back to the pool without being displayed
        collectionView.setContentOffset(CGPoint(x: 0, y: 5000), animated: false)
        let displayed = Set(recorder.events(.willDisplay).map(\.indexPath))
        #expect(prepared.contains { !displayed.contains($0) })
        #expect(collectionView.reusePoolCount > 0)
        collectionView._checkInvariants()
    }

    @Test func reusedCellsArePreparedForReuse() throws {
        let (collectionView, dataSource, recorder) = try makeSeedCollectionView()
        _ = runFrames(collectionView, dataSource, from: 0, count: 120) { _ in collectionView.drag(by: 20) }
        let cells = collectionView.visibleCells.compactMap { $0 as? Cell }
        let totalReuses = cells.reduce(0) { $0 + $1.reuseCount }
        #expect(totalReuses > 0)
        // Far fewer cells than requests: the pool recycles them.
        let distinctCells = Set(collectionView.visibleCells.map { ObjectIdentifier($0) }).count
        #expect(distinctCells <= recorder.events(.cellRequest).count)
        #expect(collectionView.visibleCells.allSatisfy { $0.reuseIdentifier == Cell.reuseIdentifier && $0.isDisplayed })
    }

    @Test func cellForItemReturnsOnlyDisplayedCells() throws {
        let (collectionView, _, _) = try makeSeedCollectionView()
        collectionView.step(to: 0)
        #expect(collectionView.cellForItem(at: IndexPath(item: 0, section: 0)) != nil)
        #expect(collectionView.cellForItem(at: IndexPath(item: 50, section: 0)) == nil)
        #expect(collectionView.cellForItem(at: IndexPath(item: 5000, section: 0)) == nil)
        let cell = try #require(collectionView.cellForItem(at: IndexPath(item: 3, section: 0)))
        #expect(collectionView.indexPath(for: cell) == IndexPath(item: 3, section: 0))
        #expect(cell.frame == collectionView.frameForItem(at: IndexPath(item: 3, section: 0)))
    }

    @Test func negativeSizesAndNonFiniteOffsetsTrap() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                _ = CollectionView(frame: CGRect(x: 0, y: 0, width: -10, height: 100), collectionViewLayout: try! FlowLayout())
            }
        }
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let view = CollectionView(frame: CGRect(x: 0, y: 0, width: 100, height: 100), collectionViewLayout: try! FlowLayout())
                view.setContentOffset(CGPoint(x: 0, y: Double.nan), animated: false)
            }
        }
    }

    @Test func dequeuingAnUnregisteredIdentifierTrapsNamingIt() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let layout = try! FlowLayout()
                let view = CollectionView(frame: CGRect(x: 0, y: 0, width: 100, height: 100), collectionViewLayout: layout)
                _ = view.dequeueReusableCell(withReuseIdentifier: "missing", for: IndexPath(item: 0, section: 0))
            }
        }
    }
}

@Suite("Scrolling")
@MainActor
struct ScrollingTests {
    @Test func flingDeceleratesAsUIKitDoes() throws {
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 10_000)
        collectionView.step(to: 0)
        collectionView.fling(velocity: 2000)
        collectionView.step(to: 0.1)
        // v(100 ms) = 2000 · 0.998^100
        #expect(abs(collectionView.velocity - 2000 * pow(0.998, 100)) < 1e-6)
        #expect(abs(collectionView.contentOffset.y - Deceleration.distance(from: 2000, afterMilliseconds: 100, rate: DecelerationRate.normal.rawValue)) < 1e-6)
        #expect(collectionView.isDecelerating && collectionView.velocity > 0)
        // It comes to rest near the predicted distance.
        var time = 0.1
        while collectionView.isDecelerating, time < 10 {
            time += 1.0 / 60
            collectionView.step(to: time)
            collectionView._checkInvariants()
        }
        #expect(!collectionView.isDecelerating && collectionView.velocity == 0)
        #expect(abs(collectionView.contentOffset.y - Deceleration.restingDistance(from: 2000, rate: DecelerationRate.normal.rawValue)) < 1)
    }

    @Test func fastRateStopsSooner() throws {
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 10_000)
        collectionView.decelerationRate = .fast
        collectionView.step(to: 0)
        collectionView.fling(velocity: 2000)
        for frame in 1...120 { collectionView.step(to: Double(frame) / 60) }
        #expect(abs(collectionView.contentOffset.y - Deceleration.restingDistance(from: 2000, rate: DecelerationRate.fast.rawValue)) < 1)
        #expect(throws: PrefetchError.self) { _ = try DecelerationRate(rawValue: 1.5) }
    }

    @Test func offsetsAreClampedToTheContent() throws {
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 10)
        collectionView.step(to: 0)
        collectionView.setContentOffset(CGPoint(x: 0, y: 1e9), animated: false)
        #expect(Double(collectionView.contentOffset.y) == Double(collectionView.contentSize.height) - 333)
        collectionView.setContentOffset(CGPoint(x: 0, y: -50), animated: false)
        #expect(collectionView.contentOffset.y == 0)
        collectionView.fling(velocity: -5000)
        collectionView.step(to: 0.1)
        #expect(collectionView.contentOffset.y == 0 && !collectionView.isDecelerating)
        collectionView._checkInvariants()
    }

    @Test func contentInsetExtendsTheScrollRange() throws {
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 10)
        collectionView.contentInset = ContentInsets(top: 40, bottom: 20)
        collectionView.setContentOffset(CGPoint(x: 0, y: -1000), animated: false)
        collectionView.step(to: 0)
        #expect(collectionView.contentOffset.y == -40)
        #expect(collectionView.contentOffsetRange.upperBound == Double(collectionView.contentSize.height) + 20 - 333)
        collectionView._checkInvariants()
    }

    @Test func animatedScrollReachesItsTargetOverFrames() throws {
        let (collectionView, _, _) = try makeSeedCollectionView()
        collectionView.step(to: 0)
        try collectionView.scrollToItem(at: IndexPath(item: 100, section: 0), at: .top, animated: true)
        collectionView.step(to: 0.1)
        let midway = collectionView.contentOffset.y
        #expect(midway > 0 && midway < 5510)
        #expect(collectionView.isScrollAnimating && collectionView.velocity > 0)
        collectionView.step(to: 0.2)
        collectionView.step(to: 0.4)
        #expect(collectionView.contentOffset.y == 5510)
        #expect(!collectionView.isScrollAnimating)
        #expect(collectionView.indexPathsForVisibleItems.first == IndexPath(item: 100, section: 0))
    }

    @Test func scrollToItemOutOfRangeThrowsNamingTheIndexPath() throws {
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 10)
        #expect {
            try collectionView.scrollToItem(at: IndexPath(item: 12, section: 0), at: .top, animated: false)
        } throws: { error in
            guard let error = error as? PrefetchError else { return false }
            return error.code == .invalidArgument && error.message.contains("[0, 12]") && error.message.contains("10 items")
        }
        #expect(throws: PrefetchError.self) { try collectionView.scrollToItem(at: IndexPath(item: 0, section: 3), at: .top, animated: false) }
    }

    @Test func dragVelocityAndDirectionAreReadable() throws {
        let (collectionView, _, _) = try makeSeedCollectionView()
        collectionView.step(to: 0)
        collectionView.drag(by: 10)
        collectionView.step(to: 0.01)
        #expect(abs(collectionView.velocity - 1000) < 1e-9)
        #expect(collectionView.isDragging && collectionView.velocity > 0)
        collectionView.drag(by: -5)
        collectionView.step(to: 0.02)
        #expect(collectionView.velocity < 0)
        collectionView.endDragging()
        collectionView.step(to: 0.03)
        #expect(collectionView.velocity == 0 && !collectionView.isDragging)
    }

    @Test func tenMillionItemGridScrollsWithCorrectVisibleItems() throws {
        // Given ten million items (the layout stores nothing per item)
        let (collectionView, dataSource, _) = try makeSeedCollectionView(itemCount: 10_000_000)
        // When it jumps to the middle and flings
        try collectionView.scrollToItem(at: IndexPath(item: 5_000_000, section: 0), at: .top, animated: false)
        let problems = runFrames(collectionView, dataSource, from: 0, count: 30) { frame in
            if frame == 0 { collectionView.fling(velocity: 6000) }
        }
        // Then the visible items are the arithmetic answer and the cells are right
        #expect(problems.isEmpty)
        let top = collectionView.contentOffset.y
        let firstRow = Int(((top - 10 - 100) / 110).rounded(.down)) + 1
        let lastRow = Int(((top + 333 - 10) / 110).rounded(.up)) - 1
        let expected = (firstRow...lastRow).flatMap { [2 * $0, 2 * $0 + 1] }.map { IndexPath(item: $0, section: 0) }
        #expect(collectionView.indexPathsForVisibleItems == expected)
        #expect(top > 5_000_000 / 2 * 110)
    }
}
