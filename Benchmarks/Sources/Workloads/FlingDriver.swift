import Foundation
import PrefetchCollectionView
import PrefetchKit

/// The frame-step workload: a `CollectionView` in a 10,000 pt/s fling, stepped at 120 Hz.
///
/// Both grid sizes run the same sequence of offsets, so they show the same items with the same
/// index paths; only the number of items differs. The fling runs inside a fixed band of
/// content, `regionStart..<regionEnd` (20,000 to 40,000 pt), that lies well inside the
/// 1,000-item grid (54,990 pt tall) including the widest prefetch window (adaptive: about
/// 5,400 pt ahead at this speed), so neither grid ever meets an end of its content:
///
/// - ``prepareFrame()`` (not measured) re-flings at 10,000 pt/s whenever the speed has decayed
///   below 9,000 pt/s (every 6 to 7 frames), so every measured frame moves at 9,000 to
///   10,000 pt/s (75 to 83 pt per frame);
/// - when the offset passes `regionEnd`, or the view stopped, it jumps back to `regionStart`,
///   flings, and steps one frame, all unmeasured: the jump's layout pass rebuilds every cell
///   and the prefetch window, which is not a frame of a fling.
///
/// ``frame()`` is the measured step: one `step(to:)`, 1/120 s after the previous one.
@MainActor
public final class FlingDriver {
    nonisolated public static let frameInterval = 1.0 / 120
    nonisolated public static let flingVelocity = 10_000.0
    nonisolated public static let reflingBelow = 9_000.0
    nonisolated public static let regionStart = 20_000.0
    nonisolated public static let regionEnd = 40_000.0
    nonisolated public static let itemSize = CGSize(width: 150, height: 100)
    nonisolated public static let viewFrame = CGRect(x: 0, y: 0, width: 343, height: 333)

    public let view: CollectionView
    // The view holds its data sources weakly.
    private let source: MinimalDataSource
    private var time = 0.0
    /// Unmeasured jumps back to `regionStart`.
    public private(set) var jumps = 0
    /// Measured frames.
    public private(set) var frames = 0

    /// - Parameters:
    ///   - items: The number of items in the grid's one section.
    ///   - policy: The view's prefetch policy.
    ///   - prefetching: Whether the view has a prefetch data source. Without one the view plans
    ///     no prefetching at all (it still prepares cells ahead), which isolates the cost of the
    ///     prefetch planning as the difference between the two.
    public init(items: Int, policy: any PrefetchPolicy, prefetching: Bool = true) {
        let layout: FlowLayout
        do {
            layout = try FlowLayout(itemSize: Self.itemSize, minimumLineSpacing: 10, minimumInteritemSpacing: 10)
        } catch {
            preconditionFailure("FlowLayout rejected the item size of Apple's sample: \(error)")
        }
        view = CollectionView(frame: Self.viewFrame, collectionViewLayout: layout)
        source = MinimalDataSource(items: items)
        view.register(CollectionViewCell.self, forCellWithReuseIdentifier: MinimalDataSource.reuseIdentifier)
        view.prefetchPolicy = policy
        view.dataSource = source
        if prefetching { view.prefetchDataSource = source }
        view.step(to: time)
        precondition(
            view.contentSize.height - view.bounds.height > Self.regionEnd + 10_000,
            "the grid of \(items) items is too short for the fling band"
        )
        restart()
    }

    /// Not measured: keeps the view flinging at 9,000 to 10,000 pt/s inside the band.
    public func prepareFrame() {
        if view.contentOffset.y >= Self.regionEnd || !view.isDecelerating {
            restart()
        } else if view.velocity < Self.reflingBelow {
            view.fling(velocity: Self.flingVelocity)
        }
    }

    /// The measured frame: one `step(to:)`.
    @inline(never)
    public func frame() {
        time += Self.frameInterval
        view.step(to: time)
        frames += 1
    }

    private func restart() {
        view.contentOffset = CGPoint(x: 0, y: Self.regionStart)
        view.fling(velocity: Self.flingVelocity)
        time += Self.frameInterval
        view.step(to: time)
        jumps += 1
    }
}

/// A data source wired as an app wires one to a fetcher: `cellForItemAt` asks the view's
/// controller for the item's priority (`fetchPriority(forItemAt:)`, what it would pass to
/// `fetchAsync`), and the prioritized prefetch data source takes the controller's decisions
/// and reports a measured latency (150 ms median, 500 ms expected) and a cap of 6, so the
/// controller ranks with measured latencies, as with a fetcher. Loading itself is left out:
/// the benchmark measures the frame, not the fetcher.
@MainActor
final class MinimalDataSource: CollectionViewDataSource, CollectionViewDataSourcePrioritizedPrefetching {
    static let reuseIdentifier = "Cell"
    let items: Int
    /// Keeps the priorities and the requests observable, so neither is optimised away.
    private(set) var checksum = 0.0

    init(items: Int) { self.items = items }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { items }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        checksum += collectionView.fetchPriority(forItemAt: indexPath).order
        return collectionView.dequeueReusableCell(withReuseIdentifier: Self.reuseIdentifier, for: indexPath)
    }

    func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        checksum += Double(update.requests.count - update.withdrawals.count)
    }

    var expectedLatency: Duration? { .milliseconds(500) }
    var typicalLatency: Duration? { .milliseconds(150) }
}

/// The scroll context the view gives its policy in the frame-step fling: the viewport at the
/// start of the band, 10,000 pt/s, coasting at UIKit's normal rate, in the 10,000,000-item grid
/// (5,000,000 rows of 110 pt, less the last spacing), with the data source's expected latency.
public let flingContext = ScrollContext(
    viewport: FlingDriver.regionStart..<(FlingDriver.regionStart + 333),
    contentLength: 5_000_000 * 110 - 10,
    velocity: FlingDriver.flingVelocity,
    phase: .decelerating(restingOffset: FlingDriver.regionStart + FlingDriver.flingVelocity * 0.998 / 2, rate: 0.998),
    expectedLatency: .milliseconds(500)
)

/// The grid sizes the frame step compares.
public let largeGrid = 10_000_000
public let smallGrid = 1_000
