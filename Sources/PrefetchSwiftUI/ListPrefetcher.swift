#if canImport(SwiftUI)
import Foundation
import PrefetchKit
import SwiftUI

/// Prefetches for a SwiftUI `ScrollView` with a `LazyVStack` or `LazyVGrid` (and a `List`, where
/// SwiftUI reports its scroll geometry): the ``PrefetchKit/PrefetchController`` is fed from
/// `onScrollGeometryChange` and `onScrollPhaseChange`, and each row awaits its value at the
/// controller's priority.
///
/// ```swift
/// @State private var prefetcher = ListPrefetcher(fetcher: thumbnails)
/// ScrollView { LazyVStack { ForEach(ids, id: \.self) { id in Row(id: id, prefetcher: prefetcher) } } }
///     .prefetching(with: prefetcher, items: ids, rowLength: 88)
/// // in Row:
/// .prefetchTask(id, from: prefetcher) { result in image = try? result.get() }
/// ```
///
/// Every decision is made in `PrefetchKit` (``PrefetchKit/ScrollAdapter``); this type only reads
/// SwiftUI's values. Bad input (a fetcher shut down while the list scrolls, a frame SwiftUI
/// reports with no size) stops in debug builds with an assertion naming the value and is ignored
/// in release builds.
@MainActor
public final class ListPrefetcher<ID: Hashable & Sendable, Value: Sendable> {
    /// The fetcher the rows and the controller load through.
    public let fetcher: AsyncFetcher<ID, Value>
    /// The portable adapter that makes every decision.
    public let adapter: ScrollAdapter<ID>
    private var motion: ScrollTracker.Motion = .idle
    private var last: ScrollValues?
    private var layout = UniformRowsGeometry<ID>(items: [], rowLength: 0)

    /// Creates a prefetcher over `fetcher`.
    /// - Parameters:
    ///   - policy: Where to hold interest; choose one with `prefetch-bench`.
    ///   - admission: When a row the controller does not hold may start by itself.
    public init(fetcher: AsyncFetcher<ID, Value>, policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard,
                admission: RowAdmission = RowAdmission()) {
        self.fetcher = fetcher
        self.adapter = ScrollAdapter(fetcher: fetcher, policy: policy, admission: admission) { $0 }
    }

    /// The value for the row showing `id`, loaded when ``PrefetchKit/RowAdmission`` lets the row
    /// start: at once when the controller holds the row at prefetch level or above, never for a
    /// row that a fling carries past (its task is cancelled when it leaves), after the admission's
    /// dwell when the controller does not know the row.
    ///
    /// - Throws: `CancellationError` when the row leaves first; the fetcher's errors.
    public func value(for id: ID) async throws -> Value {
        if let cached = fetcher.fetchedData(for: id) { return cached }
        let appeared = Self.now()
        while true {
            switch adapter.rowDecision(for: id, appearedAt: appeared, now: Self.now()) {
            case .start(let priority):
                return try await fetcher.value(for: id, priority: priority)
            case .wait:
                // Ask again about a frame later; the row's task is cancelled when it leaves.
                try await Task.sleep(for: .milliseconds(16))
            }
        }
    }

    // MARK: Fed by the modifier

    func use(_ layout: UniformRowsGeometry<ID>) {
        guard layout.items != self.layout.items || layout.rowLength != self.layout.rowLength
            || layout.columns != self.layout.columns || layout.spacing != self.layout.spacing
            || layout.leadingPadding != self.layout.leadingPadding else { return }
        self.layout = layout
        adapter.dataChanged()
        if let last { scrolled(last) }
    }

    func scrolled(_ values: ScrollValues) {
        last = values
        report(adapter.frame(frame(values), geometry: layout))
    }

    func phaseChanged(_ phase: SwiftUI.ScrollPhase) {
        switch phase {
        case .idle: motion = .idle
        case .tracking, .interacting: motion = .tracking
        case .decelerating: motion = .decelerating
        case .animating: motion = .animating
        }
        // SwiftUI gives no resting offset: the adapter projects one from the frames' velocity.
        if let last { scrolled(last) }
    }

    private func frame(_ values: ScrollValues) -> ScrollTracker.Frame {
        ScrollTracker.Frame(time: Self.now(), offset: values.offset, viewportLength: values.viewportLength,
                            contentLength: values.contentLength, leadingInset: values.leadingInset,
                            trailingInset: values.trailingInset, motion: motion)
    }

    private func report(_ problem: PrefetchError?) {
        if let problem { assertionFailure("PrefetchSwiftUI: \(problem.message)") }
    }

    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }
}

/// The parts of SwiftUI's scroll geometry the adapter reads, along the vertical axis.
struct ScrollValues: Equatable, Sendable {
    var offset: Double
    var viewportLength: Double
    var contentLength: Double
    var leadingInset: Double
    var trailingInset: Double

    init(_ geometry: SwiftUI.ScrollGeometry) {
        offset = Double(geometry.contentOffset.y)
        viewportLength = Double(geometry.containerSize.height)
        contentLength = Double(geometry.contentSize.height)
        leadingInset = Double(geometry.contentInsets.top)
        trailingInset = Double(geometry.contentInsets.bottom)
    }
}

struct PrefetchingModifier<ID: Hashable & Sendable, Value: Sendable>: ViewModifier {
    let prefetcher: ListPrefetcher<ID, Value>
    let layout: UniformRowsGeometry<ID>

    func body(content: Content) -> some View {
        content
            .onAppear { prefetcher.use(layout) }
            .onChange(of: layout.items) { prefetcher.use(layout) }
            .onScrollGeometryChange(for: ScrollValues.self, of: { ScrollValues($0) }) { _, values in
                prefetcher.scrolled(values)
            }
            .onScrollPhaseChange { _, phase in prefetcher.phaseChanged(phase) }
    }
}

extension View {
    /// Feeds `prefetcher` from this scroll view (a `ScrollView` holding a `LazyVStack` or
    /// `LazyVGrid`, or a `List`): its items in order, `columns` to a row, rows about `rowLength`
    /// points long with `spacing` between them after `padding`.
    ///
    /// The lengths only need to be about right; they tell the controller where rows that are not
    /// built yet will be.
    public func prefetching<ID: Hashable & Sendable, Value: Sendable>(
        with prefetcher: ListPrefetcher<ID, Value>, items: [ID], rowLength: CGFloat, columns: Int = 1,
        spacing: CGFloat = 0, padding: CGFloat = 0
    ) -> some View {
        modifier(PrefetchingModifier(
            prefetcher: prefetcher,
            layout: UniformRowsGeometry(items: items, rowLength: Double(rowLength), columns: columns,
                                        spacing: Double(spacing), leadingPadding: Double(padding))))
    }

    /// Loads the value for the row showing `id` with ``ListPrefetcher/value(for:)`` in a `.task`
    /// tied to the row: cancelled when the row leaves, restarted when `id` changes.
    public func prefetchTask<ID: Hashable & Sendable, Value: Sendable>(
        _ id: ID, from prefetcher: ListPrefetcher<ID, Value>,
        perform action: @escaping @MainActor @Sendable (Result<Value, any Error>) -> Void
    ) -> some View {
        task(id: id) {
            let result: Result<Value, any Error>
            do { result = .success(try await prefetcher.value(for: id)) } catch { result = .failure(error) }
            if !Task.isCancelled { await action(result) }
        }
    }
}
#endif
