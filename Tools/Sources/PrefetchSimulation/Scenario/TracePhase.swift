import Foundation
import PrefetchKit
import PrefetchToolSupport

/// What moved the content at a recorded sample, as UIKit tells an app: a finger on the screen,
/// coasting after a fling, or nothing.
enum TracePhase: String, Sendable, Hashable, CaseIterable {
    /// A finger drags the content (`isDragging`).
    case touching
    /// The content coasts after a fling (`isDecelerating`); the touch-up sample carries the
    /// predicted resting offset (`targetContentOffset`).
    case decelerating
    /// Nothing moves the content. An idle sample whose offset differs from the previous idle
    /// sample's is a jump (scroll to top, a programmatic scroll without animation).
    case idle
}

/// Checking and inferring the phases of recorded samples.
///
/// The rules (see <doc:TraceFormat>):
/// - Either every sample carries a phase or none does.
/// - A trace cannot start decelerating, and `idle` cannot be followed by `decelerating`:
///   a deceleration starts at touch-up, after `touching`.
/// - Only the touch-up sample (the first `decelerating` sample after `touching`) may carry a
///   resting offset; it must lie in the content (`0...contentLength - viewport height`).
///   When missing, the run's last decelerating offset stands in.
enum TracePhases {
    /// The deceleration rates inference recognises: UIKit's normal (0.998) and fast (0.99), per ms
    /// (`Deceleration.normalRate` and `Deceleration.fastRate`).
    static let recognisedRates: [Double] = [Deceleration.normalRate, Deceleration.fastRate]

    /// Checks the samples' phases and fills in any missing resting offset.
    /// - Throws: ``SimulationError`` naming the sample (`samples[i][2]` or `[3]`) and the rule.
    static func checked(_ samples: [OffsetSample], offsetRange: ClosedRange<Double>) throws -> [OffsetSample] {
        let phased = samples.filter { $0.phase != nil }.count
        if phased == 0 {
            if let bad = samples.firstIndex(where: { $0.restingOffset != nil }) {
                throw SimulationError(path: "samples[\(bad)][3]", "a resting offset needs a phase: \"decelerating\" at samples[\(bad)][2]")
            }
            return samples
        }
        if phased < samples.count, let bad = samples.firstIndex(where: { $0.phase == nil }) {
            throw SimulationError(path: "samples[\(bad)][2]", "is missing; once one sample carries a phase, every sample must")
        }
        var result = samples
        for (i, sample) in samples.enumerated() {
            let previous = i > 0 ? samples[i - 1].phase : nil
            let touchUp = sample.phase == .decelerating && previous == .touching
            if sample.phase == .decelerating, !touchUp, previous != .decelerating {
                throw SimulationError(
                    path: "samples[\(i)][2]",
                    "phase \"decelerating\" follows \(previous.map { "\"\($0.rawValue)\"" } ?? "the start of the trace"); a deceleration starts at touch-up, after \"touching\"")
            }
            if let resting = sample.restingOffset {
                guard touchUp else {
                    throw SimulationError(path: "samples[\(i)][3]", "a resting offset is given only at touch-up, the first \"decelerating\" sample after \"touching\"")
                }
                guard resting.isFinite, offsetRange.contains(resting) else {
                    throw SimulationError(
                        path: "samples[\(i)][3]",
                        "resting offset \(resting) is outside the content; it must lie in \(offsetRange.lowerBound)...\(offsetRange.upperBound)")
                }
            } else if touchUp {
                var last = i
                while last + 1 < samples.count, samples[last + 1].phase == .decelerating { last += 1 }
                result[i].restingOffset = min(max(samples[last].offset, offsetRange.lowerBound), offsetRange.upperBound)
            }
        }
        return result
    }

    /// The speed (points per second) above which an interval between two samples without phases
    /// is a jump (a programmatic scroll without animation) rather than a drag: 50,000. No finger
    /// or fling comes close; the generated traces' drags and flings stay below 12,000.
    static let jumpSpeed = 50_000.0

    /// Infers the phases of samples that carry none.
    ///
    /// A run of at least three intervals moving the same way whose mean speeds each fall by UIKit's
    /// deceleration (a recognised rate, within a quarter of the expected drop) is a fling: its first
    /// sample is the touch-up, with the resting offset the rate predicts from the speed there
    /// (clamped to `offsetRange`), and the run's other samples are `decelerating`. The run goes on
    /// while the samples stay on the deceleration curve from the touch-up (within the larger of 2
    /// points and 1 % of the fling's length) and the view would still move, so offsets rounded to
    /// the pixel grid, whose slow speeds no longer fall by the rate, keep the fling to its end.
    /// Any other sample is `touching` when the content moves in the interval after it, `idle`
    /// otherwise (and the last). An interval faster than ``jumpSpeed`` is a jump, not a drag: the
    /// sample before it is `idle` (unless it ends a deceleration), so the replay puts the view at
    /// the next sample's offset at once, as a recorded jump's `idle` samples do.
    static func inferred(_ samples: [OffsetSample], offsetRange: ClosedRange<Double>) -> [OffsetSample] {
        var result = samples.map { sample -> OffsetSample in
            var s = sample
            s.phase = nil
            s.restingOffset = nil
            return s
        }
        let n = samples.count
        guard n > 0 else { return result }
        // Mean velocity over each interval (nil when the interval has no duration).
        let velocity: [Double?] = (0..<max(0, n - 1)).map { i in
            let dt = samples[i + 1].time - samples[i].time
            return dt > 0 ? (samples[i + 1].offset - samples[i].offset) / dt : nil
        }
        func moving(_ i: Int) -> Bool {
            guard i < velocity.count else { return false }
            let speed = abs(velocity[i] ?? 0)
            return speed >= Deceleration.restingSpeed && speed < jumpSpeed
        }
        func decays(_ i: Int, rate: Double) -> Bool {
            guard i + 1 < velocity.count, let a = velocity[i], let b = velocity[i + 1], abs(a) >= Deceleration.restingSpeed,
                  abs(b) >= Deceleration.restingSpeed, a.sign == b.sign else { return false }
            let gap = ((samples[i + 2].time + samples[i + 1].time) - (samples[i + 1].time + samples[i].time)) / 2 * 1000
            let expected = Deceleration.retainedFraction(afterMilliseconds: gap, rate: rate)
            return abs(b / a - expected) <= 0.25 * (1 - expected)
        }
        var decelerating = Array(repeating: false, count: n)
        var touchUps: [Int: Double] = [:]
        var i = 0
        while i < velocity.count {
            var matched = false
            for rate in recognisedRates {
                var end = i
                while decays(end, rate: rate) { end += 1 }
                // Intervals i...end decay: at least three of them make a fling.
                if end - i + 1 >= 3 {
                    let dtMs = (samples[i + 1].time - samples[i].time) * 1000
                    let mean = velocity[i]!
                    let start = Deceleration.initialSpeed(fromMeanSpeed: mean, overMilliseconds: dtMs, rate: rate)
                    let resting = Deceleration.restingOffset(from: samples[i].offset, velocity: start, rate: rate)
                    touchUps[i] = min(max(resting, offsetRange.lowerBound), offsetRange.upperBound)
                    // Follow the fling on past where the speeds stop fitting: offsets rounded to
                    // the pixel grid make slow speeds noisy, but the samples stay on the curve from
                    // the touch-up until the view stops or the finger takes it again.
                    let curve = FlingCurve(origin: samples[i], resting: resting, rate: rate)
                    while end + 1 < velocity.count, curve.isMoving(at: samples[end + 1].time), curve.fits(samples[end + 2]),
                          (velocity[end + 1] ?? 0) * mean >= 0 {
                        end += 1
                    }
                    for k in i...end { decelerating[k] = true }
                    i = end + 1
                    matched = true
                    break
                }
            }
            if !matched { i += 1 }
        }
        for k in 0..<n {
            if decelerating[k] {
                result[k].phase = .decelerating
                result[k].restingOffset = touchUps[k]
            } else {
                result[k].phase = moving(k) ? .touching : .idle
            }
        }
        // A touch-up follows touching: a fling from rest (no touching sample before it) starts with one.
        for (k, _) in touchUps where k == 0 || result[k - 1].phase != .touching {
            result[k].phase = .touching
            result[k].restingOffset = nil
            if k + 1 < n, result[k + 1].phase == .decelerating {
                result[k + 1].restingOffset = touchUps[k]
            }
        }
        return result
    }
}

extension ScenarioLayout {
    /// The content's length along the scroll axis in `viewport`, as the simulated views lay it out.
    func contentLength(viewport: Viewport) -> Double {
        switch kind {
        case .list:
            if let rowHeights { return rowHeights.totalHeight(itemCount: itemCount) }
            return Double(itemCount) * itemHeight
        case .grid:
            // Columns that fit, at least 1 and at most one per item; computed in Double so that
            // any finite sizes from a file give a count, never an overflow trap.
            let fit = ((viewport.width - 2 * sectionInset + spacing) / (itemWidth + spacing)).rounded(.down)
            let most = Double(max(itemCount, 1))
            let columns = fit.isFinite ? Int(min(max(fit, 1), most)) : max(itemCount, 1)
            let rows = itemCount / columns + (itemCount % columns == 0 ? 0 : 1)
            return Double(rows) * itemHeight + Double(max(0, rows - 1)) * spacing + 2 * sectionInset
        }
    }

    /// The offsets the viewport's leading edge can take: `0...max(0, contentLength - height)`.
    func offsetRange(viewport: Viewport) -> ClosedRange<Double> {
        0...max(0, contentLength(viewport: viewport) - viewport.height)
    }
}

/// The offsets a fling takes from its touch-up, for `TracePhases.inferred(_:offsetRange:)`.
private struct FlingCurve {
    let time: Double
    let offset: Double
    let resting: Double
    /// `Deceleration.decayConstant(rate:)`, per second (negative).
    let decay: Double
    let tolerance: Double

    init(origin: OffsetSample, resting: Double, rate: Double) {
        time = origin.time
        offset = origin.offset
        self.resting = resting
        decay = Deceleration.decayConstant(rate: rate)
        tolerance = max(2, 0.01 * abs(resting - origin.offset))
    }

    func offset(at t: Double) -> Double { Deceleration.offset(after: t - time, from: offset, restingAt: resting, decay: decay) }

    /// Whether the view still moves at `t`: it stops once its speed falls below `Deceleration.restingSpeed`.
    func isMoving(at t: Double) -> Bool {
        Deceleration.speed(remainingDistance: abs(resting - offset(at: t)), decay: decay) >= Deceleration.restingSpeed
    }

    func fits(_ sample: OffsetSample) -> Bool { abs(sample.offset - offset(at: sample.time)) <= tolerance }
}
