import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

// How calls enter the network's timeline: together, once the loop is at rest, in one order.
extension SimulatedNetwork {
    /// Draws the attempts of the calls whose loads' ordinals are known and puts them on the
    /// timeline, in the order of their items (then loads, then attempts): called before anything
    /// reads or moves the timeline, once the loop is at rest.
    ///
    /// Calls arrive from the fetcher's worker tasks, in whatever order the threads run them, and
    /// a load started and cancelled in one frame may or may not have called by its cancel. Drawn
    /// as they arrived, the order of attempts that start at one instant (which waits first for a
    /// connection, whose bytes a resumed attempt takes back) and whether a cancelled one had
    /// briefly been on the link differed from one run to the next: the same seed gave different
    /// numbers. Drawn here, they enter the timeline in one order, and a call cancelled before its
    /// instant ends never enters it.
    func drawArrived(_ s: inout State) {
        let arrived = s.calls.filter { $0.value.ordinal != nil && !$0.value.isDrawn }
        guard !arrived.isEmpty else { return }
        let order = arrived.sorted { a, b in
            let (x, y) = (a.value, b.value)
            if x.item != y.item { return x.item < y.item }
            if x.ordinal != y.ordinal { return x.ordinal! < y.ordinal! }
            return x.attempt != y.attempt ? x.attempt < y.attempt : a.key < b.key
        }
        for (key, _) in order { draw(key, &s) }
    }

    /// Before the calls that arrived are drawn: a preview call whose load is wanted in full by
    /// now (a cell came on screen in the frame its prefetch started) goes on to the full value, as
    /// a preview loader that reads `FetchLoadContext.liveQuality` does. Read at rest, so whether
    /// the worker's task asked before or after the full request came in the same frame makes no
    /// difference. The readers take the fetcher's lock: read outside the network's.
    func upgradeArrived() {
        let readers = state.withLock { s in
            s.calls.compactMap { key, call in
                call.ordinal != nil && !call.isDrawn && call.quality == .preview ? call.qualityNow.map { (key, $0) } : nil
            }
        }
        let upgraded = readers.filter { $0.1() == .full }.map(\.0)
        guard !upgraded.isEmpty else { return }
        state.withLock { s in
            for key in upgraded where s.calls[key]?.isDrawn == false {
                s.calls[key]?.quality = .full
                s.calls[key]?.upgraded = true
            }
        }
    }

    /// Draws call `key`'s attempt (its load's ordinal is known) and puts it on the timeline.
    func draw(_ key: Int, _ s: inout State) {
        guard let call = s.calls[key], let ordinal = call.ordinal, !call.isDrawn else { return }
        s.calls[key]?.isDrawn = true
        // On a shared link the draw is the round trip alone; the link moves the bytes.
        let independent = s.timeline.model == .independent
        let full = bytes(of: call.item)
        var size = full
        var role = NetworkTimeline.PreviewRole.none
        switch (previews, call.quality) {
        case (.none, _): break
        case (.prefix, .preview): (size, role) = (previews.previewBytes(of: full), .prefix)
        case (.variant, .preview): (size, role) = (previews.previewBytes(of: full), .variant)
        case (.prefix, .full): role = .fullWithPreview(prefix: previews.previewBytes(of: full))
        case (.variant, .full): break
        }
        let draw = s.latency.drawSeconds(seed: seed, item: call.item, load: ordinal, attempt: call.attempt, payloadBytes: independent ? size : 0)
        s.timeline.start(key: key, item: call.item, bytes: size, roundTrip: .seconds(exactly: draw.latency), fails: draw.fails,
                         urgency: call.urgency, preview: role, at: call.start)
    }
}
