import Foundation

/// When each attempt on the network ends: a pure timeline, with no locks, clocks or tasks.
///
/// Under ``NetworkModel/independent`` an attempt ends at its start plus its drawn latency.
/// Under ``NetworkModel/shared(_:)`` it first waits for a connection (HTTP/1.1's six), then
/// spends its drawn latency on the request's round trip, then moves its bytes at the link's
/// capacity divided by the number of transfers running (a fluid model: rates change only
/// when a transfer starts or stops, or an urgency changes). On a link that shares by priority
/// only the transfers of the most urgent level running move, and the others wait. A failing attempt fails at the end of its round trip,
/// having moved no bytes. When the link resumes stopped transfers, a stopped transfer's bytes
/// are kept (bounded like `HTTPLoader`'s) and the item's next attempt moves only the rest.
/// With previews (``PreviewSource``), a preview attempt of a prefix keeps its bytes for the
/// item's full attempt (without bound: the prefix is the preview the fetcher caches), a full
/// attempt reports when its bytes pass the prefix (``Event/previewReady(key:)``), and a preview
/// of a separate variant is a resource of its own, which neither resumes nor is resumed.
/// ``SimulatedNetwork`` keeps one and asks it for the next event.
struct NetworkTimeline: Sendable {
    enum Phase: Sendable, Hashable {
        case waitingForConnection
        case roundTrip(end: Duration)
        case transfer(remaining: Double)
    }

    struct Attempt: Sendable, Hashable {
        var item: Int
        var bytes: Int
        /// Bytes an earlier, stopped transfer of the item moved, which this one resumes after.
        var carried = 0.0
        var roundTrip: Duration
        var fails: Bool
        var phase: Phase
        /// ``FetchPriority/urgency``, lower is more urgent: it matters only on a link that shares by priority.
        var urgency = 3
        /// Of ``carried``, the bytes a stopped transfer moved (the rest came from a preview's prefix).
        var carriedFromStop = 0.0
        /// The bytes of the resource after which a preview exists: reported once, as ``Event/previewReady(key:)``.
        var previewAt: Double?
        /// A preview of a prefix: its bytes are kept for the item's full attempt when it ends.
        var keepsPrefix = false
        /// A separate resource (a variant): nothing carried into it or kept from it.
        var isVariant = false
        /// With slow start, the earliest the transfer can end (its flights' round trips), in
        /// seconds; once its bytes have moved it waits for this without a share of the link.
        var earliestEnd: Double?
    }

    /// What the next event does.
    enum Event: Sendable, Hashable {
        /// The attempt `key` ends (with its bytes, or failing).
        case ends(key: Int)
        /// The attempt `key`'s round trip ends and its transfer begins: nothing the fetcher sees.
        case transferBegins(key: Int)
        /// The attempt `key`'s bytes passed its preview's prefix: the preview exists.
        case previewReady(key: Int)
        /// The attempt `key` moved its last byte before slow start lets it end: it leaves the
        /// link's sharing and waits for its last flight. Nothing the fetcher sees.
        case bytesMoved(key: Int)
    }

    let model: NetworkModel
    private(set) var attempts: [Int: Attempt] = [:]
    /// Keys waiting for a connection, first come first served.
    private var connectionQueue: [Int] = []
    /// The time the transfers' remaining bytes were last brought up to date, in seconds.
    private var linkTime = 0.0
    /// Bytes moved over the link: finished payloads and parts of stopped ones.
    private(set) var bytesOnWire = 0.0
    /// Bytes moved by transfers stopped before their end.
    private(set) var bytesStopped = 0.0
    /// Of those, the bytes a later transfer of the same item resumed after and finished.
    private(set) var bytesResumed = 0.0
    /// Bytes kept from stopped transfers, by item, oldest first.
    private var kept: [(item: Int, bytes: Double)] = []
    /// Prefixes preview attempts moved, by item, until the item's full attempt ends.
    private var prefixes: [Int: Double] = [:]
    /// Bytes moved by finished attempts, by item (for the bytes spent on items never shown).
    private(set) var finishedBytes: [Int: Double] = [:]
    /// The most stopped transfers and bytes kept at once: `HTTPLoader`'s defaults.
    static let keptLimit = (transfers: 16, bytes: 8.0 * 1_048_576)
    /// The phone's effects (none on the classic link or when independent).
    private let phone: PhoneEffects
    /// The bursty chain of round trips, when on.
    private var chain: BurstyChain?
    /// The last time the network held an attempt, in seconds (the radio's tail starts there).
    private var lastActive = 0.0
    /// When the radio, woken, is connected again, in seconds.
    private var awakeAt = -Double.infinity
    /// When the last transfer ended or stopped, in seconds (an HTTP/2 connection idle since then restarts slow start).
    private var lastTransferEnd = -Double.infinity

    /// A timeline for `model`; `seed` seeds the bursty chain of a phone's link.
    init(model: NetworkModel, seed: UInt64 = 0) {
        self.model = model
        if case .shared(let link) = model { phone = link.phone } else { phone = PhoneEffects() }
        chain = phone.burstyRoundTrips.map { BurstyChain($0, seed: seed) }
    }

    /// An attempt's part in previews.
    enum PreviewRole: Sendable, Hashable {
        /// No previews: a plain load.
        case none
        /// A preview that is a separate resource (a variant).
        case variant
        /// A preview that is the resource's first bytes (the whole attempt): kept for the full attempt.
        case prefix
        /// A full attempt whose first `prefix` bytes make a preview.
        case fullWithPreview(prefix: Int)
    }

    private var link: SharedLink? {
        if case .shared(let link) = model { link } else { nil }
    }

    private var transferCount: Int {
        let urgency = movingUrgency
        return attempts.values.reduce(0) { n, attempt in
            if case .transfer(let remaining) = attempt.phase, attempt.urgency <= urgency, attempt.earliestEnd == nil || remaining > 0 { n + 1 } else { n }
        }
    }

    /// The urgency whose transfers move: the most urgent of the running transfers when the link
    /// shares by priority, else every transfer.
    private var movingUrgency: Int {
        guard link?.sharesByPriority == true else { return .max }
        var most = Int.max
        for attempt in attempts.values { if case .transfer = attempt.phase { most = min(most, attempt.urgency) } }
        return most
    }

    /// Sets attempt `key`'s urgency from `now` on.
    mutating func setUrgency(_ urgency: Int, key: Int, at now: Duration) {
        guard link?.sharesByPriority == true, let attempt = attempts[key], attempt.urgency != urgency else { return }
        catchUp(to: now)
        attempts[key]?.urgency = urgency
    }

    private var connectionsInUse: Int {
        attempts.values.reduce(0) { n, attempt in attempt.phase != .waitingForConnection ? n + 1 : n }
    }

    /// Starts attempt `key` at `now`: its round trip (or, independent, its whole latency) is
    /// `roundTrip`. `preview`: the attempt's part in previews (none by default).
    mutating func start(key: Int, item: Int, bytes: Int, roundTrip: Duration, fails: Bool, urgency: Int = 3,
                        preview: PreviewRole = .none, at now: Duration) {
        catchUp(to: now)
        var roundTrip = roundTrip
        if chain?.isBad(at: now.seconds) == true, let factor = phone.burstyRoundTrips?.badFactor {
            roundTrip = .seconds(exactly: roundTrip.seconds * factor)
        }
        let wasIdle = attempts.isEmpty
        var attempt = Attempt(item: item, bytes: bytes, roundTrip: roundTrip, fails: fails, phase: .roundTrip(end: now + roundTrip), urgency: urgency)
        switch preview {
        case .none: break
        case .variant: attempt.isVariant = true
        case .prefix: attempt.keepsPrefix = true
        case .fullWithPreview(let prefix): attempt.previewAt = Double(prefix)
        }
        if !attempt.isVariant, let index = kept.firstIndex(where: { $0.item == item }) {
            attempt.carried = min(kept.remove(at: index).bytes, Double(bytes))
            attempt.carriedFromStop = attempt.carried
        }
        if !attempt.isVariant, let prefix = prefixes[item], prefix > attempt.carried {
            attempt.carried = min(prefix, Double(bytes))
            attempt.carriedFromStop = 0
        }
        if let at = attempt.previewAt, attempt.carried >= at { attempt.previewAt = nil }
        if let limit = link?.http.maxConnections, connectionsInUse >= limit {
            attempt.phase = .waitingForConnection
            connectionQueue.append(key)
        } else if !phone.isClassic {
            attempt.phase = .roundTrip(end: now + roundTrip + phoneDelay(at: now, radioWasIdle: wasIdle))
        }
        attempts[key] = attempt
    }

    /// What a phone's link adds to a round trip beginning at `now`: the wait behind the bytes
    /// queued in the bottleneck's buffer, and the radio's wake-up (when it was idle past its tail,
    /// or is waking).
    private mutating func phoneDelay(at now: Duration, radioWasIdle: Bool) -> Duration {
        var seconds = 0.0
        if let queueing = phone.queueing, let link {
            let queued = attempts.values.reduce(0.0) { sum, attempt in if case .transfer(let remaining) = attempt.phase { sum + remaining } else { sum } }
            seconds += min(queued, queueing.bufferBytes) / link.capacityBytesPerSecond
        }
        if let radio = phone.radioWake {
            let t = now.seconds
            if radioWasIdle, t - lastActive >= radio.idleSeconds, t >= awakeAt { awakeAt = t + radio.promotionSeconds }
            seconds += max(awakeAt - t, 0)
        }
        return .seconds(exactly: seconds)
    }

    /// Notes that the network held nothing from `now` on, when it does not (the radio's tail starts).
    private mutating func noteIfEmpty(at now: Duration) {
        if attempts.isEmpty { lastActive = max(lastActive, now.seconds) }
    }

    /// Stops attempt `key` at `now` (cancelled): its bytes so far stay on the wire, counted as stopped.
    mutating func stop(key: Int, at now: Duration) {
        catchUp(to: now)
        guard let attempt = attempts.removeValue(forKey: key) else { return }
        connectionQueue.removeAll { $0 == key }
        var moved = 0.0
        if case .transfer(let remaining) = attempt.phase { moved = Double(attempt.bytes) - attempt.carried - remaining }
        bytesStopped += moved
        if !attempt.isVariant { keep(attempt.item, attempt.carried + moved) }
        if case .transfer = attempt.phase { lastTransferEnd = now.seconds }
        if attempt.phase != .waitingForConnection { admitWaiting(at: now) }
        noteIfEmpty(at: now)
    }

    /// The next event and when it happens (ties by item, then key), or nil when nothing runs.
    func nextEvent() -> (time: Duration, item: Int, event: Event)? {
        let sharing = Double(max(transferCount, 1))
        let moving = movingUrgency
        var best: (time: Duration, item: Int, key: Int, event: Event)?
        for (key, attempt) in attempts {
            let candidate: (Duration, Event)
            switch attempt.phase {
            case .waitingForConnection:
                continue
            case .roundTrip(let end):
                candidate = (end, link == nil || attempt.fails ? .ends(key: key) : .transferBegins(key: key))
            case .transfer(let remaining):
                guard attempt.urgency <= moving || (attempt.earliestEnd != nil && remaining <= 0) else { continue }
                if let earliest = attempt.earliestEnd {
                    // Slow start: the bytes move at the link's share but the attempt ends no sooner than its last flight.
                    if remaining <= 0 {
                        candidate = (.seconds(exactly: max(earliest, linkTime)), .ends(key: key))
                    } else if attempt.previewAt == nil {
                        let seconds = linkTime + remaining * sharing / (link?.capacityBytesPerSecond ?? 1)
                        candidate = seconds < earliest ? (.seconds(exactly: seconds), .bytesMoved(key: key)) : (.seconds(exactly: seconds), .ends(key: key))
                    } else {
                        let untilPreview = max(remaining - (Double(attempt.bytes) - attempt.previewAt!), 0)
                        candidate = (.seconds(exactly: linkTime + untilPreview * sharing / (link?.capacityBytesPerSecond ?? 1)), .previewReady(key: key))
                    }
                } else if let at = attempt.previewAt {
                    // The preview exists once the bytes left are down to the part after the prefix.
                    let untilPreview = max(remaining - (Double(attempt.bytes) - at), 0)
                    candidate = (.seconds(exactly: linkTime + untilPreview * sharing / (link?.capacityBytesPerSecond ?? 1)), .previewReady(key: key))
                } else {
                    let seconds = linkTime + remaining * sharing / (link?.capacityBytesPerSecond ?? 1)
                    candidate = (.seconds(exactly: seconds), .ends(key: key))
                }
            }
            if best.map({ (candidate.0, attempt.item, key) < ($0.time, $0.item, $0.key) }) ?? true {
                best = (candidate.0, attempt.item, key, candidate.1)
            }
        }
        return best.map { ($0.time, $0.item, $0.event) }
    }

    /// Takes `event` at `time` (the time ``nextEvent()`` gave). Returns the attempt that ended, if one did.
    mutating func take(_ event: Event, at time: Duration) -> Attempt? {
        catchUp(to: time)
        switch event {
        case .transferBegins(let key):
            if let attempt = attempts[key] {
                attempts[key]?.phase = .transfer(remaining: Double(attempt.bytes) - attempt.carried)
                let earliest = slowStartEnd(of: attempt, key: key, at: time)
                attempts[key]?.earliestEnd = earliest
            }
            return nil
        case .bytesMoved(let key):
            if case .transfer(let remaining) = attempts[key]?.phase {
                bytesOnWire += remaining   // the last sliver the clock's rounding left
                attempts[key]?.phase = .transfer(remaining: 0)
            }
            return nil
        case .previewReady(let key):
            attempts[key]?.previewAt = nil
            return attempts[key]
        case .ends(let key):
            guard let attempt = attempts.removeValue(forKey: key) else { return nil }
            if case .transfer(let remaining) = attempt.phase {
                bytesOnWire += remaining   // the last sliver the clock's rounding left
            } else if link == nil, !attempt.fails {
                bytesOnWire += Double(attempt.bytes)   // independent: the payload arrives at the end
            }
            if attempt.fails {
                if !attempt.isVariant { keep(attempt.item, attempt.carried) }
            } else {
                bytesResumed += attempt.carriedFromStop
                finishedBytes[attempt.item, default: 0] += Double(attempt.bytes) - attempt.carried
                if attempt.keepsPrefix {
                    prefixes[attempt.item] = max(prefixes[attempt.item] ?? 0, Double(attempt.bytes))
                } else if !attempt.isVariant {
                    prefixes[attempt.item] = nil
                }
            }
            if case .transfer = attempt.phase { lastTransferEnd = time.seconds }
            admitWaiting(at: time)
            noteIfEmpty(at: time)
            return attempt
        }
    }

    /// With slow start, when attempt `key`'s transfer beginning at `now` can end at the earliest:
    /// `flights − 1` of its round trips after its first byte (nil: one flight, or no slow start).
    /// Over HTTP/1.1 every transfer starts slowly; over HTTP/2 only one beginning on a connection
    /// idle (no other transfer running) for longer than the restart time.
    private func slowStartEnd(of attempt: Attempt, key: Int, at now: Duration) -> Double? {
        guard let slowStart = phone.slowStart, let link else { return nil }
        if link.http == .http2 {
            let othersRunning = attempts.contains { other in
                if other.key != key, case .transfer = other.value.phase { true } else { false }
            }
            guard !othersRunning, now.seconds - lastTransferEnd > slowStart.restartAfterIdleSeconds else { return nil }
        }
        let flights = slowStart.flights(Double(attempt.bytes) - attempt.carried)
        guard flights > 1 else { return nil }
        return now.seconds + Double(flights - 1) * attempt.roundTrip.seconds
    }

    /// When attempts waiting or running now are expected to end, by item, if the link's sharing
    /// stayed as it is: the clairvoyant reference plans with it. On a link that shares by
    /// priority every transfer counts as sharing equally (the urgent ones end sooner, the others later).
    func expectedEnds(at now: Duration) -> [Int: Duration] {
        let capacity = link?.capacityBytesPerSecond ?? 1
        let transfers = attempts.values.reduce(0) { n, attempt in if case .transfer = attempt.phase { n + 1 } else { n } }
        let sharing = Double(max(transfers, 1))
        var ends: [Int: Duration] = [:]
        for attempt in attempts.values {
            switch attempt.phase {
            case .waitingForConnection:
                ends[attempt.item] = now + attempt.roundTrip + .seconds(exactly: (Double(attempt.bytes) - attempt.carried) * (sharing + 1) / capacity)
            case .roundTrip(let end):
                ends[attempt.item] = link == nil || attempt.fails ? end
                    : end + .seconds(exactly: (Double(attempt.bytes) - attempt.carried) * (sharing + 1) / capacity)
            case .transfer(let remaining):
                ends[attempt.item] = .seconds(exactly: linkTime + remaining * sharing / capacity)
            }
        }
        return ends
    }

    /// How long moving `item`'s `bytes` takes when `sharers` transfers share the link, less
    /// what is kept of a stopped transfer of it (0 when independent).
    func transferSeconds(_ bytes: Int, of item: Int, sharers: Int) -> Double {
        guard let link else { return 0 }
        let carried = kept.first(where: { $0.item == item })?.bytes ?? 0
        return max(Double(bytes) - carried, 0) * Double(max(sharers, 1)) / link.capacityBytesPerSecond
    }

    /// Keeps `bytes` of a stopped (or failed) transfer of `item` when the link resumes, dropping
    /// the oldest kept beyond the bounds; dropped bytes stay counted as stopped.
    private mutating func keep(_ item: Int, _ bytes: Double) {
        guard bytes > 0, link?.resumesStoppedTransfers == true else { return }
        kept.removeAll { $0.item == item }
        kept.append((item, bytes))
        while kept.count > Self.keptLimit.transfers || kept.reduce(0, { $0 + $1.bytes }) > Self.keptLimit.bytes {
            kept.removeFirst()
        }
    }

    /// Brings every running transfer's remaining bytes up to `time`.
    private mutating func catchUp(to time: Duration) {
        let t = max(time.seconds, linkTime)
        defer { linkTime = t }
        guard let link, t > linkTime else { return }
        let count = transferCount
        guard count > 0 else { return }
        let share = (t - linkTime) * link.capacityBytesPerSecond / Double(count)
        let moving = movingUrgency
        // In item order: a sum in the dictionary's order would differ in its last bits from run to
        // run, and so would one in key order (keys follow the order the loads' tasks reached the
        // network, which the executor decides).
        for key in attempts.sorted(by: { ($0.value.item, $0.key) < ($1.value.item, $1.key) }).map(\.key) {
            guard case .transfer(let remaining) = attempts[key]?.phase, attempts[key]!.urgency <= moving, remaining > 0 || attempts[key]!.earliestEnd == nil else { continue }
            let moved = min(share, remaining)
            bytesOnWire += moved
            attempts[key]?.phase = .transfer(remaining: remaining - moved)
        }
    }

    /// Gives freed connections to the attempts waiting longest; their round trips start at `now`.
    private mutating func admitWaiting(at now: Duration) {
        guard let limit = link?.http.maxConnections else { return }
        while connectionsInUse < limit, !connectionQueue.isEmpty {
            let key = connectionQueue.removeFirst()
            if let roundTrip = attempts[key]?.roundTrip {
                let end = phone.isClassic ? now + roundTrip : now + roundTrip + phoneDelay(at: now, radioWasIdle: false)
                attempts[key]?.phase = .roundTrip(end: end)
            }
        }
    }
}
