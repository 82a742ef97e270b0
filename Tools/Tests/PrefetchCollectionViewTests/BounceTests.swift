import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

@MainActor
private final class PlainRows: TableViewDataSource {
    let count: Int
    init(count: Int) { self.count = count }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { count }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
}

/// `bounces`: a drag past an end rubber-bands as UIKit's does, and the content springs back when
/// the finger lifts; without it (the default) the offset stays in the content.
@Suite("Rubber-banding")
@MainActor
struct BounceTests {
    /// 100 rows of 66 pt (6,600 pt of content) in a 375 × 667 view, laid out at time 0.
    private func table(bounces: Bool, rows: PlainRows) -> TableView {
        let view = TableView(frame: CGRect(x: 0, y: 0, width: 375, height: 667))
        view.register(TableViewCell.self, forCellReuseIdentifier: "row")
        view.rowHeight = 66
        view.dataSource = rows
        view.bounces = bounces
        view.step(to: 0)
        return view
    }

    /// Drags by `speed` points per second for `frames` frames of 1/60 s from `start`; returns the offsets.
    private func drag(_ view: TableView, speed: Double, frames: Int, from start: Double) -> [Double] {
        (1...frames).map { frame in
            view.drag(by: speed / 60)
            view.step(to: start + Double(frame) / 60)
            return Double(view.contentOffset.y)
        }
    }

    @Test func aDragPastTheTopFollowsTheFingerEverLessAndSpringsBack() {
        let rows = PlainRows(count: 100)
        let view = table(bounces: true, rows: rows)
        // When the finger pulls the content down 420 pt past the top (0.6 s at 700 pt/s)
        let offsets = drag(view, speed: -700, frames: 36, from: 0)
        // Then the content follows below 0, less than the finger and ever less per frame
        let last = offsets.last ?? 0
        #expect(last < -100 && last > -420, "rubber-banded to \(last)")
        // UIKit's band for 420 pt past the end of a 667 pt view: (1 - 1 / (420 * 0.55 / 667 + 1)) * 667
        #expect(abs(last - -(1 - 1 / (420 * 0.55 / 667 + 1)) * 667) < 0.5)
        let steps = zip(offsets, offsets.dropFirst()).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 > 0 })
        #expect((steps.last ?? 0) < (steps.first ?? 0) * 0.75)
        #expect(view.isDragging)
        // When the finger lifts, the content springs back: decelerating, at the top within half a second
        view.endDragging()
        #expect(view.isDecelerating)
        view.step(to: 0.6 + 0.25)
        let halfway = Double(view.contentOffset.y)
        #expect(halfway > last && halfway < 0)
        view.step(to: 0.6 + 0.5)
        #expect(abs(Double(view.contentOffset.y)) < 1e-6)
        #expect(!view.isDecelerating && !view.isDragging)
    }

    @Test func aDragPastTheBottomSpringsBackToTheEnd() {
        let rows = PlainRows(count: 100)
        let view = table(bounces: true, rows: rows)
        let end = 100 * 66.0 - 667
        view.setContentOffset(CGPoint(x: 0, y: end), animated: false)
        let offsets = drag(view, speed: 800, frames: 30, from: 0)
        #expect((offsets.last ?? 0) > end + 50)
        // A fling while past the end springs back too: the content does not coast on beyond it
        view.fling(velocity: 3_000)
        #expect(view.isDecelerating)
        view.step(to: 0.5 + 0.5)
        #expect(abs(Double(view.contentOffset.y) - end) < 1e-6)
    }

    @Test func aFingerThatCatchesTheSpringHoldsTheContentWhereItShows() {
        let rows = PlainRows(count: 100)
        let view = table(bounces: true, rows: rows)
        _ = drag(view, speed: -700, frames: 36, from: 0)
        view.endDragging()
        view.step(to: 0.7)
        let shown = Double(view.contentOffset.y)
        // When a finger touches down again and holds still, the content stays where it showed
        view.drag(by: 0)
        view.step(to: 0.72)
        #expect(abs(Double(view.contentOffset.y) - shown) < 1e-6)
    }

    @Test func withoutBouncesTheOffsetStaysInTheContent() {
        let rows = PlainRows(count: 100)
        let view = table(bounces: false, rows: rows)
        let offsets = drag(view, speed: -700, frames: 36, from: 0)
        #expect(offsets.allSatisfy { $0 == 0 })
        view.endDragging()
        #expect(!view.isDecelerating)
    }
}
