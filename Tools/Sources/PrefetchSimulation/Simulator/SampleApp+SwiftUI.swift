import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSwiftUI
import PrefetchTesting

/// The app binding that drives a run's prefetching: what `--toolkit` chooses in `prefetch-bench`
/// and `prefetch-demo`.
public enum Toolkit: String, Sendable, CaseIterable, CustomStringConvertible {
    /// UIKit's: a `ScrollViewPrefetcher` attached to the view hears its delegate callbacks
    /// (drag begins and ends with the finger's velocity and target, animated scrolls announced).
    case uikit
    /// SwiftUI's: a `ListPrefetcher` hears, each frame, what `onScrollGeometryChange` and
    /// `onScrollPhaseChange` report (offset and sizes, and the phase), and nothing else.
    case swiftui

    /// The name `--toolkit` takes.
    public var description: String { rawValue }

    /// The toolkit named `name`.
    /// - Throws: ``SimulationError`` naming the value and the allowed ones.
    public init(parsing name: String) throws {
        guard let toolkit = Toolkit(rawValue: name) else {
            throw SimulationError(path: "toolkit", "'\(name)' is not a toolkit; use one of \(Toolkit.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = toolkit
    }
}

/// A ``SampleApp``'s prefetching as a SwiftUI list's: a `ListPrefetcher` over the app's fetcher,
/// fed after each frame of the headless view with what SwiftUI reports after layout (the scroll
/// phase when what moves the content changed, the geometry when it changed), and the layout
/// (rows, their length, columns, spacing, padding) read from the view's own cells.
///
/// Cells load as under UIKit (the fetcher's `fetchAsync` at a priority), the priority coming
/// from this prefetcher's controller, so a run compares the two bindings and nothing else.
///
/// Rows of different heights (a list with ``ScenarioLayout/rowHeights``) are SwiftUI's lazy
/// stack's: SwiftUI knows a row's height only once it has built the row, so the feed tells the
/// prefetcher each row's length as it comes on screen (`rowMeasured(_:length:)`, what an app's
/// `onGeometryChange` does) and never a row that was not built, and it reports the geometry in
/// the stack's coordinates (``LazyStackRows``): the rows not built yet each one estimate long.
@MainActor
final class ListFeed<ID: Hashable & Sendable, Value: Sendable> {
    /// The prefetcher, as a SwiftUI view would hold it.
    let prefetcher: ListPrefetcher<ID, Value>
    /// The fetcher's prefetch target, which the controller plans into while prefetching is on.
    let target: (any PrefetchTarget<ID>)?
    /// Each listed id's item number.
    private let numbers: ItemNumbers<ID>
    private var motion: ScrollMotion = .idle
    private var geometry: [Double]?
    /// The rows last listed, while the view has laid out no cell to read their shape from.
    private var unshapedRows: [(id: ID, number: Int)]?
    /// Rows of different heights: what the lazy stack has built and measured, and its estimate
    /// for the others; nil when the rows share one height (nothing is measured).
    private(set) var stack: LazyStackRows?
    /// The rows that came on screen since the last frame, in the order the view showed them: the
    /// lengths SwiftUI reports after the frame's layout.
    private var builtRows: [(id: ID, number: Int, length: Double)] = []
    /// The item number of the view's first row (the app's `indexBase`).
    var firstItemNumber: () -> Int = { 0 }

    /// A list prefetcher over `fetcher`; `expectedBytes` by item number. With `rowEstimate`, the
    /// rows have heights of their own, and a row not built yet is estimated that long.
    init(fetcher: AsyncFetcher<ID, Value>, expectedBytes: ((Int) -> Int?)?, rowEstimate: Double? = nil, clock: ManualClock,
         schedule: @escaping @MainActor (Duration, @escaping @MainActor () -> Void) -> Void) {
        let numbers = ItemNumbers<ID>()
        self.numbers = numbers
        stack = rowEstimate.map { LazyStackRows(estimate: $0) }
        prefetcher = ListPrefetcher(fetcher: fetcher, expectedBytes: expectedBytes.map { bytes in { numbers.number[$0].flatMap(bytes) } },
                                    clock: clock, schedule: schedule)
        target = prefetcher.controller.target
    }

    /// The controller that plans.
    var controller: PrefetchController<ID> { prefetcher.controller }

    /// The list's rows changed (or appeared): `items` by view index, each with its id and number;
    /// the rows' shape is read from `view`'s first cells (at the first frame when the view has not
    /// laid out yet, as SwiftUI's lazy stack knows its rows' size only once it built one).
    func layoutChanged(items: [(id: ID, number: Int)], view: any SampleSurface) {
        numbers.number = Dictionary(items.map { ($0.id, $0.number) }, uniquingKeysWith: { first, _ in first })
        let extent = { view.cellExtent(at: IndexPath(indexes: [0, $0]), along: .vertical) }
        unshapedRows = nil
        guard let first = extent(0) else {
            unshapedRows = items
            return prefetcher.layoutChanged(items: items.map(\.id), rowLength: 0)
        }
        if let stack {
            // Rows of their own heights: the app's estimate of a row, in a list of one column.
            return prefetcher.layoutChanged(items: items.map(\.id), rowLength: stack.estimate)
        }
        // The columns are the cells that share the first's row; the spacing is the gap to the next row.
        var columns = 1
        while let next = extent(columns), next.lowerBound == first.lowerBound { columns += 1 }
        let spacing = extent(columns).map { max($0.lowerBound - first.upperBound, 0) } ?? 0
        prefetcher.layoutChanged(items: items.map(\.id), rowLength: first.upperBound - first.lowerBound, columns: columns,
                                 spacing: spacing, padding: max(first.lowerBound, 0))
    }

    /// After a frame of `view`: the phase SwiftUI would report when the motion changed (before the
    /// geometry when the content starts moving, after it when it comes to rest, as SwiftUI reports
    /// the last frame before `.idle`), and the geometry when it changed.
    func frame(of view: any SampleSurface) {
        if let unshapedRows { layoutChanged(items: unshapedRows, view: view) }
        let motion: ScrollMotion = view.isDragging ? .dragging
            : view.isDecelerating ? .decelerating : view.isScrollAnimating ? .animating : .idle
        let changed = motion != self.motion
        self.motion = motion
        if changed, motion != .idle { prefetcher.scrollPhaseChanged(to: motion) }
        var geometry = [view.contentOffset.y, view.bounds.height, view.contentSize.height, view.contentInset.top, view.contentInset.bottom]
            .map { Double($0) }
        if stack != nil {
            // The rows built this frame report their lengths after its layout, then the scroll geometry.
            let built = builtRows
            builtRows = []
            for row in built {
                stack?.measure(item: row.number, length: row.length)
                prefetcher.rowMeasured(row.id, length: row.length)
            }
            if let stack, geometry[2] > 0 {
                (geometry[0], geometry[2]) = stack.geometry(of: view, firstItem: firstItemNumber())
            }
        }
        if geometry != self.geometry {
            self.geometry = geometry
            prefetcher.scrollGeometryChanged(offset: geometry[0], viewportLength: geometry[1], contentLength: geometry[2],
                                             leadingInset: geometry[3], trailingInset: geometry[4])
        }
        if changed, motion == .idle { prefetcher.scrollPhaseChanged(to: .idle) }
    }

    /// The item numbers the controller requests now, in order.
    var plannedItemNumbers: [Int] { controller.requestedItems.compactMap { numbers.number[$0.item] }.sorted() }

    /// A row came on screen, `length` points high as laid out: with rows of different heights,
    /// SwiftUI reports its length after the frame's layout (``frame(of:)``).
    func rowCameOnScreen(id: ID, number: Int, length: Double) {
        guard stack != nil else { return }
        builtRows.append((id, number, length))
    }
}

/// Where a SwiftUI lazy stack puts rows of different heights: the rows it has built at their
/// measured lengths, every other row at one estimate, so the content offset and length SwiftUI
/// reports are in these coordinates, not in the rows' true ones. A jump past rows never built
/// lands where the estimates put the destination; when a row above the screen is measured later,
/// the rows after it move by the difference and the offset moves with them, so what is on screen
/// stays in place (as SwiftUI keeps it).
///
/// The headless view lays every row at its true height; this maps its offset and content
/// length into the stack's. Rows are by item number; sums run in item order, so a run repeats.
struct LazyStackRows: Sendable, Hashable {
    /// The length of a row not built yet.
    let estimate: Double
    /// The measured rows' item numbers, ascending, and each one's length minus the estimate.
    private(set) var measured: [Int] = []
    private var deltas: [Double] = []

    init(estimate: Double) { self.estimate = estimate }

    /// Item `item`'s row is `length` long, as laid out.
    mutating func measure(item: Int, length: Double) {
        let index = insertionPoint(item)
        if index < measured.count, measured[index] == item {
            deltas[index] = length - estimate
        } else {
            measured.insert(item, at: index)
            deltas.insert(length - estimate, at: index)
        }
    }

    /// Whether item `item`'s row has been measured.
    func isMeasured(_ item: Int) -> Bool {
        let index = insertionPoint(item)
        return index < measured.count && measured[index] == item
    }

    /// Where item `item` starts in a list whose first row is item `first`.
    /// - Complexity: O(m) for m measured rows.
    func start(ofItem item: Int, first: Int) -> Double {
        Double(item - first) * estimate + sumOfDeltas(from: first, to: item)
    }

    /// The length of `count` rows from item `first` on.
    func contentLength(first: Int, count: Int) -> Double {
        Double(count) * estimate + sumOfDeltas(from: first, to: first + count)
    }

    /// The content offset and length SwiftUI reports for `view` (whose first row is item
    /// `first`): the view's offset kept within the row at its top, that row placed where the stack
    /// puts it.
    @MainActor
    func geometry(of view: any SampleSurface, firstItem first: Int) -> (offset: Double, contentLength: Double) {
        let count = view.numberOfItemsInFirstSection
        let offset = Double(view.contentOffset.y)
        let length = contentLength(first: first, count: count)
        let probe = offset..<(offset + max(Double(view.bounds.height), 1))
        guard let (indexPath, extent) = view.cells(meeting: probe, along: .vertical).first else { return (offset, length) }
        let item = indexPath.item + first
        var within = offset - extent.lowerBound
        if !isMeasured(item), extent.upperBound > extent.lowerBound {
            within *= estimate / (extent.upperBound - extent.lowerBound)
        }
        return (start(ofItem: item, first: first) + within, length)
    }

    private func sumOfDeltas(from lower: Int, to upper: Int) -> Double {
        var sum = 0.0
        var index = insertionPoint(lower)
        while index < measured.count, measured[index] < upper {
            sum += deltas[index]
            index += 1
        }
        return sum
    }

    /// The index of the first measured item at or after `item`.
    private func insertionPoint(_ item: Int) -> Int {
        var low = 0, high = measured.count
        while low < high {
            let middle = (low + high) / 2
            if measured[middle] < item { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The item number of each id the list shows; shared with the prefetcher's `expectedBytes`.
@MainActor
private final class ItemNumbers<ID: Hashable> {
    var number: [ID: Int] = [:]
}
