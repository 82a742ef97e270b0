import Foundation
import PrefetchCollectionView

/// Records a view's scrolling as a trace: `prefetch-demo --record FILE`.
///
/// Call ``record(_:at:)`` once a frame after the view stepped. Each frame becomes a sample with
/// its phase from the view's `scrollState`: dragging (or an animated scroll) is `touching`, a
/// fling `decelerating` (the first frame of each fling carries its resting offset), rest `idle`.
/// A fling that starts without a finger on the content (a key press, a fling during a fling) gets
/// a `touching` sample at the previous frame first, so the trace keeps the phase order. Replaying
/// the trace in the bench (``GestureDriver``) at the same frame times gives the same offsets.
///
/// ```swift
/// let recorder = TraceRecorder(name: "my-session", layout: .list(), viewport: .phoneList)
/// // every frame, after view.step(to: t):
/// recorder.record(view, at: t)
/// try recorder.write(to: URL(fileURLWithPath: "session.json"))
/// ```
@MainActor
public final class TraceRecorder {
    /// The trace's name.
    let name: String
    /// The layout the view shows.
    let layout: ScenarioLayout
    /// The view's visible size.
    let viewport: Viewport
    /// The samples so far.
    private(set) var samples: [OffsetSample] = []
    private var restingOffset: Double?

    /// A recorder for a view showing `layout` in `viewport`.
    ///
    /// `layout` must be the one the view shows, its item count included (for a view over a
    /// server's feed, the feed's total): ``write(to:)`` refuses a recording whose offsets lie
    /// outside that layout's content, as the trace reader would.
    public init(name: String, layout: ScenarioLayout, viewport: Viewport) {
        self.name = name
        self.layout = layout
        self.viewport = viewport
    }

    /// Records the view's offset and phase at `time` (seconds since the start, not decreasing).
    public func record(_ view: ItemScrollView, at time: Double) {
        let offset = view.contentOffset.y
        switch view.scrollState.phase {
        case .dragging, .programmatic:
            restingOffset = nil
            samples.append(OffsetSample(time: time, offset: offset, phase: .touching))
        case .idle:
            restingOffset = nil
            samples.append(OffsetSample(time: time, offset: offset, phase: .idle))
        case .decelerating(let resting, _):
            if let current = restingOffset, current == resting {
                samples.append(OffsetSample(time: time, offset: offset, phase: .decelerating))
                return
            }
            // A new fling: its touch-up follows a touching sample.
            if let last = samples.last {
                if last.phase != .touching { samples.append(OffsetSample(time: last.time, offset: last.offset, phase: .touching)) }
            } else {
                samples.append(OffsetSample(time: time, offset: offset, phase: .touching))
            }
            restingOffset = resting
            let clamped = layout.offsetRange(viewport: viewport).clamp(resting)
            samples.append(OffsetSample(time: time, offset: offset, phase: .decelerating, restingOffset: clamped))
        }
    }

    /// The recording as a scenario.
    var scenario: Scenario {
        Scenario(name: name, layout: layout, viewport: viewport, motion: .samples(samples.isEmpty ? [OffsetSample(time: 0, offset: 0, phase: .idle)] : samples))
    }

    /// Writes the recording in the trace format.
    /// - Throws: ``SimulationError`` when the file cannot be written, or a sample's offset lies
    ///   outside the content of the recorder's layout.
    public func write(to url: URL) throws {
        let data = try TraceFile.encode(scenario)
        do { try data.write(to: url) } catch {
            throw SimulationError(path: url.path, "cannot write the trace: \(error.localizedDescription)")
        }
    }
}
