import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// The prefetching of a library an app might use instead of PrefetchKit, modelled from its
/// documented defaults so that the bench can run it beside our policies (`prefetch-bench --peers`).
///
/// A peer is two things: a window (where it wants data loaded, as a ``PeerWindow``) and the way
/// it loads what enters the window (``Loading``: how many prefetches at once, in which order, at
/// which priority, and whether leaving the window cancels). The DocC article "Peers side by side"
/// gives each rule's source and what the model leaves out.
struct PeerModel: Sendable, Hashable {
    /// Where a peer wants data loaded.
    enum Window: Sendable, Hashable {
        /// UIKit's prefetch window, which drives the iOS image libraries' prefetchers: our `uikitLike`.
        case uikit
        /// FlashList v2's draw distance: `distance` on each side of the viewport, the two sides'
        /// sum split 70/30 toward the scroll direction, the viewport projected `projection`
        /// seconds ahead at the current velocity, and a side cut short by the content's edge
        /// giving its share to the other side.
        case drawDistance(Double, projection: Double)
        /// A margin of `distance` points on both sides of the viewport (Flutter's cache extent).
        case around(Double)
        /// Chrome's lazy-loading margin: `fast` points around the viewport when the round trip is
        /// below `slowRoundTrip` (an effective connection of 4G), `slow` points otherwise (3G or slower).
        case lazyLoading(fast: Double, slow: Double, slowRoundTrip: Duration)
        /// The next `count` items past the last visible one in the scroll direction (Glide's `maxPreload`).
        case itemsAhead(Int)
        /// Compose's lazy list: while scrolling, the next line in the scroll direction and every
        /// item within the average item size, clamped to `minShare`...`maxShare` of the
        /// viewport, ahead of it; nothing at rest, nothing behind.
        case nextItem(minShare: Double, maxShare: Double)
    }

    /// How a peer loads what enters its window.
    struct Loading: Sendable, Hashable {
        /// Whom a cap on prefetches at once counts.
        enum CapScope: Sendable, Hashable {
            /// One prefetcher for the screen: the cap counts every prefetch.
            case shared
            /// A prefetcher per `prefetchItemsAt` call: the cap counts that call's prefetches.
            case perBatch
        }

        /// The most prefetches at once (nil: no cap but the fetcher's); each runs until its load ends.
        var cap: Int?
        /// Whom the cap counts.
        var scope: CapScope = .shared
        /// The priority of a prefetch (visible loads are always `visible`, first come first served).
        var priority: FetchPriority
        /// Whether an item leaving the window cancels its prefetch (queued or running).
        var cancels: Bool
        /// Whether the window is where the framework builds its cells (FlashList, Compose,
        /// Flutter, the web, RecyclerView): then the view prepares no cells of its own ahead of
        /// display; UIKit's peers keep UIKit's cell preparation.
        var buildsCells: Bool
    }

    /// The name on the bench: `nuke`, `kingfisher`, …
    let name: String
    /// Where it wants data loaded.
    let window: Window
    /// How it loads it.
    let loading: Loading

    /// Every peer, in the order the bench runs them.
    static let all: [PeerModel] = [nuke, kingfisher, sdWebImage, flashList, compose, flutter, chrome, glide]

    /// Nuke's `ImagePrefetcher` behind UIKit's prefetch callbacks: 2 prefetches at once, low
    /// priority, `stopPrefetching` for items leaving the window.
    static let nuke = PeerModel(
        name: "nuke", window: .uikit, loading: Loading(cap: 2, priority: .prefetch, cancels: true, buildsCells: false))
    /// Kingfisher's documented pattern: a new `ImagePrefetcher(urls:).start()` per
    /// `prefetchItemsAt` call, 5 downloads at once each, in order, at the default priority, never stopped.
    static let kingfisher = PeerModel(
        name: "kingfisher", window: .uikit,
        loading: Loading(cap: 5, scope: .perBatch, priority: .visible, cancels: false, buildsCells: false))
    /// SDWebImage's shared `SDWebImagePrefetcher`: 3 at once, low priority, no cancel per item.
    static let sdWebImage = PeerModel(
        name: "sdwebimage", window: .uikit, loading: Loading(cap: 2, priority: .prefetch, cancels: false, buildsCells: false))
    /// FlashList v2 on iOS: a draw distance of 250 pt, offsets projected one 16 ms frame ahead.
    static let flashList = PeerModel(
        name: "flashlist", window: .drawDistance(250, projection: 0.016),
        loading: Loading(cap: nil, priority: .visible, cancels: true, buildsCells: true))
    /// Compose's `LazyColumn` default cache window (10-50 % of the viewport ahead while scrolling).
    static let compose = PeerModel(
        name: "compose", window: .nextItem(minShare: 0.1, maxShare: 0.5),
        loading: Loading(cap: nil, priority: .visible, cancels: true, buildsCells: true))
    /// Flutter's `RenderAbstractViewport.defaultCacheExtent`: 250 pt each way.
    static let flutter = PeerModel(
        name: "flutter", window: .around(250), loading: Loading(cap: nil, priority: .visible, cancels: false, buildsCells: true))
    /// Chrome's `loading="lazy"` images: 1,250 px around the viewport on 4G, 2,500 px on 3G and slower.
    static let chrome = PeerModel(
        name: "chrome", window: .lazyLoading(fast: 1_250, slow: 2_500, slowRoundTrip: .milliseconds(270)),
        loading: Loading(cap: nil, priority: .prefetch, cancels: false, buildsCells: true))
    /// Glide's `RecyclerViewPreloader` with `maxPreload` 10.
    static let glide = PeerModel(
        name: "glide", window: .itemsAhead(10), loading: Loading(cap: nil, priority: .visible, cancels: true, buildsCells: true))

    /// The window as a policy for a view of `geometry` on a network of `latency` (Chrome picks
    /// its margin from the round trip).
    func window(geometry: PeerGeometry, latency: LatencyModel) -> PeerWindow {
        let rule: PeerWindow.Rule
        switch window {
        case .uikit:
            rule = .uikit
        case .drawDistance(let distance, let projection):
            rule = .drawDistance(distance, projection: projection)
        case .around(let distance):
            rule = .around(distance)
        case .lazyLoading(let fast, let slow, let slowRoundTrip):
            rule = .around(Self.roundTrip(of: latency) >= slowRoundTrip ? slow : fast)
        case .itemsAhead(let count):
            rule = .lines(count: (count + geometry.itemsPerLine - 1) / geometry.itemsPerLine)
        case .nextItem(let minShare, let maxShare):
            rule = .nextLine(minShare: minShare, maxShare: maxShare)
        }
        return PeerWindow(name: name, rule: rule, geometry: geometry)
    }

    /// A network's typical round trip, as Chrome's network quality estimator would see it: the
    /// median of a log-normal model, a fixed latency, a bandwidth model's base.
    static func roundTrip(of latency: LatencyModel) -> Duration {
        switch latency.distribution {
        case .fixed(let duration): duration
        case .logNormal(let median, _): median
        case .bandwidth(let base, _): base
        }
    }
}

/// A peer as a policy the simulator runs: ``SimulationPolicy/peers``.
///
/// The simulator gives the view the peer's window for the scenario's geometry and network, and
/// its prefetcher instead of the fetcher's prioritized data source. Asked for a plan outside
/// the simulator, it plans for 100-point rows, one item each, under the `lte` profile.
struct PeerPolicy: PrefetchPolicy, Hashable {
    /// The peer.
    let model: PeerModel

    /// The peer's name.
    var name: String { model.name }

    /// The peer's window for 100-point rows under the `lte` profile.
    ///
    /// - Complexity: O(1).
    func plan(for context: ScrollContext) -> PrefetchPlan {
        model.window(geometry: .rows(of: 100), latency: LatencyProfile.lte.model).plan(for: context)
    }
}
