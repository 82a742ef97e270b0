/// How a ``PrefetchController`` allots bytes when its target can load previews: the full value
/// wherever it can be on time, a preview where only a preview can.
///
/// On a saturated link every byte a prefetch takes is a byte a visible cell waits for. A preview
/// (a progressive image's first scan, a thumbnail) costs a fraction of the full value and fills
/// a cell with something, so the controller asks for it where the full value would come late:
///
/// - on screen, and wherever the forecast has the motion come to rest (a fling's landing screen):
///   the full value;
/// - any item whose load typically takes at most ``fullWithin`` (the item's own load time when the
///   target knows its size, else the typical one): the full value. A link with room loads fast,
///   and then previews would only trade sharp cells for blurry ones;
/// - an item the forecast brings on screen no sooner than its load takes: the full value, which can
///   be there when it arrives;
/// - the rest (what arrives before a full load could finish, a fly-past, what lies beyond where the
///   motion stops or was left behind): a preview. An item held as a preview is requested again in
///   full once it arrives within ``fullWithin`` (and when it comes on screen), and the fetcher
///   completes the preview it has (a progressive prefix by a range request: no byte twice);
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
    /// A load that typically takes at most this long is always of the full value; an item held
    /// as a preview is upgraded once it arrives within this time.
    public let fullWithin: Duration

    /// A plan with `fullWithin` (2 s by default: ``standard``).
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` when
    ///   `fullWithin` is negative.
    public init(fullWithin: Duration = .seconds(2)) throws {
        guard fullWithin >= .zero else {
            throw PrefetchError(.invalidConfiguration, "PreviewPlan fullWithin is \(fullWithin), but it must not be negative")
        }
        self.fullWithin = fullWithin
    }

    /// Previews only where loads take more than 2 s, and full values for what arrives within 2 s.
    ///
    /// Chosen in the lab with preview slots (``FetcherConfiguration/previewSlots``): against 1 s,
    /// full readiness on appearing rose by half a point (lte) to a point (emerging) for the same
    /// blank time; longer horizons cost blank time under emerging and bytes under lte.
    public static let standard = PreviewPlan(validated: .seconds(2))

    private init(validated fullWithin: Duration) { self.fullWithin = fullWithin }

    /// The quality to request an item at, at `now` (seconds, the frames' clock): `level` is its
    /// rank's level, `arrival` when the forecast brings it on screen (infinity: never),
    /// `restsOnScreen` whether the motion comes to rest with it on screen, `loadSeconds` how long its
    /// full load typically takes.
    func quality(level: FetchPriority.Level, arrival: Double, now: Double, restsOnScreen: Bool, loadSeconds: Double,
                 constrained: Bool) -> FetchQuality {
        if level >= .visible { return .full }
        if constrained { return .preview }
        if restsOnScreen || loadSeconds <= fullWithin.seconds { return .full }
        return arrival.isFinite && arrival - now >= loadSeconds ? .full : .preview
    }
}

extension PrefetchController {
    /// Sets each request's quality under `plan` (see ``PreviewPlan``), and requests in full the
    /// items held as previews that now arrive within the plan's horizon.
    @usableFromInline
    func allotQualities<Geometry: ItemGeometry>(_ update: inout PrefetchUpdate<Item>, plan: PreviewPlan, now: Double, geometry: Geometry)
    where Geometry.Item == Item {
        let forecast = planner.forecast, constrained = planner.conditions.isConstrained
        let typical = planner.latency.typicalSeconds
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
            var (rests, arrival) = (false, Double.infinity)
            if priority.level < .visible, let forecast, let extent = geometry.extent(of: item) {
                rests = forecast.shows(extent, at: .infinity)
                arrival = forecast.window(of: extent).arrival
            }
            let loadSeconds = target?.typicalLatency(of: item)?.seconds ?? typical
            let quality = plan.quality(level: priority.level, arrival: arrival, now: now, restsOnScreen: rests,
                                       loadSeconds: loadSeconds, constrained: constrained)
            update.requests[index].quality = quality
            if quality == .preview {
                previewsHeld[item] = arrival
            } else {
                previewsHeld[item] = nil
            }
            if !previewsHeld.isEmpty { named.insert(item) }
        }
        // Items coming near: their previews are (or will be) in; now their full values.
        guard !constrained else { return }
        let horizon = plan.fullWithin.seconds
        // In the order they arrive, then as the planner first requested them: never the
        // dictionary's order, which differs from one process to the next.
        let due = previewsHeld.filter { item, arrival in arrival - now <= horizon && !named.contains(item) }
        for item in due.keys { previewsHeld[item] = nil }
        var near = due.compactMap { item, arrival in
            planner.requestedEntry(of: item).map { (item: item, arrival: arrival, priority: $0.priority, sequence: $0.sequence) }
        }
        near.sort { $0.arrival != $1.arrival ? $0.arrival < $1.arrival : $0.sequence < $1.sequence }
        for request in near {
            update.requests.append(PrefetchRequest(item: request.item, priority: request.priority, quality: .full))
        }
    }
}
