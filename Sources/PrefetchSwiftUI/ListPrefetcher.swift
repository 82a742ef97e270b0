import Foundation
import PrefetchKit

/// Prefetches for a SwiftUI `ScrollView` with a `LazyVStack` or `LazyVGrid` (and a `List`, where
/// SwiftUI reports its scroll geometry): the ``/PrefetchKit/PrefetchController`` is fed from
/// `onScrollGeometryChange` and `onScrollPhaseChange` (iOS 18, macOS 15), and each row awaits its
/// value at the controller's priority.
///
/// ```swift
/// struct PhotoList: View {
///     let ids: [Int]
///     @State private var prefetcher = ListPrefetcher(fetcher: Thumbnails.fetcher)
///
///     var body: some View {
///         ScrollView {
///             LazyVStack(spacing: 8) { ForEach(ids, id: \.self) { id in Row(id: id, prefetcher: prefetcher) } }
///         }
///         .prefetching(with: prefetcher, items: ids, rowLength: 88, spacing: 8)
///     }
/// }
///
/// struct Row: View {
///     let id: Int
///     let prefetcher: ListPrefetcher<Int, Data>
///     @State private var thumbnail: Data?
///
///     var body: some View {
///         Text(thumbnail == nil ? "#\(id) loading" : "#\(id)")
///             .prefetchTask(id, from: prefetcher) { result in thumbnail = try? result.get() }
///     }
/// }
/// ```
///
/// On earlier systems SwiftUI reports no scroll geometry: the modifier does nothing, and each row
/// starts its own load once it has been on screen for a short dwell (0.1 s),
/// so a fling still starts no work for the rows it only flies past.
///
/// Only the bindings to SwiftUI's types are Apple-only; this class runs, and is tested, on every
/// platform. Use it on the main actor.
@MainActor
public final class ListPrefetcher<ID: Hashable & Sendable, Value: Sendable> {
    /// The fetcher the rows and the controller load through.
    package let fetcher: AsyncFetcher<ID, Value>
    /// The portable adapter that makes every decision.
    package let adapter: ScrollAdapter<ID>
    /// The controller that plans the list: set its ``/PrefetchKit/PrefetchController/policy``,
    /// ``/PrefetchKit/PrefetchController/networkConditions`` or
    /// ``/PrefetchKit/PrefetchController/previews`` here.
    public var controller: PrefetchController<ID> { adapter.controller }
    /// What happens to bad input (a fetcher shut down while the list scrolls, a frame SwiftUI
    /// reports with no size): an `assertionFailure` naming the value by default, which stops debug
    /// builds and is ignored in release builds. Set it to log instead.
    public var onProblem: @MainActor (PrefetchError) -> Void = { assertionFailure("PrefetchSwiftUI: \($0.message)") }

    private var motion: ScrollTracker.Motion = .idle
    private var last: ScrollValues?
    private var layout = RowsLayout<ID>(items: [], rowLength: 0, columns: 1, spacing: 0, padding: 0)
    private(set) var geometry = MeasuredRowsGeometry<ID>(items: [], estimate: 0)
    /// The rows' lengths as measured, by id, kept across layout changes.
    private var measurements: [ID: Double] = [:]
    private let now: @MainActor () -> Double
    private let sleep: @Sendable (Duration) async throws -> Void
    /// Ends an `.animating` phase that SwiftUI leaves without an `.idle` one, a quiet time after its
    /// last frame; also plans a change of rows that no geometry followed.
    let quietCheck: QuietAnimationCheck

    /// Creates a prefetcher over `fetcher`.
    /// - Parameters:
    ///   - fetcher: The fetcher the rows load from; the list's ids are its ids. Share it with
    ///     every list that shows the same data, so they share its loads and its cache.
    ///   - policy: Where to hold interest; choose one with `prefetch-bench`.
    ///   - expectedBytes: A row's data size when the feed says; each row is then planned with its
    ///     own load time (see ``/PrefetchKit/AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``).
    ///   - clock: The clock that times each callback (the continuous clock by default, the one
    ///     `fetcher` runs on by default; a `ManualClock` from PrefetchTesting in a test, see
    ///     <doc:DrivingItWithoutSwiftUI>). A row's admission wait sleeps on it too.
    ///   - schedule: Runs an action once, on the main actor, after a delay: how the prefetcher
    ///     ends an `.animating` phase nobody ended, and plans rows that changed with no geometry
    ///     after them. `nil` (the default) is a task that sleeps on `clock`; a simulation that
    ///     steps its frames itself passes its own.
    public convenience init<C: Clock>(fetcher: AsyncFetcher<ID, Value>, policy: any PrefetchPolicy = PrefetchPolicies.adaptive,
                                      expectedBytes: ((ID) -> Int?)? = nil, clock: C = ContinuousClock(),
                                      schedule: (@MainActor (_ delay: Duration, _ action: @escaping @MainActor () -> Void) -> Void)? = nil)
    where C.Duration == Duration {
        self.init(fetcher: fetcher, policy: policy, admission: RowAdmission(), expectedBytes: expectedBytes,
                  now: QuietAnimationCheck.seconds(on: clock), sleep: { try await clock.sleep(for: $0) })
        quietCheck.schedule = schedule ?? QuietAnimationCheck.sleeping(on: clock)
    }

    init(fetcher: AsyncFetcher<ID, Value>, policy: any PrefetchPolicy, admission: RowAdmission, expectedBytes: ((ID) -> Int?)? = nil,
         now: @escaping @MainActor () -> Double, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.fetcher = fetcher
        self.adapter = ScrollAdapter(fetcher: fetcher, policy: policy, admission: admission, identifier: { $0 }, expectedBytes: expectedBytes)
        self.now = now
        self.sleep = sleep
        quietCheck = QuietAnimationCheck(now: now)
        quietCheck.onQuiet = { [weak self] in self?.animationWentQuiet() }
    }

    /// The value for the row showing `id`, loaded when the adapter lets the row
    /// start: at once when the controller holds the row at prefetch level or above, never for a
    /// row that a fling carries past (its task is cancelled when it leaves), after the admission's
    /// dwell when the controller does not know the row.
    ///
    /// - Throws: `CancellationError` when the row leaves first; the fetcher's errors.
    public func value(for id: ID) async throws -> Value {
        if let cached = fetcher.fetchedData(for: id) { return cached }
        let appeared = now()
        while true {
            switch adapter.rowDecision(for: id, appearedAt: appeared, now: now()) {
            case .start(let priority):
                return try await fetcher.value(for: id, priority: priority)
            case .wait:
                // Ask again a frame later: the controller may take the row by then.
                try await sleep(.milliseconds(16))
            }
        }
    }

    /// ``value(for:)`` as a result, for a row's task: `CancellationError` when the row left first.
    func result(for id: ID) async -> Result<Value, any Error> {
        do { return .success(try await value(for: id)) } catch { return .failure(error) }
    }

    // MARK: Fed by the modifier, or by an app's own scroll container, in SwiftUI's callback order

    /// The list's layout appeared or changed: `items` in order, `columns` to a row, rows about
    /// `rowLength` points long along the axis with `spacing` between them, after `padding` at the
    /// leading edge. What `prefetching(with:items:rowLength:columns:spacing:padding:)` calls when
    /// the view appears and when any of them changes; call it yourself when you feed the prefetcher
    /// from a scroll container of your own. A layout equal to the last one does nothing. A length
    /// that is negative or not finite, or fewer than 1 column, is reported to ``onProblem`` and
    /// the last layout stays.
    public func layoutChanged(items: [ID], rowLength: Double, columns: Int = 1, spacing: Double = 0, padding: Double = 0) {
        for (name, length) in [("rowLength", rowLength), ("spacing", spacing), ("padding", padding)] where !(length.isFinite && length >= 0) {
            return onProblem(PrefetchError(.invalidArgument, "ListPrefetcher.layoutChanged: \(name) \(length) must be finite and at least 0"))
        }
        guard columns >= 1 else {
            return onProblem(PrefetchError(.invalidArgument, "ListPrefetcher.layoutChanged: columns \(columns) must be at least 1"))
        }
        use(RowsLayout(items: items, rowLength: rowLength, columns: columns, spacing: spacing, padding: padding))
    }

    /// The modifier appeared, or its layout changed (items, row length, columns, spacing, padding).
    func use(_ layout: RowsLayout<ID>) {
        guard layout != self.layout else { return }
        var geometry = layout.geometry
        // The content length SwiftUI reported was the old layout's: the app's estimate stands
        // until SwiftUI reports the new one.
        for (id, length) in measurements { geometry.measure(id, length: length) }
        let rowsChanged = layout.items != self.layout.items
        self.layout = layout
        self.geometry = geometry
        adapter.dataChanged()
        guard let last else { return }
        // Rows inserted or removed: SwiftUI reports the geometry that goes with them next (the
        // new content length, and the offset that keeps the user's place), and the two are one
        // event. Planned now, the new rows at the old offset would withdraw what is on screen and
        // ask for what is not, and the offset's jump would read as a fling. Where no geometry
        // follows (rows replaced at the same length, at rest), a check a moment later plans it.
        if rowsChanged {
            adapter.layoutChanged(at: now(), offset: last.offset, contentLength: last.contentLength)
            quietCheck.schedule(ScrollAdapter<ID>.layoutQuietTime) { [weak self] in self?.planChangedRows() }
            return
        }
        send(last)
    }

    /// Rows changed and no geometry came in the quiet time: planned where the list is.
    private func planChangedRows() {
        guard adapter.pendingLayoutTimedOut(at: now()), let last else { return }
        send(last)
    }

    /// The scroll geometry changed (SwiftUI's `onScrollGeometryChange`), along the scroll axis, in
    /// points: `offset` is the content offset (below 0 with a leading inset or when it rubber-bands),
    /// `viewportLength` the container's length, `contentLength` the content's, and the insets the
    /// content insets at the leading and trailing edges. Call it on every frame the values
    /// change, as SwiftUI does. A viewport or content without a size is reported to ``onProblem``.
    public func scrollGeometryChanged(offset: Double, viewportLength: Double, contentLength: Double,
                                      leadingInset: Double = 0, trailingInset: Double = 0) {
        scrolled(ScrollValues(offset: offset, viewportLength: viewportLength, contentLength: contentLength,
                              leadingInset: leadingInset, trailingInset: trailingInset))
    }

    /// `onScrollGeometryChange` reported new values.
    func scrolled(_ values: ScrollValues) {
        // The geometry that goes with changed rows: the offset's move with the content's growth
        // kept the user's place.
        adapter.layoutSettled(offset: values.offset, contentLength: values.contentLength, at: now())
        last = values
        // The rows nobody measured share the content length SwiftUI reports: they moved if it changed.
        if geometry.report(contentLength: values.contentLength) { adapter.dataChanged() }
        send(values)
    }

    /// The row showing `id` is `length` points long along the axis, as laid out: call it when a
    /// row's size is known or changes (from `onGeometryChange(for:of:action:)` on iOS 18, or a
    /// `GeometryReader` in the row's background). Rows are planned where they are: the measured
    /// ones at their lengths, the others sharing what is left of the content length SwiftUI reports
    /// (before it reports one, `rowLength` each). An `id` that is not among the items is kept for
    /// when it is; a length that is negative or not finite is reported to ``onProblem``.
    /// - Complexity: O(log r) for r rows, plus the frame planned again.
    public func rowMeasured(_ id: ID, length: Double) {
        guard length.isFinite, length >= 0 else {
            return onProblem(PrefetchError(.invalidArgument, "ListPrefetcher.rowMeasured: row length \(length) must be finite and at least 0"))
        }
        measurements[id] = length
        guard geometry.measure(id, length: length) else { return }
        adapter.dataChanged()
        if let last { send(last) }
    }

    /// The scroll phase changed (SwiftUI's `onScrollPhaseChange`), as what moves the content:
    /// `.dragging` while a finger drags it (SwiftUI's `.interacting`), `.decelerating` while it
    /// coasts after the finger lifted, `.animating` during a programmatic animated scroll, and
    /// `.idle` at rest (also SwiftUI's `.tracking`: a finger is down but nothing moves). It can
    /// arrive between two geometry frames: the last geometry is sent again under the new motion,
    /// and the tracker keeps the velocity the frames measured, so a fling that starts here coasts
    /// to where that velocity takes it.
    public func scrollPhaseChanged(to motion: ScrollMotion) {
        self.motion = motion
        if let last { send(last) }
    }

    /// `onScrollPhaseChange` reported a new phase.
    func phaseChanged(to phase: ListScrollPhase) { scrollPhaseChanged(to: phase.motion) }

    /// An `.animating` phase had no frame for the quiet time (`ScrollTracker.animationQuietTime`, 0.1 s) and
    /// SwiftUI reported no new phase: the animation has ended, and the view is planned at rest. The
    /// phase SwiftUI last reported stays: a later frame under it is read as a new animation.
    private func animationWentQuiet() {
        adapter.animationEnded()
        if let last { send(last, motion: .idle) }
    }

    private func send(_ values: ScrollValues, motion override: ScrollTracker.Motion? = nil) {
        let motion = override ?? motion
        let frame = ScrollTracker.Frame(time: now(), offset: values.offset, viewportLength: values.viewportLength,
                                        contentLength: values.contentLength, leadingInset: values.leadingInset,
                                        trailingInset: values.trailingInset, motion: motion)
        if let problem = adapter.frame(frame, geometry: geometry) { return onProblem(problem) }
        quietCheck.frameSent(animating: motion == .animating)
    }
}

/// SwiftUI's `ScrollPhase`, portable.
enum ListScrollPhase: Sendable, Hashable {
    /// No scroll is under way.
    case idle
    /// A finger touches the scroll view but has not started scrolling it (or stopped a fling).
    case tracking
    /// A finger drags the content.
    case interacting
    /// Coasting after the finger lifted.
    case decelerating
    /// A programmatic animated scroll (`ScrollViewReader`, `scrollPosition`).
    case animating

    /// What moves the content in this phase. `tracking` moves nothing: the finger is down but the
    /// content rests, and a fling it caught has stopped.
    var motion: ScrollTracker.Motion {
        switch self {
        case .idle, .tracking: .idle
        case .interacting: .dragging
        case .decelerating: .decelerating
        case .animating: .animating
        }
    }
}

/// The parts of SwiftUI's scroll geometry the adapter reads, along the vertical axis.
struct ScrollValues: Equatable, Sendable {
    var offset: Double
    var viewportLength: Double
    var contentLength: Double
    var leadingInset = 0.0
    var trailingInset = 0.0
}

extension ScrollValues {
    /// SwiftUI's `ScrollGeometry`, read along the vertical axis; `insets` are top and bottom.
    init(offset: CGFloat, container: CGSize, content: CGSize, insets: (CGFloat, CGFloat)) {
        self.init(offset: Double(offset), viewportLength: Double(container.height), contentLength: Double(content.height),
                  leadingInset: Double(insets.0), trailingInset: Double(insets.1))
    }
}

/// What the modifier knows of the lazy stack's layout; a change of any part re-plans.
struct RowsLayout<ID: Hashable>: Equatable {
    var items: [ID]
    var rowLength: Double
    var columns: Int
    var spacing: Double
    var padding: Double

    var geometry: MeasuredRowsGeometry<ID> {
        MeasuredRowsGeometry(items: items, estimate: rowLength, columns: columns, spacing: spacing, padding: padding)
    }
}
