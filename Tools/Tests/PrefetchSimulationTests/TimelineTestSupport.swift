import Foundation
@testable import PrefetchSimulation

extension NetworkTimeline {
    /// Takes every event up to `limit`, returning when each attempt ended, by key.
    mutating func endings(upTo limit: Duration = .seconds(100)) -> [Int: Duration] {
        var ended: [Int: Duration] = [:]
        while let next = nextEvent(), next.time <= limit {
            if take(next.event, at: next.time) != nil, case .ends(let key) = next.event { ended[key] = next.time }
        }
        return ended
    }
}

/// Whether `a` is `b` seconds, to a microsecond.
func isClose(_ a: Duration?, _ b: Double) -> Bool { a.map { abs($0.seconds - b) < 1e-6 } ?? false }
