import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

// What the network holds and expects, as the loop, the clairvoyant reference and the results read it.
extension SimulatedNetwork {
    /// On a link that shares by priority, brings each running attempt's urgency to its load's
    /// priority now (a prefetch whose cell came on screen, a row a fling flew past). The driver
    /// calls it once a frame, when the view has sent the frame's requests.
    package func refreshUrgencies() {
        upgradeArrived()
        let readers = state.withLock { s -> [(key: Int, read: @Sendable () -> FetchPriority?)] in
            drawArrived(&s)
            guard case .shared(let link) = s.timeline.model, link.sharesByPriority else { return [] }
            return s.calls.compactMap { key, call in call.isDrawn ? call.priorityNow.map { (key, $0) } : nil }
        }
        guard !readers.isEmpty else { return }
        // Read outside the network's lock: the readers take the fetcher's.
        let urgencies = readers.compactMap { reader in reader.read().map { (reader.key, $0.urgency) } }.sorted { $0.0 < $1.0 }
        state.withLock { s in
            let now = clock.now.offset
            for (key, urgency) in urgencies where s.calls[key] != nil {
                s.calls[key]?.urgency = urgency
                s.timeline.setUrgency(urgency, key: key, at: now)
            }
        }
    }

    /// What the network holds now.
    package var occupancy: Occupancy {
        state.withLock { s in
            Occupancy(waiting: s.calls.count, backingOff: s.backingOff.count, inTransit: s.inTransit,
                      undrawn: s.calls.values.filter { $0.ordinal == nil }.count, finishing: s.finishing, running: s.running)
        }
    }

    /// The driver woke `count` back-off sleepers on the clock: their next attempts are on their way.
    package func wokeBackOffs(_ count: Int) {
        state.withLock { $0.inTransit += count }
    }

    /// When the next attempt ends or the next transfer begins.
    package var nextDeadline: Duration? {
        upgradeArrived()
        return state.withLock { s in
            drawArrived(&s)
            return s.timeline.nextEvent()?.time
        }
    }

    /// When the attempts waiting now are expected to end, by item (on a shared link, if the
    /// link's sharing stayed as it is).
    package var deadlines: [Int: Duration] {
        upgradeArrived()
        return state.withLock { s in
            drawArrived(&s)
            return s.timeline.expectedEnds(at: clock.now.offset)
        }
    }

    /// What the network moved up to now, for a run of `duration` seconds.
    func usage(over duration: Double) -> ByteUsage {
        upgradeArrived()
        let (timeline, seed, sizes) = (state.withLock { s in
            drawArrived(&s)
            return s.timeline
        }, seed, sizes)
        var capacity: Double?
        if case .shared(let link) = timeline.model { capacity = link.capacityBytesPerSecond }
        // With previews a wasted item cost what its loads moved (a preview's prefix, say), not its payload.
        let moved = timeline.finishedBytes
        let size: @Sendable (Int) -> Int
        if previews.isEnabled {
            size = { item in Int((moved[item] ?? 0).rounded()) }
        } else {
            size = { item in sizes.bytes(item: item, seed: seed) }
        }
        return ByteUsage(onWire: timeline.bytesOnWire, stopped: timeline.bytesStopped - timeline.bytesResumed, capacityBytesPerSecond: capacity,
                         duration: duration, size: size)
    }

    /// The items whose loads started, each with how many of its loads started so far.
    package var loadsStartedByItem: [Int: Int] { state.withLock { $0.loadsStarted } }

    /// Whether a load of `item` waits here or backs off before its next attempt.
    package func isLoading(_ item: Int) -> Bool {
        state.withLock { s in s.backingOff[item] != nil || s.calls.values.contains { $0.item == item } }
    }

    /// How long the next load of `item` will take, every attempt and back-off included (each
    /// back-off at its longest, without jitter), and whether it will succeed; on a shared link,
    /// with its transfer sharing the link with `sharers` transfers in all.
    package func plannedLoad(of item: Int, sharers: Int = 1) -> (seconds: Double, succeeds: Bool) {
        let (ordinal, latency, timeline) = state.withLock { ($0.loadsStarted[item, default: 0], $0.latency, $0.timeline) }
        let independent = timeline.model == .independent
        let size = bytes(of: item)
        var total = 0.0
        for attempt in 1...max(1, retry.maxAttempts) {
            let draw = latency.drawSeconds(seed: seed, item: item, load: ordinal, attempt: attempt, payloadBytes: independent ? size : 0)
            total += draw.latency
            if !draw.fails { return (total + timeline.transferSeconds(size, of: item, sharers: sharers), true) }
            if attempt < retry.maxAttempts { total += retry.delay(afterAttempt: attempt, random: 0).seconds }
        }
        return (total, false)
    }
}
