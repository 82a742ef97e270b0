import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

/// Forwards to a layout and counts the items it hands out: the view's per-frame work.
@MainActor
private final class CountingLayout: CollectionLayout {
    let base: any CollectionLayout
    var itemsVisited = 0
    init(_ base: any CollectionLayout) { self.base = base }
    func prepare(_ environment: LayoutEnvironment) throws { try base.prepare(environment) }
    var contentSize: CGSize { base.contentSize }
    func frameForItem(at indexPath: IndexPath) -> CGRect? {
        itemsVisited += 1
        return base.frameForItem(at: indexPath)
    }
    func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void) {
        base.forEachItem(in: rect) { indexPath, frame in
            itemsVisited += 1
            body(indexPath, frame)
        }
    }
}

@MainActor
private final class CountOnly: CollectionViewDataSource, CollectionViewDataSourcePrefetching {
    let count: Int
    var prefetched = 0
    init(count: Int) { self.count = count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { count }
    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        collectionView.dequeueReusableCell(withReuseIdentifier: "c", for: indexPath)
    }
    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) { prefetched += indexPaths.count }
}

@Suite("Frame cost")
@MainActor
struct FrameCostTests {
    /// Runs the same gestures on a grid of `count` items; returns the layout work and the callbacks.
    private func run(count: Int) throws -> (visited: Int, events: [ItemViewEvent]) {
        let layout = CountingLayout(try FlowLayout(itemSize: CGSize(width: 150, height: 100)))
        let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 343, height: 333), collectionViewLayout: layout)
        collectionView.register(CollectionViewCell.self, forCellWithReuseIdentifier: "c")
        let dataSource = CountOnly(count: count)
        collectionView.dataSource = dataSource
        collectionView.prefetchDataSource = dataSource
        collectionView.prefetchPolicy = PrefetchPolicies.textureLike
        let recorder = EventRecorder()
        recorder.attach(to: collectionView)
        collectionView.setContentOffset(CGPoint(x: 0, y: 20_000), animated: false)
        collectionView.step(to: 0)
        layout.itemsVisited = 0
        for frame in 1...120 {
            if frame == 1 { collectionView.fling(velocity: 4000) }
            if frame == 60 { collectionView.fling(velocity: -3000) }
            collectionView.step(to: Double(frame) / 60)
        }
        #expect(dataSource.prefetched > 0)
        return (layout.itemsVisited, recorder.events)
    }

    @Test func aFrameOnTenMillionItemsDoesTheSameWorkAsOnAThousand() throws {
        // Given the same gestures on 1,000 and on 10,000,000 items, away from the content's end
        let small = try run(count: 1_000)
        let huge = try run(count: 10_000_000)
        // Then the layout hands out exactly as many items, and the callbacks are the same:
        // the per-frame work depends on what is on and near the screen, not on the item count.
        #expect(small.visited == huge.visited)
        #expect(small.events == huge.events)
        #expect(small.visited < 120 * 100)
    }
}
