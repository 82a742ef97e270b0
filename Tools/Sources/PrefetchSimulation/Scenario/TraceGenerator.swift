import Foundation
import PrefetchKit
import PrefetchToolSupport

/// Writes scroll traces from a stochastic user model: `prefetch-bench generate`.
///
/// The model, per profile (every draw from one `SplitMix64` seeded by the trace's seed, so the
/// same seed gives the same trace):
/// - `feed`: a list of 300-point posts. The user reads (a log-normal dwell with a median of
///   1.7 s per post on screen, after Facebook's measurement of about 1.7 s per feed item on
///   mobile), then drags on by about a post (55 %) or flicks (30 %, 800–5,000 pt/s,
///   log-uniform); 10 % of moves go back up; 3 % are jumps (scroll to top, or a programmatic
///   scroll to a random post).
/// - `search`: a list of 66-point rows. Long flings (3,000–12,000 pt/s) with short pauses
///   (0.2–0.8 s) while looking for something, a reversal now and then (15 %), sometimes a
///   slow drag to read a result, and jumps (3 %).
/// - `gallery`: the grid of Apple's sample, 150×100 items. Flicks (1,000–6,000 pt/s) with 0.4–2 s
///   looks, drags, reversals (12 %) and jumps (3 %).
///
/// Moving samples are taken 30 times a second with their phase (a rest is two idle samples); a fling's touch-up carries the resting
/// offset UIKit's normal deceleration (0.998 per ms) predicts, and its deceleration is sampled
/// from the same formula, stopping below 1 pt/s or at an end of the content.
public enum TraceGenerator {
    /// A kind of user session.
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        /// Reading a feed of posts.
        case feed
        /// Searching a long list with long flings.
        case search
        /// Browsing a grid of thumbnails.
        case gallery
    }

    /// The sampling rate of generated traces, per second.
    static let sampleRate = 30.0
    /// The deceleration rate of generated flings, per ms (UIKit's normal rate, `Deceleration.normalRate`).
    static let decelerationRate = Deceleration.normalRate

    /// The limits `prefetch-bench generate` enforces.
    public static let countRange = 1...10_000
    /// The trace length limits, in seconds.
    public static let durationRange = 5.0...600.0

    /// The trace of one seed: a `profile` session of at least `duration` seconds (its last move finishes, then half a second of rest).
    /// - Throws: ``SimulationError`` naming a duration out of range.
    public static func trace(profile: Profile, seed: UInt64, duration: Double = 30) throws -> Scenario {
        try check(duration: duration)
        var model = Model(profile: profile, seed: seed)
        while model.time < duration { model.act() }
        model.idle(for: 0.5)
        return Scenario(name: "\(profile.rawValue)-\(seed)", layout: model.layout, viewport: model.viewport, motion: .samples(model.samples))
    }

    /// - Throws: ``SimulationError`` naming a duration out of ``durationRange``.
    static func check(duration: Double) throws {
        guard duration.isFinite, durationRange.contains(duration) else {
            throw SimulationError("duration \(duration) s is out of range; use \(durationRange.lowerBound) to \(durationRange.upperBound) s")
        }
    }

    private struct Model {
        let profile: Profile
        let layout: ScenarioLayout
        let viewport: Viewport
        let range: ClosedRange<Double>
        var random: SplitMix64
        var time = 0.0
        var offset = 0.0
        var samples: [OffsetSample] = []

        init(profile: Profile, seed: UInt64) {
            self.profile = profile
            switch profile {
            case .feed:
                layout = ScenarioLayout(kind: .list, itemCount: 2_000, itemWidth: 0, itemHeight: 300, spacing: 0)
                viewport = .phoneList
            case .search:
                layout = .list(itemCount: 5_000)
                viewport = .phoneList
            case .gallery:
                layout = .grid(itemCount: 10_000)
                viewport = .seedGrid
            }
            range = layout.offsetRange(viewport: viewport)
            random = SplitMix64(seed: seed ^ 0x7F4A_7C15_9E37_79B9)
            samples = [OffsetSample(time: 0, offset: 0, phase: .idle)]
        }

        mutating func emit(_ phase: TracePhase, resting: Double? = nil) {
            samples.append(OffsetSample(time: time, offset: offset, phase: phase, restingOffset: resting))
        }

        /// The direction of the next move: mostly down, back up with probability `back`, and
        /// always away from an end of the content.
        mutating func direction(back: Double) -> Double {
            if offset <= range.lowerBound + 1 { return 1 }
            if offset >= range.upperBound - 1 { return -1 }
            return random.chance(back) ? -1 : 1
        }

        mutating func act() {
            switch profile {
            case .feed:
                idle(for: random.logNormal(median: 1.7, sigma: 0.5))
                let roll = random.nextUnitInterval()
                let sign = direction(back: 0.1)
                if roll < 0.03 { jump() } else if roll < 0.58 {
                    drag(speed: sign * random.uniform(300, 900), distance: random.uniform(0.6, 1.4) * layout.itemHeight)
                } else { flick(velocity: sign * random.logUniform(800, 5_000)) }
            case .search:
                idle(for: random.uniform(0.2, 0.8))
                let roll = random.nextUnitInterval()
                let sign = direction(back: 0.15)
                if roll < 0.03 { jump() } else if roll < 0.2 {
                    drag(speed: sign * random.uniform(150, 500), distance: random.uniform(100, 400))
                    idle(for: random.logNormal(median: 1.5, sigma: 0.4))
                } else { flick(velocity: sign * random.logUniform(3_000, 12_000)) }
            case .gallery:
                idle(for: random.uniform(0.4, 2))
                let roll = random.nextUnitInterval()
                let sign = direction(back: 0.12)
                if roll < 0.03 { jump() } else if roll < 0.4 {
                    drag(speed: sign * random.uniform(200, 800), distance: random.uniform(100, 500))
                } else { flick(velocity: sign * random.logUniform(1_000, 6_000)) }
            }
        }

        /// Nothing moves for `seconds` (rounded to whole samples): two idle samples, one at each end.
        mutating func idle(for seconds: Double) {
            emit(.idle)
            time += Double(max(1, Int((seconds * sampleRate).rounded()))) / sampleRate
            emit(.idle)
        }

        /// A finger moves the content `distance` points (sign from `speed`) at `speed`, then lifts without a fling.
        mutating func drag(speed: Double, distance: Double) {
            emit(.touching)
            let steps = max(1, Int((distance / abs(speed) * sampleRate).rounded()))
            for _ in 0..<steps {
                time += 1 / sampleRate
                offset = range.clamp(offset + speed / sampleRate)
                emit(.touching)
            }
            time += 1 / sampleRate
            emit(.idle)
        }

        /// A short swipe at `velocity`, touch-up, then UIKit's deceleration to rest.
        mutating func flick(velocity: Double) {
            emit(.touching)
            for _ in 0..<3 {
                time += 1 / sampleRate
                offset = range.clamp(offset + velocity / sampleRate)
                emit(.touching)
            }
            let r = decelerationRate
            let start = offset, startTime = time
            let resting = range.clamp(Deceleration.restingOffset(from: start, velocity: velocity, rate: r))
            time += 1 / sampleRate
            var ms = (time - startTime) * 1000
            offset = range.clamp(start + Deceleration.distance(from: velocity, afterMilliseconds: ms, rate: r))
            emit(.decelerating, resting: resting)
            while abs(Deceleration.velocity(from: velocity, afterMilliseconds: ms, rate: r)) >= Deceleration.restingSpeed,
                  offset > range.lowerBound, offset < range.upperBound {
                time += 1 / sampleRate
                ms = (time - startTime) * 1000
                offset = range.clamp(start + Deceleration.distance(from: velocity, afterMilliseconds: ms, rate: r))
                emit(.decelerating)
            }
            time += 1 / sampleRate
            offset = resting
            emit(.idle)
        }

        /// Scroll to top (40 %) or a programmatic scroll to a random place: a jump between idle samples.
        mutating func jump() {
            emit(.idle)
            time += 1 / sampleRate
            offset = random.chance(0.4) ? 0 : range.clamp(random.uniform(range.lowerBound, range.upperBound))
            emit(.idle)
        }
    }
}

/// The draws of the user models.
extension SplitMix64 {
    /// A draw uniform in `a..<b`.
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * nextUnitInterval() }
    /// A draw whose logarithm is uniform in `log(a)..<log(b)`.
    mutating func logUniform(_ a: Double, _ b: Double) -> Double { exp(uniform(log(a), log(b))) }
    /// `true` with probability `p`.
    mutating func chance(_ p: Double) -> Bool { nextUnitInterval() < p }
    /// A log-normal draw with this median and a spread of `sigma`.
    mutating func logNormal(median: Double, sigma: Double) -> Double {
        let u1 = max(nextUnitInterval(), 1e-12), u2 = nextUnitInterval()
        return median * exp(sigma * sqrt(-2 * log(u1)) * cos(2 * .pi * u2))
    }
}
