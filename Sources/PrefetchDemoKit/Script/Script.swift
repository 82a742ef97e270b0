import Foundation
import PrefetchCollectionView
import PrefetchSimulation

/// The built-in scroll scenarios of `--script`.
public enum Script: String, CaseIterable, Sendable {
    /// Half a second's look, then a steady 800 pt/s scroll for 15 s.
    case steady
    /// Six flings at 3,000 pt/s, each followed by a short look.
    case fling
    /// Down at 600 pt/s for 4 s, back up for 2.5 s, three times: the window flips on each reversal.
    case reverse
    /// Jumps to distant items, each followed by a short slow read.
    case jump

    /// The gestures, one after another.
    public var gestures: [Gesture] {
        switch self {
        case .steady:
            [.pause(duration: 0.5), .drag(speed: 800, duration: 15)]
        case .fling:
            (0..<6).flatMap { _ in [Gesture.fling(velocity: 3_000), .pause(duration: 0.8)] }
        case .reverse:
            (0..<3).flatMap { _ in
                [Gesture.drag(speed: 600, duration: 4), .pause(duration: 0.3), .drag(speed: -600, duration: 2.5), .pause(duration: 0.3)]
            }
        case .jump:
            [400, 750, 100, 900].flatMap { [Gesture.jump(item: $0), .pause(duration: 0.5), .drag(speed: 200, duration: 2)] }
        }
    }
}

/// Plays gestures on a view, frame by frame, as the simulator does.
@MainActor
package struct GesturePlayer {
    private enum Active {
        case idle
        case drag(speed: Double, until: Double)
        case fling
        case pause(until: Double)
    }

    private let gestures: [Gesture]
    private var next = 0
    private var active = Active.idle

    package init(_ gestures: [Gesture]) {
        self.gestures = gestures
    }

    /// Whether every gesture has been played out.
    package var isFinished: Bool {
        if case .idle = active { return next >= gestures.count }
        return false
    }

    /// Gives the view its input for the frame at `time` (frames are `frameDuration` apart);
    /// call before the view's step.
    package mutating func input(to view: ItemScrollView, at time: Double, frameDuration: Double) throws {
        if case .fling = active, !view.isDecelerating { active = .idle }
        while case .idle = active, next < gestures.count {
            let gesture = gestures[next]
            next += 1
            switch gesture {
            case .drag(let speed, let duration):
                active = .drag(speed: speed, until: time - frameDuration + duration)
            case .fling(let velocity):
                view.fling(velocity: velocity)
                active = .fling
            case .jump(let item):
                let last = max(0, view.numberOfItemsInFirstSection - 1)
                try view.scrollToItem(at: IndexPath(item: min(item, last), section: 0), at: .top, animated: false)
            case .pause(let duration):
                active = .pause(until: time - frameDuration + duration)
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
        case .fling, .idle:
            break
        }
    }
}

extension ItemScrollView {
    /// The number of items in section 0, for either kind of view.
    var numberOfItemsInFirstSection: Int {
        if let collectionView = self as? CollectionView { return collectionView.numberOfItems(inSection: 0) }
        if let tableView = self as? TableView { return tableView.numberOfRows(inSection: 0) }
        return 0
    }
}
