/// How a ``PrefetchController`` allots bytes when its target can load previews: the full value
/// for what the user will look at, a preview for what the motion only passes or reaches later.
///
/// On a saturated link every byte a prefetch takes is a byte a visible cell waits for. A preview
/// (a progressive image's first scan, a thumbnail) costs a fraction of the full value and fills
/// a cell with something, so the controller asks for it wherever the full value would likely be
/// wasted or late:
///
/// - on screen, and wherever the forecast has the motion come to rest (a fling's landing screen):
///   the full value;
/// - an item the forecast brings on screen within ``fullWithin``: the full value, so that a steady
///   scroll shows final cells as it does without previews;
/// - an item that arrives later, one a motion only flies past, and what is left behind or lies
///   beyond where the motion stops: a preview. As the item comes near (it is ranked again when its
///   level changes, at the latest when it comes on screen) the request turns full, and the
///   fetcher completes the preview it has (a progressive prefix by a range request: no byte twice);
/// - under Low Data Mode (``NetworkConditions/isConstrained``): a preview for everything but the screen.
///
/// A controller with no plan (``PrefetchController/previews`` `nil`, the default), or whose target
/// does not accept previews (``PrefetchTarget/acceptsPreviews``), asks for full values only.
///
/// ```swift
/// let controller = PrefetchController<Int>()
/// controller.previews = try PreviewPlan(fullWithin: .milliseconds(1_500))
/// ```
public struct PreviewPlan: Sendable, Hashable {
    /// Items the forecast brings on screen within this time get their full value at once; later
    /// ones a preview first.
    public let fullWithin: Duration

    /// A plan that loads in full what arrives on screen within `fullWithin` (1 s by default).
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when
    ///   `fullWithin` is negative.
    public init(fullWithin: Duration = .seconds(1)) throws {
        guard fullWithin >= .zero else {
            throw PrefetchError(.invalidConfiguration, "PreviewPlan fullWithin is \(fullWithin), but it must not be negative")
        }
        self.fullWithin = fullWithin
    }

    /// Full values for what arrives on screen within a second.
    public static let standard = PreviewPlan(validated: .seconds(1))

    private init(validated fullWithin: Duration) { self.fullWithin = fullWithin }

    /// The quality to request an item at: `priority` is its rank at `now` (seconds, the frames'
    /// clock), `restsOnScreen` whether the forecast has the motion come to rest with it on screen.
    func quality(for priority: FetchPriority, now: Double, restsOnScreen: Bool, constrained: Bool) -> FetchQuality {
        if priority.level >= .visible { return .full }
        if constrained { return .preview }
        guard priority.level >= .prefetch else { return .preview }
        if restsOnScreen { return .full }
        // A prefetch's order is its arrival on screen, in seconds of the frames' clock.
        return priority.order - now <= fullWithin.seconds ? .full : .preview
    }
}

extension PrefetchController {
    /// Sets each request's quality under `plan` (see ``PreviewPlan``), and requests in full the
    /// items held as previews that now arrive within the plan's horizon.
    @usableFromInline
    func allotQualities<Geometry: ItemGeometry>(_ update: inout PrefetchUpdate<Item>, plan: PreviewPlan, now: Double, geometry: Geometry)
    where Geometry.Item == Item {
        let forecast = planner.forecast, constrained = planner.conditions.isConstrained
        // What the target no longer holds, or holds under another name.
        for item in update.removed { previewsHeld[item] = nil }
        if !update.moved.isEmpty {
            let carried = update.moved.compactMap { move in previewsHeld.removeValue(forKey: move.from).map { (move.to, $0) } }
            for (item, arrival) in carried { previewsHeld[item] = arrival }
        }
        for item in update.withdrawals { previewsHeld[item] = nil }
        var named = Set<Item>()
        for index in update.requests.indices {
            let item = update.requests[index].item, priority = update.requests[index].priority
            var rests = false
            if priority.level == .prefetch, let forecast, let extent = geometry.extent(of: item) {
                rests = forecast.shows(extent, at: .infinity)
            }
            let quality = plan.quality(for: priority, now: now, restsOnScreen: rests, constrained: constrained)
            update.requests[index].quality = quality
            if quality == .preview {
                previewsHeld[item] = priority.level == .prefetch ? priority.order : .infinity
            } else {
                previewsHeld[item] = nil
            }
            if !previewsHeld.isEmpty { named.insert(item) }
        }
        // Items coming near: their previews are (or will be) in; now their full values.
        guard !constrained else { return }
        let horizon = plan.fullWithin.seconds
        let near = previewsHeld.filter { item, arrival in arrival - now <= horizon && !named.contains(item) }.map(\.key)
        for item in near {
            previewsHeld[item] = nil
            guard let priority = planner.requestedPriority(of: item) else { continue }
            update.requests.append(PrefetchRequest(item: item, priority: priority, quality: .full))
        }
    }
}
