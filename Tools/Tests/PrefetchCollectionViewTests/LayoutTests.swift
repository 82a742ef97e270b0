import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing

@MainActor
private func bruteForce(_ layout: any CollectionLayout, counts: [Int], rect: CGRect) -> [IndexPath] {
    var result: [IndexPath] = []
    for (section, count) in counts.enumerated() {
        for item in 0..<count {
            let indexPath = IndexPath(item: item, section: section)
            if let frame = layout.frameForItem(at: indexPath), frame.overlapsWithPositiveArea(rect) { result.append(indexPath) }
        }
    }
    return result
}

@Suite("Layouts")
@MainActor
struct LayoutTests {
    /// The layouts and `IndexPath(item:section:)` build index paths as an inline pair; apps
    /// build them from arrays. Both must be the same key: equal, hashed alike, found in each
    /// other's tables, and ordered alike.
    @Test func pairIndexPathsAreTheSameKeysAsArrayBuiltOnes() throws {
        let cases = [(0, 0), (0, 7), (3, 0), (2, 5), (1, 9_999_999)]
        var byArray: [IndexPath: Int] = [:]
        for (n, (section, item)) in cases.enumerated() { byArray[IndexPath(indexes: [section, item])] = n }
        for (n, (section, item)) in cases.enumerated() {
            let pair = IndexPath(item: item, section: section)
            #expect(pair == IndexPath(indexes: [section, item]))
            #expect(pair.hashValue == IndexPath(indexes: [section, item]).hashValue)
            #expect(byArray[pair] == n)
            #expect(pair.section == section && pair.item == item && pair.count == 2)
            #expect(IndexPath(row: item, section: section) == pair)
        }
        #expect(IndexPath(item: 5, section: 2) < IndexPath(indexes: [2, 6]))
        #expect(IndexPath(indexes: [1, 9]) < IndexPath(item: 0, section: 2))

        // What a layout reports finds the data source's array-built keys.
        let layout = try FlowLayout(itemSize: CGSize(width: 150, height: 100), minimumLineSpacing: 10, minimumInteritemSpacing: 10)
        try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: 343, height: 333), numberOfItems: [4, 6]))
        var found: [IndexPath] = []
        layout.forEachItem(in: CGRect(x: 0, y: 0, width: 343, height: 10_000)) { indexPath, _ in found.append(indexPath) }
        let expected = (0..<4).map { IndexPath(indexes: [0, $0]) } + (0..<6).map { IndexPath(indexes: [1, $0]) }
        #expect(found == expected)
        #expect(Set(found) == Set(expected))
    }

    @Test func seedsGridHasTwoColumnsAndThreeVisibleRows() throws {
        // Given Apple's sample: 150×100 items, spacing 10, in a 343×333 view
        let (collectionView, _, _) = try makeSeedCollectionView(itemCount: 100)
        // When it lays out
        collectionView.step(to: 0)
        // Then two columns of three rows are visible
        let layout = try #require(collectionView.collectionViewLayout as? FlowLayout)
        #expect(layout.numberOfColumns(itemWidth: 150, contentWidth: 343) == 2)
        #expect(collectionView.indexPathsForVisibleItems == (0..<6).map { IndexPath(item: $0, section: 0) })
        #expect(collectionView.frameForItem(at: IndexPath(item: 1, section: 0)) == CGRect(x: 183, y: 10, width: 150, height: 100))
        #expect(collectionView.contentSize == CGSize(width: 343, height: 10 + 50 * 100 + 49 * 10 + 10))
    }

    @Test func flowLayoutSweepMatchesBruteForce() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<150 {
            let width = Double.random(in: 120...600, using: &random)
            let itemWidth = Double.random(in: 10...100, using: &random)
            let layout = try FlowLayout(
                itemSize: CGSize(width: itemWidth, height: Double.random(in: 5...120, using: &random)),
                minimumLineSpacing: Double.random(in: 0...20, using: &random),
                minimumInteritemSpacing: Double.random(in: 0...20, using: &random),
                sectionInset: ContentInsets(top: Double.random(in: 0...30, using: &random), left: 5, bottom: Double.random(in: 0...30, using: &random), right: 5)
            )
            let counts = (0..<Int.random(in: 1...4, using: &random)).map { _ in Int.random(in: 0...60, using: &random) }
            try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: width, height: 300), numberOfItems: counts))
            for _ in 0..<8 {
                let y = Double.random(in: -100...(layout.contentSize.height + 50), using: &random)
                let rect = CGRect(x: 0, y: y, width: width, height: Double.random(in: 1...400, using: &random))
                #expect(layout.indexPathsForItems(in: rect) == bruteForce(layout, counts: counts, rect: rect))
            }
        }
    }

    @Test func listLayoutSweepMatchesBruteForce() throws {
        var random = SeededRandom(seed: 11)
        for round in 0..<80 {
            let counts = (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0...80, using: &random) }
            let layout: ListLayout
            if round.isMultiple(of: 2) {
                layout = try ListLayout(rowHeight: Double.random(in: 1...90, using: &random))
            } else {
                layout = try ListLayout(rowHeights: counts.map { (0..<$0).map { _ in Double.random(in: 1...90, using: &random) } })
            }
            try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: 320, height: 480), numberOfItems: counts))
            for _ in 0..<8 {
                let y = Double.random(in: -50...(layout.contentSize.height + 50), using: &random)
                let rect = CGRect(x: 0, y: y, width: 320, height: Double.random(in: 1...600, using: &random))
                #expect(layout.indexPathsForItems(in: rect) == bruteForce(layout, counts: counts, rect: rect))
            }
        }
    }

    @Test func tenMillionItemGridAnswersFromArithmetic() throws {
        // Given a flow layout with ten million items in one section
        let layout = try FlowLayout(itemSize: CGSize(width: 100, height: 100), minimumLineSpacing: 10, minimumInteritemSpacing: 10)
        try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: 320, height: 480), numberOfItems: [10_000_000]))
        // Then the content has 3,333,334 rows and the query near the end returns the right items
        #expect(Double(layout.contentSize.height) == Double(3_333_334 * 110 - 10))
        let rect = CGRect(x: 0, y: 3_333_000 * 110, width: 320, height: 480)
        let found = layout.indexPathsForItems(in: rect)
        let expected = (3_333_000...3_333_004).flatMap { row in (0..<3).map { row * 3 + $0 } }.filter { $0 < 10_000_000 }
        #expect(found.map(\.item) == expected)
    }

    @Test func invalidSizesThrowNamingTheValue() {
        for size in [CGSize(width: 0, height: 10), CGSize(width: -5, height: 10), CGSize(width: Double.nan, height: 10)] {
            #expect {
                _ = try FlowLayout(itemSize: size)
            } throws: { error in
                (error as? PrefetchError)?.message.contains("itemSize is \(size.width)") == true
            }
        }
        #expect(throws: PrefetchError.self) { _ = try FlowLayout(minimumLineSpacing: -1) }
        #expect(throws: PrefetchError.self) { _ = try ListLayout(rowHeight: 0) }
        #expect(throws: PrefetchError.self) { _ = try ListLayout(rowHeights: [[10, .nan]]) }
    }

    @Test func itemWiderThanTheViewIsRejected() throws {
        let layout = try FlowLayout(itemSize: CGSize(width: 400, height: 10))
        #expect {
            try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: 343, height: 333), numberOfItems: [3]))
        } throws: { error in
            guard let error = error as? PrefetchError else { return false }
            return error.code == .invalidArgument && error.message.contains("400") && error.message.contains("343")
        }
    }

    @Test func degenerateRectsFindNothing() throws {
        let layout = try ListLayout(rowHeight: 10)
        try layout.prepare(LayoutEnvironment(boundsSize: CGSize(width: 100, height: 100), numberOfItems: [100]))
        #expect(layout.indexPathsForItems(in: CGRect(x: 0, y: 50, width: 100, height: 0)).isEmpty)
        #expect(layout.indexPathsForItems(in: CGRect(x: 0, y: Double.nan, width: 100, height: 10)).isEmpty)
        #expect(layout.frameForItem(at: IndexPath(item: 100, section: 0)) == nil)
        #expect(layout.frameForItem(at: IndexPath(item: 0, section: 1)) == nil)
    }
}
