import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSwiftUI

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

    /// A list prefetcher over `fetcher`; `expectedBytes` by item number.
    init(fetcher: AsyncFetcher<ID, Value>, expectedBytes: ((Int) -> Int?)?, now: @escaping @MainActor () -> Double,
         schedule: @escaping @MainActor (Duration, @escaping @MainActor () -> Void) -> Void) {
        let numbers = ItemNumbers<ID>()
        self.numbers = numbers
        prefetcher = ListPrefetcher(fetcher: fetcher, expectedBytes: expectedBytes.map { bytes in { numbers.number[$0].flatMap(bytes) } },
                                    now: now, schedule: schedule)
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
        let motion: ScrollMotion = view.isDragging ? .tracking
            : view.isDecelerating ? .decelerating : view.isScrollAnimating ? .animating : .idle
        let changed = motion != self.motion
        self.motion = motion
        if changed, motion != .idle { prefetcher.scrollPhaseChanged(to: motion) }
        let geometry = [view.contentOffset.y, view.bounds.height, view.contentSize.height, view.contentInset.top, view.contentInset.bottom]
            .map { Double($0) }
        if geometry != self.geometry {
            self.geometry = geometry
            prefetcher.scrollGeometryChanged(offset: geometry[0], viewportLength: geometry[1], contentLength: geometry[2],
                                             leadingInset: geometry[3], trailingInset: geometry[4])
        }
        if changed, motion == .idle { prefetcher.scrollPhaseChanged(to: .idle) }
    }

    /// The item numbers the controller requests now, in order.
    var plannedItemNumbers: [Int] { controller.requestedItems.compactMap { numbers.number[$0.item] }.sorted() }
}

/// The item number of each id the list shows; shared with the prefetcher's `expectedBytes`.
@MainActor
private final class ItemNumbers<ID: Hashable> {
    var number: [ID: Int] = [:]
}
