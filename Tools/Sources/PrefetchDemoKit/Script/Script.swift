import Foundation
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
    package var gestures: [ScrollGesture] {
        switch self {
        case .steady:
            [.pause(duration: 0.5), .drag(speed: 800, duration: 15)]
        case .fling:
            (0..<6).flatMap { _ in [ScrollGesture.fling(velocity: 3_000), .pause(duration: 0.8)] }
        case .reverse:
            (0..<3).flatMap { _ in
                [ScrollGesture.drag(speed: 600, duration: 4), .pause(duration: 0.3), .drag(speed: -600, duration: 2.5), .pause(duration: 0.3)]
            }
        case .jump:
            [400, 750, 100, 900].flatMap { [ScrollGesture.jump(item: $0), .pause(duration: 0.5), .drag(speed: 200, duration: 2)] }
        }
    }
}
