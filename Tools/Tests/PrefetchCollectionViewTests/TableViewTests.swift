import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

@MainActor
private final class Rows: TableViewDataSource, TableViewDataSourcePrefetching, TableViewDelegate {
    var count: Int
    var heights: [Double]?
    var prefetched: [IndexPath] = []
    var cancelled: [IndexPath] = []
    var displayed: [IndexPath] = []
    init(count: Int, heights: [Double]? = nil) {
        self.count = count
        self.heights = heights
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { count }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) { prefetched += indexPaths }
    func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) { cancelled += indexPaths }
    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) { displayed.append(indexPath) }
    func tableView(_ tableView: TableView, heightForRowAt indexPath: IndexPath) -> Double {
        heights.map { $0[indexPath.row] } ?? TableView.automaticDimension
    }
}

@Suite("Table view")
@MainActor
struct TableViewTests {
    @Test func tutorialTableShowsAndPrefetchesRows() throws {
        // Given the tutorial's table: 100 rows of 66 points
        let tableView = TableView(frame: CGRect(x: 0, y: 0, width: 375, height: 667))
        tableView.register(TableViewCell.self, forCellReuseIdentifier: "row")
        tableView.rowHeight = 66
        let rows = Rows(count: 100)
        tableView.dataSource = rows
        tableView.prefetchDataSource = rows
        tableView.delegate = rows
        tableView.step(to: 0)
        tableView._checkInvariants()
        // Then rows 0...10 are visible and the next 0.75 screen is prefetched
        #expect(tableView.indexPathsForVisibleRows == (0...10).map { IndexPath(row: $0, section: 0) })
        #expect(rows.prefetched.map(\.row) == Array(11...17))   // 0.75 × 667 = 500 points below the screen
        #expect(tableView.rectForRow(at: IndexPath(row: 2, section: 0)) == CGRect(x: 0, y: 132, width: 375, height: 66))
        // When it scrolls up after going down, rows ahead are cancelled
        for frame in 1...30 {
            tableView.drag(by: frame < 20 ? 30 : -30)
            tableView.step(to: Double(frame) / 60)
            tableView._checkInvariants()
        }
        #expect(!rows.cancelled.isEmpty)
        #expect(Set(rows.displayed).isSuperset(of: tableView.indexPathsForVisibleRows))
    }

    @Test func perRowHeightsFromTheDelegate() throws {
        let heights = (0..<500).map { Double(20 + ($0 * 37) % 80) }
        let tableView = TableView(frame: CGRect(x: 0, y: 0, width: 320, height: 480))
        tableView.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let rows = Rows(count: 500, heights: heights)
        tableView.delegate = rows
        tableView.dataSource = rows
        try tableView.scrollToRow(at: IndexPath(row: 250, section: 0), at: .top, animated: false)
        tableView.step(to: 0)
        tableView._checkInvariants()
        let top = heights[..<250].reduce(0, +)
        #expect(abs(tableView.contentOffset.y - top) < 1e-6)
        #expect(tableView.indexPathsForVisibleRows.first == IndexPath(row: 250, section: 0))
        #expect(abs(tableView.contentSize.height - heights.reduce(0, +)) < 1e-6)
        #expect(throws: PrefetchError.self) { try tableView.scrollToRow(at: IndexPath(row: 500, section: 0), at: .top, animated: false) }
    }

    @Test func rowBatchUpdates() throws {
        let tableView = TableView(frame: CGRect(x: 0, y: 0, width: 320, height: 480))
        tableView.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let rows = Rows(count: 30)
        tableView.dataSource = rows
        tableView.step(to: 0)
        let cell = try #require(tableView.cellForRow(at: IndexPath(row: 4, section: 0)))
        try tableView.performBatchUpdates {
            rows.count = 29
            tableView.deleteRows(at: [IndexPath(row: 0, section: 0), IndexPath(row: 1, section: 0)])
            tableView.insertRows(at: [IndexPath(row: 10, section: 0)])
        }
        tableView._checkInvariants()
        #expect(tableView.indexPath(for: cell) == IndexPath(row: 2, section: 0))
        #expect(tableView.numberOfRows(inSection: 0) == 29)
    }
}
