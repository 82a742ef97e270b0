import Foundation
import PrefetchCollectionView

/// What gives a view its input once a frame: a ``GestureDriver``, or the demo's keys.
@MainActor
public protocol FrameInput {
    /// Gives the view its input for the frame at `time`, `frameDuration` seconds after the last.
    mutating func input(to view: ItemScrollView, at time: Double, frameDuration: Double) throws
    /// Whether the input is over (a run ends its `tail` after, once the view rests).
    var isFinished: Bool { get }
}

/// The one frame loop: the simulator's and the demo's scripted runs on virtual time, and the
/// demo's real-time, interactive and fault-soak runs on the wall clock.
///
/// Frame 0 calls `step` at the start time (the first screen). Then each frame: `advance` (a
/// virtual-time loop finishes the loads due by then), the input, `step` (which steps the view
/// and settles or brings in what arrived), `afterFrame`. On virtual time frame `i` is at
/// `start + i / frameRate`; in real time the driver sleeps until then, goes on from now after a
/// slow frame, and the frame's time is the wall clock's. A run ends `tail` seconds after the
/// input is over and the view rests, after `duration` seconds, or when `afterFrame` returns false.
///
/// ```swift
/// import PrefetchKit
/// import PrefetchSimulation
///
/// let fetcher = try AsyncFetcher<Int, String> { id in "item \(id)" }
/// let app = try SampleApp(layout: .list(itemCount: 1_000), viewport: .phoneList, fetcher: fetcher,
///                         meter: ReadinessMeter(now: { 0 }), identifier: { $0 })
/// var gestures = GestureDriver(gestures: [.fling(velocity: 3_000)])
/// let end = try await FrameDriver(duration: 5, realTime: true).play(&gestures, on: app.view, step: { app.step(to: $0) })
/// print(end)
/// ```
@MainActor
public struct FrameDriver {
    /// One frame.
    public struct Frame: Sendable, Hashable {
        /// The frame's number: 0 for the first layout, then 1, 2, ...
        public var index: Int
        /// The frame's time, in seconds.
        public var time: Double
        /// Whether this frame is the first of a new second (for progress lines).
        public var isWholeSecond: Bool
    }

    let frameRate: Double, tail: Double, duration: Double?, realTime: Bool

    /// A driver of `frameRate` frames per second (the pace aimed at in real time) that plays
    /// `tail` seconds after the input is over and the view rests, for at most `duration` seconds
    /// (nil: no limit), on the wall clock when `realTime`, else on virtual time.
    public init(frameRate: Double = 60, tail: Double = 1, duration: Double? = nil, realTime: Bool = false) {
        precondition(frameRate.isFinite && frameRate > 0, "frameRate is \(frameRate), but it must be a finite number greater than 0")
        precondition(tail.isFinite && tail >= 0, "tail is \(tail), but it must be a finite number, at least 0")
        precondition(duration.map { !$0.isNaN && $0 >= 0 } ?? true, "duration is \(duration ?? 0), but it must be at least 0")
        (self.frameRate, self.tail, self.duration, self.realTime) = (frameRate, tail, duration, realTime)
    }

    /// Plays `input` on `view` from `start` (seconds) and returns the time of the last frame.
    /// - Throws: what `step`, `afterFrame` or the input throws (a jump the view refuses).
    public func play(
        _ input: inout some FrameInput, on view: ItemScrollView, from start: Double = 0, advance: (Double) async -> Void = { _ in },
        step: (Double) async throws -> Void, afterFrame: (Frame) async throws -> Bool = { _ in true }
    ) async throws -> Double {
        let dt = 1 / frameRate
        let clock = ContinuousClock()
        let origin = clock.now - .seconds(start)
        try await step(start)
        guard try await afterFrame(Frame(index: 0, time: start, isWholeSecond: false)) else { return start }
        var motionEnded: Double?
        var index = 0
        var last = start
        while true {
            index += 1
            var t = start + Double(index) * dt
            if realTime {
                let target = origin + .seconds(t)
                if target > clock.now {
                    try await clock.sleep(until: target)
                } else {
                    // After a slow frame, go on from now rather than catch up.
                    index = Int((((clock.now - origin) / .seconds(1)) - start) * frameRate) + 1
                }
                t = (clock.now - origin) / .seconds(1)
            }
            if let duration, t > start + duration + 1e-9 { break }
            if let ended = motionEnded, t > ended + tail + 1e-9 { break }
            await advance(t)
            try input.input(to: view, at: t, frameDuration: realTime ? t - last : dt)
            try await step(t)
            let isWholeSecond = (t + 1e-9).rounded(.down) > (last + 1e-9).rounded(.down)
            last = t
            if motionEnded == nil, input.isFinished, !view.isDecelerating { motionEnded = t }
            guard try await afterFrame(Frame(index: index, time: t, isWholeSecond: isWholeSecond)) else { break }
        }
        return last
    }
}
