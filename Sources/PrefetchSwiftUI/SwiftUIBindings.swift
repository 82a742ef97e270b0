#if canImport(SwiftUI)
// The only Apple-only lines of PrefetchSwiftUI: SwiftUI's scroll callbacks registered and their
// values copied into the module's portable types. Everything they report is interpreted elsewhere.
import PrefetchKit
import SwiftUI

extension View {
    /// Feeds `prefetcher` from this scroll view (a `ScrollView` holding a `LazyVStack` or
    /// `LazyVGrid`, or a `List`): its items in order, `columns` to a row, rows about `rowLength`
    /// points long with `spacing` between them (pass the stack's spacing: `LazyVStack`'s default
    /// is not 0) after `padding`. On systems before iOS 18 / macOS 15 it does nothing.
    @ViewBuilder
    public func prefetching<ID: Hashable & Sendable, Value: Sendable>(
        with prefetcher: ListPrefetcher<ID, Value>, items: [ID], rowLength: CGFloat, columns: Int = 1,
        spacing: CGFloat = 0, padding: CGFloat = 0
    ) -> some View {
        if #available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *) {
            modifier(PrefetchingModifier(prefetcher: prefetcher, layout: RowsLayout(
                items: items, rowLength: Double(rowLength), columns: columns, spacing: Double(spacing), padding: Double(padding))))
        } else {
            self
        }
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

@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
private struct PrefetchingModifier<ID: Hashable & Sendable, Value: Sendable>: ViewModifier {
    let prefetcher: ListPrefetcher<ID, Value>
    let layout: RowsLayout<ID>

    func body(content: Content) -> some View {
        content
            .onAppear { prefetcher.use(layout) }
            .onChange(of: layout) { _, new in prefetcher.use(new) }
            .onScrollGeometryChange(for: ScrollValues.self, of: { geometry in
                ScrollValues(offset: Double(geometry.contentOffset.y), viewportLength: Double(geometry.containerSize.height),
                             contentLength: Double(geometry.contentSize.height), leadingInset: Double(geometry.contentInsets.top),
                             trailingInset: Double(geometry.contentInsets.bottom))
            }, action: { _, new in prefetcher.scrolled(new) })
            .onScrollPhaseChange { _, new in prefetcher.phaseChanged(to: ListScrollPhase(new)) }
    }
}

@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
extension ListScrollPhase {
    init(_ phase: ScrollPhase) {
        switch phase {
        case .idle: self = .idle
        case .tracking: self = .tracking
        case .interacting: self = .interacting
        case .decelerating: self = .decelerating
        case .animating: self = .animating
        @unknown default: self = .idle
        }
    }
}
#endif
