import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchUIKit
import Testing

/// Rows whose cells know their own heights, as self-sizing `UITableViewCell`s do with Auto Layout.
@MainActor
private final class SizedRows: TableViewDataSource, TableViewDelegate {
    var heights: [Double]
    /// Rows the delegate sizes itself (`heightForRowAt`), by row.
    var delegateHeights: [Int: Double] = [:]
    var cellRequests: [Int] = []
    init(heights: [Double]) { self.heights = heights }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { heights.count }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        cellRequests.append(indexPath.row)
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.fittingHeight = heights[indexPath.row]
        return cell
    }
    func tableView(_ tableView: TableView, heightForRowAt indexPath: IndexPath) -> Double {
        delegateHeights[indexPath.row] ?? TableView.automaticDimension
    }
}

/// What a scroll observer (an app's `ScrollViewPrefetcher`) hears, in order.
@MainActor
private final class Heard {
    var events: [(offset: Double, content: Double, layoutChanged: Bool)] = []
}

/// `TableView.estimatedRowHeight`: rows laid out at an estimate until they come on screen, then at
/// their cells' heights; what is on screen stays in place when rows above it are measured.
@Suite("Self-sizing rows")
@MainActor
struct SelfSizingTests {
    /// 1,000 rows alternating 60 and 300 pt (180 on average) in a 375 × 667 view, estimated at 100 pt.
    private func table(_ rows: SizedRows, estimate: Double = 100) -> TableView {
        let view = TableView(frame: CGRect(x: 0, y: 0, width: 375, height: 667))
        view.register(TableViewCell.self, forCellReuseIdentifier: "row")
        view.estimatedRowHeight = estimate
        view.delegate = rows
        view.dataSource = rows
        return view
    }

    private static func heights(_ count: Int = 1_000) -> [Double] { (0..<count).map { $0 % 2 == 0 ? 60 : 300 } }

    private func listen(to view: TableView) -> (Heard, @MainActor () -> Void) {
        let heard = Heard()
        let stop = view.observeScrolling(SurfaceEvents(
            changed: { [weak view] layout in
                MainActor.assumeIsolated {
                    guard let view, let reading = view.reading(along: .vertical) else { return }
                    heard.events.append((reading.offset, reading.contentLength, layout))
                }
            },
            dragBegan: {}, dragEnded: { _ in }, memoryWarning: {}))
        return (heard, stop)
    }

    @Test func rowsOnScreenTakeTheirCellsHeightsAndTheRestKeepTheEstimate() {
        let rows = SizedRows(heights: Self.heights())
        let view = table(rows)
        view.step(to: 0)
        view._checkInvariants()
        // At the estimate rows 0-6 were on screen, so all seven were measured (1,140 pt); at their
        // own heights rows 0-3 fill the screen.
        #expect(view.indexPathsForVisibleRows.map(\.row) == [0, 1, 2, 3])
        #expect(view.rectForRow(at: IndexPath(row: 1, section: 0)) == CGRect(x: 0, y: 60, width: 375, height: 300))
        #expect(view.rectForRow(at: IndexPath(row: 6, section: 0))?.height == 60)
        // Every row below keeps the estimate.
        #expect(view.rectForRow(at: IndexPath(row: 7, section: 0)) == CGRect(x: 0, y: 1_140, width: 375, height: 100))
        #expect(Double(view.contentSize.height) == 1_140.0 + 993 * 100)
        // Each row's cell was asked for once.
        #expect(rows.cellRequests.sorted() == Array(0...6))
    }

    @Test func scrollingDownGrowsTheContentBelowAndKeepsTheOffset() {
        let rows = SizedRows(heights: Self.heights())
        let view = table(rows)
        view.step(to: 0)
        let (heard, stop) = listen(to: view)
        defer { stop() }
        var expected = 0.0
        for frame in 1...120 {
            view.drag(by: 20)
            expected += 20
            view.step(to: Double(frame) / 60)
            view._checkInvariants()
            // The finger's offset, exactly: rows measured below the top never move the content.
            #expect(Double(view.contentOffset.y) == expected)
        }
        // Every row on screen has its own height; rows far below keep the estimate; the content is
        // the sum of what the rows are now.
        for indexPath in view.indexPathsForVisibleRows {
            #expect(view.rectForRow(at: indexPath)?.height == CGFloat(Self.heights()[indexPath.row]))
        }
        #expect(view.rectForRow(at: IndexPath(row: 900, section: 0))?.height == 100)
        let rowsNow = (0..<1_000).map { view.rectForRow(at: IndexPath(row: $0, section: 0))!.height }.reduce(0, +)
        #expect(abs(view.contentSize.height - rowsNow) < 1e-6)
        #expect(heard.events.contains { $0.layoutChanged })
    }

    @Test func rowsMeasuredAboveTheScreenMoveTheOffsetSoTheScreenStaysPut() throws {
        let rows = SizedRows(heights: Self.heights())
        let view = table(rows)
        view.step(to: 0)
        // A jump far down: row 500 at the top, where the estimates put it (4 measured rows + 496 × 100).
        try view.scrollToRow(at: IndexPath(row: 500, section: 0), at: .top, animated: false)
        view.step(to: 0.1)
        view._checkInvariants()
        #expect(view.indexPathsForVisibleRows.first?.row == 500)
        let (heard, stop) = listen(to: view)
        defer { stop() }
        // Dragging up over rows never measured: each row coming in at the top is measured, and the
        // offset moves by its change in the same frame, so the row that was on top stays where it was.
        for frame in 1...60 {
            let anchor = view.indexPathsForVisibleRows.last!
            let anchorOnScreen = view.rectForRow(at: anchor)!.minY - view.contentOffset.y
            view.drag(by: -15)
            view.step(to: 0.1 + Double(frame) / 60)
            view._checkInvariants()
            let moved = view.rectForRow(at: anchor)!.minY - view.contentOffset.y - anchorOnScreen
            #expect(abs(moved - 15) < 1e-6, "frame \(frame): the bottom row moved \(moved) pt on screen for a 15 pt drag")
        }
        // The observer heard each measurement as a content-size change at the old offset, then the offset's move.
        let changes = heard.events.indices.filter { heard.events[$0].layoutChanged }
        #expect(!changes.isEmpty)
        for index in changes where index + 1 < heard.events.count && !heard.events[index + 1].layoutChanged {
            let (change, next) = (heard.events[index], heard.events[index + 1])
            #expect(index == 0 || change.offset == heard.events[index - 1].offset)
            #expect(next.content == change.content)
        }
    }

    @Test func measuredHeightsFollowTheirRowsThroughInsertsAndAReloadForgetsThem() throws {
        let rows = SizedRows(heights: Self.heights(200))
        let view = table(rows)
        view.step(to: 0)
        #expect(view.rectForRow(at: IndexPath(row: 1, section: 0))?.height == 300)
        // Two rows inserted at the top, estimated until shown: row 1's measurement moves to row 3.
        rows.heights.insert(contentsOf: [80, 80], at: 0)
        try view.performBatchUpdates { view.insertRows(at: [IndexPath(row: 0, section: 0), IndexPath(row: 1, section: 0)]) }
        #expect(view.rectForRow(at: IndexPath(row: 3, section: 0))?.height == 300)
        // A reload forgets every measurement; the next pass measures the rows on screen again.
        view.reloadData()
        #expect(view.rectForRow(at: IndexPath(row: 3, section: 0))?.height == 100)
        view.step(to: 0.1)
        view._checkInvariants()
        #expect(view.rectForRow(at: IndexPath(row: 1, section: 0))?.height == 80)
    }

    @Test func theDelegatesHeightWinsAndZeroTurnsSelfSizingOff() {
        let rows = SizedRows(heights: Self.heights(100))
        rows.delegateHeights[1] = 44
        let view = table(rows)
        view.step(to: 0)
        #expect(view.rectForRow(at: IndexPath(row: 1, section: 0))?.height == 44)
        #expect(view.rectForRow(at: IndexPath(row: 2, section: 0))?.height == 60)
        view.estimatedRowHeight = 0
        view.step(to: 0.1)
        #expect(view.rectForRow(at: IndexPath(row: 2, section: 0))?.height == CGFloat(view.rowHeight))
        #expect(Double(view.contentSize.height) == 99 * view.rowHeight + 44)
    }
}
