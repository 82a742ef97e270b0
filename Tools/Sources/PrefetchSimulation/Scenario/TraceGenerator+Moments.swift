import Foundation
import PrefetchToolSupport

extension TraceGenerator {
    /// The trace of one seed with the moments apps make (`prefetch-bench generate --moments`): a
    /// `profile` session of at least `duration` seconds, told as gestures, on a view that
    /// rubber-bands as UIKit's does by default.
    ///
    /// The user reads, drags and flings as in ``trace(profile:seed:duration:)``, and about one
    /// move in five is a moment instead:
    /// - `feed`: posts of different heights (``ScenarioLayout/feed(itemCount:seed:)``, drawn from
    ///   the seed), on half of the seeds sizing themselves (`layout.selfSizing`); new posts
    ///   arrive above, at rest and mid-drag, and old ones go; pulls to refresh past the top; a
    ///   status-bar tap, a restore, an animated scroll to a post, a jump; a rotation now and then,
    ///   sometimes mid-fling.
    /// - `search`: a result list of 150 to 5,000 rows of 66 points, short enough on some seeds
    ///   for flings to reach the end, where the user drags on past it; taps on an index (animated
    ///   scrolls), status-bar taps, restores, jumps.
    /// - `gallery`: the grid of Apple's sample, 300 to 10,000 items; rotations (the grid's view
    ///   turns wider, 2 columns become 4), often mid-fling; new photos arriving above; animated
    ///   scrolls, status-bar taps, restores, pulls past either end.
    ///
    /// The model keeps an estimate of where the content rests after each gesture (a fling's
    /// resting offset, an insert keeping the user's place) to choose what comes next; the replay
    /// plays the gestures on the view, so the trace's offsets are the view's own.
    /// - Throws: ``SimulationError`` naming a duration out of range.
    public static func momentsTrace(profile: Profile, seed: UInt64, duration: Double = 30) throws -> Scenario {
        try check(duration: duration)
        var model = MomentsModel(profile: profile, seed: seed)
        while model.time < duration { model.act() }
        model.pause(0.5)
        return Scenario(name: "\(profile.rawValue)-moments-\(seed)", layout: model.layout, viewport: model.portrait,
                        motion: .gestures(model.gestures), bounces: true, selfSizing: model.selfSizing)
    }

    /// The user model of ``momentsTrace(profile:seed:duration:)``.
    private struct MomentsModel {
        let profile: Profile
        let layout: ScenarioLayout
        let portrait: Viewport
        let landscape: Viewport
        let selfSizing: Bool
        /// The content's length at the start, upright and on its side.
        let startLength: (portrait: Double, landscape: Double)
        var random: SplitMix64
        var gestures: [ScrollGesture] = []
        /// The estimated time, in seconds.
        var time = 0.0
        /// The estimated resting offset.
        var offset = 0.0
        /// The items there are now (inserts and deletes above change it).
        var itemCount: Int
        var isLandscape = false

        init(profile: Profile, seed: UInt64) {
            self.profile = profile
            random = SplitMix64(seed: seed ^ 0x3C6E_F372_FE94_F82B)
            switch profile {
            case .feed:
                layout = .feed(itemCount: 2_000, seed: seed)
                portrait = .phoneList
                selfSizing = random.chance(0.5)
            case .search:
                layout = .list(itemCount: Int(random.logUniform(150, 5_000)))
                portrait = .phoneList
                selfSizing = false
            case .gallery:
                layout = .grid(itemCount: Int(random.logUniform(300, 10_000)))
                portrait = .seedGrid
                selfSizing = false
            }
            // The phone on its side; the grid's view (a part of an iPad's screen) turns wider.
            landscape = profile == .gallery ? Viewport(width: 700, height: 300) : Viewport(width: portrait.height, height: portrait.width)
            startLength = (layout.contentLength(viewport: portrait), layout.contentLength(viewport: landscape))
            itemCount = layout.itemCount
        }

        var viewport: Viewport { isLandscape ? landscape : portrait }
        /// The content's length now, estimated from the items' mean length.
        var contentLength: Double { (isLandscape ? startLength.landscape : startLength.portrait) * Double(itemCount) / Double(layout.itemCount) }
        var range: ClosedRange<Double> { 0...max(0, contentLength - viewport.height) }
        /// The content's length per item (a typical row; a grid's row over its columns).
        var lengthPerItem: Double { contentLength / Double(itemCount) }
        var nearTop: Bool { offset < viewport.height }

        /// Whole milliseconds, whole points: numbers a trace file shows as they are.
        static func ms(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

        mutating func add(_ gesture: ScrollGesture, lasting seconds: Double) {
            gestures.append(gesture)
            time += seconds
        }

        mutating func pause(_ seconds: Double) { add(.pause(duration: Self.ms(seconds)), lasting: Self.ms(seconds)) }

        /// The next move's sign: mostly down, back up with probability `back`, away from an end.
        mutating func direction(back: Double) -> Double {
            if offset <= range.lowerBound + 1 { return 1 }
            if offset >= range.upperBound - 1 { return -1 }
            return random.chance(back) ? -1 : 1
        }

        /// A drag at `speed` for `duration` seconds; returns the duration as the trace says it.
        @discardableResult
        mutating func drag(speed: Double, duration: Double) -> Double {
            let speed = speed.rounded(), duration = Self.ms(max(duration, 0.05))
            add(.drag(speed: speed, duration: duration), lasting: duration)
            offset = range.clamp(offset + speed * duration)
            return duration
        }

        mutating func fling(velocity: Double) {
            let velocity = velocity.rounded()
            let rate = TraceGenerator.decelerationRate
            // UIKit's deceleration stops below 1 pt/s: ln(1 / |v|) / ln(rate) milliseconds.
            let seconds = max(0, log(Deceleration.restingSpeed / abs(velocity)) / log(rate)) / 1000
            add(.fling(velocity: velocity), lasting: seconds)
            offset = range.clamp(Deceleration.restingOffset(from: offset, velocity: velocity, rate: rate))
        }

        mutating func animate(toItem item: Int) {
            let duration = random.chance(0.7) ? ScrollGesture.defaultAnimationDuration : Self.ms(random.uniform(0.3, 1))
            add(.animate(item: item, duration: duration), lasting: duration)
            offset = range.clamp(Double(item) * lengthPerItem)
        }

        mutating func statusBarTap() {
            add(.statusBarTap, lasting: ScrollGesture.defaultAnimationDuration)
            offset = 0
        }

        mutating func restore() {
            let target = random.uniform(range.lowerBound, range.upperBound).rounded()
            add(.restore(offset: target), lasting: 0)
            offset = range.clamp(target)
        }

        mutating func jump() {
            let item = random.chance(0.3) ? 0 : Int(random.uniform(0, Double(itemCount)))
            add(.jump(item: item), lasting: 0)
            offset = range.clamp(Double(item) * lengthPerItem)
        }

        /// `count` items arrive above; during the drag just added when `during` is its length (at a random time in it).
        mutating func insert(_ count: Int, during: Double? = nil) {
            add(.insertAbove(count: count, after: during.map { Self.ms(random.uniform(0, $0)) }), lasting: 0)
            itemCount += count
            offset = range.clamp(offset + Double(count) * lengthPerItem)
        }

        mutating func delete(_ count: Int) {
            let count = min(count, itemCount - 1)
            guard count >= 1 else { return }
            add(.deleteAbove(count: count, after: nil), lasting: 0)
            itemCount -= count
            offset = range.clamp(offset - Double(count) * lengthPerItem)
        }

        /// The device turns; half the time while a fling at `velocity` still coasts.
        mutating func rotate(flingingAt velocity: Double) {
            if random.chance(0.5) {
                let coasting = Self.ms(random.uniform(0.15, 0.6))
                add(.flingFor(velocity: velocity.rounded(), duration: coasting), lasting: coasting)
                offset = range.clamp(Deceleration.restingOffset(from: offset, velocity: velocity.rounded(), rate: TraceGenerator.decelerationRate))
            }
            let before = contentLength
            isLandscape.toggle()
            add(.rotate(width: viewport.width, height: viewport.height), lasting: 0)
            // The same place in the content, as a share of its length.
            offset = range.clamp(offset * contentLength / before)
        }

        /// A drag past an end of the content, the view rubber-banding: past the bottom when `up`
        /// is false (the user at the end of a list, looking for more), else a pull to refresh
        /// past the top, after a status-bar tap when far from it.
        mutating func pull(up: Bool) {
            if up, !nearTop {
                statusBarTap()
                pause(random.uniform(0.3, 1))
            }
            drag(speed: (up ? -1 : 1) * random.uniform(500, 900), duration: random.uniform(0.4, 0.8))
            pause(random.uniform(0.8, 1.5))
            // A refresh at the top brings new items.
            if up, profile != .search, random.chance(0.7) { insert(Int(random.uniform(3, 20))) }
        }

        mutating func act() {
            // At the end of the content, the user often drags on past it.
            if range.upperBound > 0, offset >= range.upperBound - 1, random.chance(0.4) {
                pause(random.uniform(0.3, 1))
                pull(up: false)
                return
            }
            switch profile {
            case .feed:
                pause(random.logNormal(median: 1.7, sigma: 0.5))
                let roll = random.nextUnitInterval(), sign = direction(back: 0.1)
                if roll < 0.42 {
                    let speed = sign * random.uniform(300, 900)
                    let duration = drag(speed: speed, duration: random.uniform(0.6, 1.4) * layout.itemHeight / abs(speed))
                    if random.chance(0.1) { insert(Int(random.uniform(1, 20)), during: duration) }
                } else if roll < 0.74 {
                    fling(velocity: sign * random.logUniform(800, 5_000))
                } else if roll < 0.79 {
                    insert(Int(random.uniform(1, 30)))
                } else if roll < 0.82 {
                    delete(Int(random.uniform(1, 10)))
                } else if roll < 0.85 {
                    pull(up: true)
                } else if roll < 0.88 {
                    nearTop ? fling(velocity: random.logUniform(3_000, 8_000)) : statusBarTap()
                } else if roll < 0.91 {
                    restore()
                } else if roll < 0.94 {
                    animate(toItem: Int(random.uniform(0, Double(itemCount))))
                } else if roll < 0.97 {
                    rotate(flingingAt: sign * random.logUniform(1_500, 6_000))
                } else {
                    jump()
                }
            case .search:
                pause(random.uniform(0.2, 0.8))
                let roll = random.nextUnitInterval(), sign = direction(back: 0.15)
                if roll < 0.15 {
                    let speed = random.uniform(150, 500)
                    drag(speed: sign * speed, duration: random.uniform(100, 400) / speed)
                    pause(random.logNormal(median: 1.5, sigma: 0.4))
                } else if roll < 0.70 {
                    fling(velocity: sign * random.logUniform(3_000, 12_000))
                } else if roll < 0.78 {
                    animate(toItem: Int(random.uniform(0, Double(itemCount))))
                } else if roll < 0.84 {
                    nearTop ? fling(velocity: random.logUniform(3_000, 12_000)) : statusBarTap()
                } else if roll < 0.89 {
                    restore()
                } else if roll < 0.95 {
                    pull(up: true)
                } else if roll < 0.97 {
                    rotate(flingingAt: sign * random.logUniform(3_000, 12_000))
                } else {
                    jump()
                }
            case .gallery:
                pause(random.uniform(0.4, 2))
                let roll = random.nextUnitInterval(), sign = direction(back: 0.12)
                if roll < 0.30 {
                    let speed = random.uniform(200, 800)
                    let duration = drag(speed: sign * speed, duration: random.uniform(100, 500) / speed)
                    if random.chance(0.1) { insert(Int(random.uniform(1, 40)), during: duration) }
                } else if roll < 0.70 {
                    fling(velocity: sign * random.logUniform(1_000, 6_000))
                } else if roll < 0.77 {
                    rotate(flingingAt: sign * random.logUniform(1_000, 6_000))
                } else if roll < 0.82 {
                    animate(toItem: Int(random.uniform(0, Double(itemCount))))
                } else if roll < 0.86 {
                    nearTop ? fling(velocity: random.logUniform(1_000, 6_000)) : statusBarTap()
                } else if roll < 0.89 {
                    restore()
                } else if roll < 0.92 {
                    insert(Int(random.uniform(1, 40)))
                } else if roll < 0.94 {
                    delete(Int(random.uniform(1, 20)))
                } else if roll < 0.97 {
                    pull(up: true)
                } else {
                    jump()
                }
            }
        }
    }
}
