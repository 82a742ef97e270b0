import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport

/// Plays a scenario's motion on a view, frame by frame: the one gesture driver of the
/// simulator, the demo and the tests.
///
/// Call ``input(to:at:frameDuration:)`` once a frame, before stepping the view. Gestures run one
/// after another: a drag moves the content at its speed for its duration and lets go without a
/// fling; a fling starts the view's deceleration and lasts until the view rests; a jump scrolls
/// to its item at once (clamped to the last item); a pause waits. Recorded offsets are played by
/// their phases (inferred by `TracePhases.inferred(_:offsetRange:)` when the trace has none):
/// `touching` samples are followed as a drag, interpolated between samples; at touch-up the view
/// is flung with the velocity that rests at the sample's resting offset, so the view's
/// `scrollState` gives the controller that offset as UIKit would, and it coasts until the trace
/// touches again or goes idle; an `idle` sample stops the view at its offset (a jump when the
/// offset changed).
///
/// ```swift
/// var gestures = GestureDriver(gestures: [.fling(velocity: 3_000), .pause(duration: 0.5)])
/// for frame in 1...120 {
///     let t = Double(frame) / 60
///     try gestures.input(to: view, at: t, frameDuration: 1.0 / 60)
///     view.step(to: t)
/// }
/// ```
@MainActor
public struct GestureDriver: FrameInput {
    private enum Active {
        case idle
        case drag(speed: Double, until: Double)
        case fling
        case pause(until: Double)
        case animation
    }

    /// The app whose code plays the app's gestures: it scrolls for `animate`, `statusBarTap` and
    /// `restore` (telling its prefetcher, then moving the view, as a UIKit app does) and changes
    /// its data for `insertAbove` and `deleteAbove`. Without one the driver scrolls the view
    /// itself, and an insert or a delete is an error.
    public var app: (any AppActions)?
    /// Gestures that happen during the one before them (an insert with `after`), by time.
    private var scheduled: [(time: Double, gesture: ScrollGesture, index: Int)] = []

    private let gestures: [ScrollGesture]
    private let samples: [OffsetSample]
    private var next = 0
    private var active = Active.idle
    private var samplesEnded = false
    /// The samples with their phases (inferred on the first frame when the trace has none).
    private var phased: [OffsetSample]?
    /// The touch-up sample whose fling has started.
    private var flungAt: Int?

    /// A driver for `motion`.
    init(_ motion: Scenario.Motion) {
        switch motion {
        case .gestures(let gestures):
            self.gestures = gestures
            samples = []
        case .samples(let samples):
            gestures = []
            self.samples = samples
        }
    }

    /// A driver for `gestures`, one after another.
    public init(gestures: [ScrollGesture]) {
        self.init(.gestures(gestures))
    }

    /// Whether the motion has been played out (a fling counts until the view rests).
    public var isFinished: Bool {
        if !samples.isEmpty { return samplesEnded }
        if case .idle = active { return next >= gestures.count && scheduled.isEmpty }
        return false
    }

    /// Gives the view its input for the frame at `time` (frames are `frameDuration` apart).
    ///
    /// - Throws: ``SimulationError`` for a time or frame duration that is negative or not finite,
    ///   or a gesture with a value that is not finite (naming the gesture); the view's error when
    ///   a jump's item is refused.
    public mutating func input(to view: ItemScrollView, at time: Double, frameDuration: Double) throws {
        guard time.isFinite, time >= 0 else { throw SimulationError("gesture time is \(time) s, but it must be a finite number, at least 0") }
        guard frameDuration.isFinite, frameDuration >= 0 else {
            throw SimulationError("frame duration is \(frameDuration) s, but it must be a finite number, at least 0")
        }
        if !samples.isEmpty {
            try follow(view, at: time, frameDuration: frameDuration)
            return
        }
        if case .fling = active, !view.isDecelerating { active = .idle }
        while let first = scheduled.first, first.time <= time + 1e-9 {
            scheduled.removeFirst()
            try changeData(first.gesture, at: "gestures[\(first.index)]")
        }
        while case .idle = active, next < gestures.count {
            let gesture = gestures[next]
            next += 1
            try gesture.validate(itemCount: .max, at: "gestures[\(next - 1)]")
            // What happens during this gesture, timed from its start.
            while next < gestures.count, let after = gestures[next].during {
                try gestures[next].validate(itemCount: .max, at: "gestures[\(next)]")
                scheduled.append((time - frameDuration + after, gestures[next], next))
                next += 1
            }
            scheduled.sort { $0.time < $1.time }
            switch gesture {
            case .drag(let speed, let duration):
                active = .drag(speed: speed, until: time - frameDuration + duration)
            case .fling(let velocity):
                view.fling(velocity: velocity)
                active = .fling
            case .jump(let item):
                let count = view.numberOfItemsInFirstSection
                guard count > 0 else { continue }
                // `IndexPath(indexes:)`, not `IndexPath(item:section:)`: on iOS that initializer is
                // UIKit's, and this module does not import UIKit.
                try view.scrollToItem(at: IndexPath(indexes: [0, min(max(item, 0), count - 1)]), at: .top, animated: false)
            case .pause(let duration):
                active = .pause(until: time - frameDuration + duration)
            case .flingFor(let velocity, let duration):
                view.fling(velocity: velocity)
                active = .pause(until: time - frameDuration + duration)
            case .animate(let item, let duration):
                let count = view.numberOfItemsInFirstSection
                guard count > 0, let extent = view.cellExtent(at: IndexPath(indexes: [0, min(item, count - 1)]), along: .vertical) else { continue }
                scroll(view, to: extent.lowerBound - view.contentInset.top, animated: true, duration: duration)
            case .statusBarTap:
                scroll(view, to: view.contentOffsetRange.lowerBound, animated: true, duration: ScrollGesture.defaultAnimationDuration)
            case .restore(let offset):
                scroll(view, to: offset, animated: false, duration: 0)
            case .rotate(let width, let height):
                view.frame = CGRect(x: 0, y: 0, width: width, height: height)
            case .insertAbove, .deleteAbove:
                try changeData(gesture, at: "gestures[\(next - 1)]")
            }
        }
        switch active {
        case .drag(let speed, let until):
            if time <= until + 1e-9 {
                view.drag(by: speed * frameDuration)
            } else {
                view.endDragging()
                active = .idle
            }
        case .pause(let until):
            if time > until + 1e-9 { active = .idle }
        case .animation:
            if !view.isScrollAnimating { active = .idle }
        case .fling, .idle:
            break
        }
    }

    /// An insert or a delete above, by the app.
    private func changeData(_ gesture: ScrollGesture, at path: String) throws {
        guard let app else { throw SimulationError(path: path, "an insert or a delete needs an app to change its data; this driver plays a bare view") }
        switch gesture {
        case .insertAbove(let count, _): try app.insertAbove(count: count)
        case .deleteAbove(let count, _): try app.deleteAbove(count: count)
        default: break
        }
    }

    /// A programmatic scroll to `offset` (clamped to the content): through the app when there is one.
    private mutating func scroll(_ view: ItemScrollView, to offset: Double, animated: Bool, duration: Double) {
        let target = view.contentOffsetRange.clamp(offset)
        if let app {
            app.scroll(to: target, animated: animated, duration: duration)
        } else {
            view.setContentOffset(CGPoint(x: view.contentOffset.x, y: target), animated: animated, duration: duration, curve: .easeInOut)
        }
        if animated { active = .animation }
    }

    private mutating func follow(_ view: ItemScrollView, at time: Double, frameDuration: Double) throws {
        guard !samplesEnded else { return }
        if let bad = samples.firstIndex(where: { !$0.offset.isFinite || !$0.time.isFinite }) {
            throw SimulationError(path: "samples[\(bad)]", "time \(samples[bad].time) and offset \(samples[bad].offset) must be finite")
        }
        if phased == nil {
            phased = samples.contains { $0.phase != nil } ? samples : TracePhases.inferred(samples, offsetRange: view.contentOffsetRange)
        }
        let samples = phased ?? self.samples
        let current = samples.lastIndex { $0.time <= time + 1e-9 } ?? 0
        switch samples[current].phase ?? .touching {
        case .touching:
            view.drag(by: Self.interpolate(samples, at: time) - view.contentOffset.y)
        case .decelerating:
            var touchUp = current
            while touchUp > 0, samples[touchUp - 1].phase == .decelerating { touchUp -= 1 }
            if flungAt != touchUp {
                flungAt = touchUp
                // The fling starts from where the trace had the content at the view's last step
                // (the view coasts from its current time), toward the offset UIKit predicted.
                let start = view.contentOffsetRange.clamp(Self.interpolate(samples, at: max(0, time - frameDuration)))
                let resting = samples[touchUp].restingOffset ?? samples[current].offset
                view.drag(by: start - view.contentOffset.y)
                view.fling(velocity: Deceleration.releaseVelocity(restingAfter: resting - start, rate: view.decelerationRate.rawValue))
            }
        case .idle:
            if view.isDragging || view.isDecelerating { view.endDragging() }
            let target = samples[current].offset
            if abs(view.contentOffset.y - target) > 1e-6 {
                view.setContentOffset(CGPoint(x: view.contentOffset.x, y: target), animated: false)
            }
        }
        if time >= samples[samples.count - 1].time {
            if view.isDragging { view.endDragging() }
            samplesEnded = true
        }
    }

    /// The offset at `time`, interpolated linearly between the samples around it.
    static func interpolate(_ samples: [OffsetSample], at time: Double) -> Double {
        guard time > samples[0].time else { return samples[0].offset }
        guard let upper = samples.firstIndex(where: { $0.time >= time }) else { return samples[samples.count - 1].offset }
        let a = samples[upper - 1], b = samples[upper]
        guard b.time > a.time else { return b.offset }
        return a.offset + (b.offset - a.offset) * (time - a.time) / (b.time - a.time)
    }
}

/// What an app's own code does to its view (not the user's finger): scroll it programmatically
/// and change its data. ``GestureDriver`` asks the app to play these gestures, so they go through
/// the app's path as on iOS.
@MainActor
public protocol AppActions: AnyObject {
    /// Scrolls the view to `offset` (in the content), with animation (UIKit's ease-in-out, over
    /// `duration` seconds) or at once, telling the app's prefetcher first.
    func scroll(to offset: Double, animated: Bool, duration: Double)
    /// Inserts `count` items above the first, keeping the user's place.
    func insertAbove(count: Int) throws
    /// Deletes the first `count` items, keeping the user's place.
    func deleteAbove(count: Int) throws
}

extension ClosedRange<Double> {
    /// `value`, clamped to the range.
    func clamp(_ value: Double) -> Double { Swift.min(Swift.max(value, lowerBound), upperBound) }
}

extension ItemScrollView {
    /// The number of items in section 0, for either kind of view.
    var numberOfItemsInFirstSection: Int {
        guard numberOfSections > 0 else { return 0 }
        if let collectionView = self as? CollectionView { return collectionView.numberOfItems(inSection: 0) }
        if let tableView = self as? TableView { return tableView.numberOfRows(inSection: 0) }
        return 0
    }
}
