#if canImport(SwiftUI)
// PrefetchSwiftUI's only Apple-only lines: SwiftUI's scroll callbacks copied into the portable ListPrefetcher.
import PrefetchKit
import SwiftUI

extension View {
    /// Feeds `prefetcher` from this scroll view (a `ScrollView` holding a `LazyVStack` or `LazyVGrid`, or a
    /// `List`): its items in order, `columns` to a row, rows about `rowLength` points long with `spacing`
    /// between them (the stack's: `LazyVStack`'s default is not 0) after `padding`. Before iOS 18 / macOS 15
    /// it does nothing, and rows start their own loads after a short dwell (0.1 s).
    @ViewBuilder
    public func prefetching<ID: Hashable & Sendable, Value: Sendable>(
        with prefetcher: ListPrefetcher<ID, Value>, items: [ID], rowLength: CGFloat, columns: Int = 1, spacing: CGFloat = 0,
        padding: CGFloat = 0
    ) -> some View {
        let layout = RowsLayout(items: items, rowLength: Double(rowLength), columns: columns, spacing: Double(spacing), padding: Double(padding))
        if #available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *) {
            modifier(PrefetchingModifier(prefetcher: prefetcher, layout: layout))
        } else { self }
    }

    /// Loads the value for the row showing `id` with ``ListPrefetcher/value(for:)`` in a `.task`
    /// tied to the row: cancelled when the row leaves, restarted when `id` changes.
    public func prefetchTask<ID: Hashable & Sendable, Value: Sendable>(
        _ id: ID, from prefetcher: ListPrefetcher<ID, Value>, perform action: @escaping @MainActor @Sendable (Result<Value, any Error>) -> Void
    ) -> some View {
        task(id: id) { @MainActor in
            let result = await prefetcher.result(for: id)
            if !Task.isCancelled { action(result) }
        }
    }
}

@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
private struct PrefetchingModifier<ID: Hashable & Sendable, Value: Sendable>: ViewModifier {
    let prefetcher: ListPrefetcher<ID, Value>
    let layout: RowsLayout<ID>

    func body(content: Content) -> some View {
        content
            .onAppear { feed(layout) }
            .onChange(of: layout) { _, new in feed(new) }
            .onScrollGeometryChange(for: ScrollValues.self, of: { geometry in
                ScrollValues(offset: geometry.contentOffset.y, container: geometry.containerSize, content: geometry.contentSize,
                             insets: (geometry.contentInsets.top, geometry.contentInsets.bottom))
            }, action: { _, new in
                prefetcher.scrollGeometryChanged(offset: new.offset, viewportLength: new.viewportLength, contentLength: new.contentLength,
                                                 leadingInset: new.leadingInset, trailingInset: new.trailingInset)
            })
            .onScrollPhaseChange { _, new in
                let phases: [ScrollPhase: ListScrollPhase] = [.idle: .idle, .tracking: .tracking, .interacting: .interacting,
                                                              .decelerating: .decelerating, .animating: .animating]
                prefetcher.scrollPhaseChanged(to: (phases[new] ?? .idle).motion)
            }
    }

    /// The layout, through the public method an app's own scroll container calls too.
    private func feed(_ layout: RowsLayout<ID>) {
        prefetcher.layoutChanged(items: layout.items, rowLength: layout.rowLength, columns: layout.columns, spacing: layout.spacing,
                                 padding: layout.padding)
    }
}
#endif
