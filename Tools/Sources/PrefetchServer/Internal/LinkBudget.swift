/// The rule of the server's shared bandwidth, on its own: when may the next chunk of some body go,
/// so that all bodies together send at most `bytesPerSecond`?
///
/// A virtual-time pacer (the shaping form of the generic cell rate algorithm): the link is busy
/// until `busyUntil`; a chunk reserved at `now` goes when the link frees up (or at once, if it is
/// already free), less a small `tolerance` so a sender woken late does not lose the link's time
/// for good, and makes the link busy for its own transmission time after that. Idle time earns no
/// credit beyond the tolerance.
///
/// How far ahead the link may be booked (``bookingOpens(for:behind:at:)``): a chunk is booked
/// only once the link's schedule reaches no further than the tolerance and that chunk past `now`,
/// so that the chunk goes within one chunk time of being booked. Without that bound every body
/// sending at once held one chunk booked ahead, and a body that started (or came back) found N
/// chunks of the others ahead of it, whatever its priority. With it the link is booked at most
/// the tolerance and two chunks ahead, and a newcomer's chunk goes within about two chunks (a
/// chunk is about 20 ms), however many bodies are being sent. The bodies waiting for the window
/// queue for it, most urgent first and then in the order they came (``LinkPacer`` keeps the
/// queue): bodies of one urgency take turns, chunk by chunk, and N of them get about 1/N each.
///
/// Beside the rate, priority (RFC 9218's urgencies, 0 most urgent to 7): the budget counts the
/// bodies being sent at each urgency (``register(urgency:)`` to ``unregister(urgency:)``) and when
/// what each urgency reserved last leaves the link (`reservedUntil`). A body may reserve its next
/// chunk (``mayReserve(urgency:at:)``) unless a more urgent body is being sent *and using the link*:
/// precisely, it may when ``moreUrgentBusyUntil(urgency:)`` (the latest end of what the more
/// urgent urgencies being sent have reserved) is nil or not after `now`. With one more urgent
/// urgency this is "the link is idle as far as it is concerned": `busyUntil ?? now <= now` over its
/// chunks. Bodies of one urgency share the link as above.
///
/// The rule is work-conserving, as RFC 9218 (section 10) asks of a server: a more urgent body that
/// does not use the link (held to its own `--bandwidth`, paused by a slow-body fault, or stuck on a
/// client that stopped reading) does not leave it idle while less urgent bodies wait. It stays
/// strict for a body that does use the link: each body asks for its next chunk as soon as it has
/// sent the last, while that one is still on the link, and the window lets a body keeping up book
/// it at once (the link is booked no further than its last chunk), so it has reserved at least one
/// chunk beyond `now` and never looks idle. Counting by urgency rather than the whole link keeps
/// the order among the bodies that fill the gaps: behind a stalled `u=1`, a prefetch (`u=3`)
/// streams, and a background load (`u=5`) gets only what the prefetch leaves.
///
/// The tolerance plays no part in the priority test on purpose: waiting `tolerance` past the more
/// urgent reservations would starve less urgent bodies behind a more urgent one that asks for a
/// chunk more often than that (a 1 KiB chunk every 50 ms at `--bandwidth 20000`), and going
/// `tolerance` before them would cut into the look-ahead of a more urgent body that keeps up.
struct LinkBudget: Sendable, Equatable {
    /// The link's rate.
    let bytesPerSecond: Int
    /// How far ahead of the link's schedule a chunk may go.
    let tolerance: Duration
    /// When the link will have sent everything reserved so far (nil before the first chunk).
    private(set) var busyUntil: Duration?
    /// How many bodies are being sent at each urgency: index 0 (most urgent) to 7.
    private(set) var senders = [Int](repeating: 0, count: RequestPriority.urgencies.count)
    /// When the chunk each urgency reserved last leaves the link (nil before its first chunk).
    private(set) var reservedUntil = [Duration?](repeating: nil, count: RequestPriority.urgencies.count)

    /// - Parameter tolerance: 100 ms by default: a sender woken up to that late (a loaded machine)
    ///   still keeps the link's rate, and a burst after an idle spell is at most 0.1 s of the link.
    init(bytesPerSecond: Int, tolerance: Duration = .milliseconds(100)) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.tolerance = tolerance
    }

    /// How long `bytes` take on the link.
    func transmissionTime(_ bytes: Int) -> Duration {
        .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(bytesPerSecond))
    }

    /// Reserves the link for `bytes` of a body of `urgency` asked for at `now` (time since any
    /// fixed origin); returns when they may be sent, never before `now`.
    ///
    /// It books wherever the link's schedule ends: the caller keeps to the window
    /// (``bookingOpens(for:behind:at:)``) and to priority (``mayReserve(urgency:at:)``).
    mutating func reserve(_ bytes: Int, at now: Duration, urgency: Int = RequestPriority.defaultUrgency) -> Duration {
        let free = max(busyUntil ?? now, now)
        busyUntil = free + transmissionTime(bytes)
        reservedUntil[Self.level(urgency)] = busyUntil
        return max(now, free - tolerance)
    }

    /// When a chunk of `bytes` may be booked, once the chunks of the bodies queued before it
    /// (`ahead`: their transmission time) are: when the link's schedule, theirs included, reaches
    /// no further than the tolerance and this chunk past that time. At or before `now`, it may be
    /// booked now.
    ///
    /// A body that has just sent a chunk finds the window open for its next one of the same size
    /// (the link is booked up to the end of its last chunk, which went up to the tolerance early),
    /// so a body alone keeps one chunk booked ahead, as the priority rule needs; several bodies
    /// take turns for the window instead of each holding a chunk booked.
    func bookingOpens(for bytes: Int, behind ahead: Duration = .zero, at now: Duration) -> Duration {
        (busyUntil ?? now) + ahead - tolerance - transmissionTime(bytes)
    }

    /// Counts a body of `urgency` as being sent, until ``unregister(urgency:)``; an urgency outside
    /// 0...7 counts as the nearest one.
    mutating func register(urgency: Int) {
        senders[Self.level(urgency)] += 1
    }

    /// Counts a body registered at `urgency` out: it ended, failed or was cancelled.
    mutating func unregister(urgency: Int) {
        let level = Self.level(urgency)
        assert(senders[level] > 0, "unregister(urgency: \(urgency)) without a body registered at that urgency")
        senders[level] = max(0, senders[level] - 1)
    }

    /// The most urgent urgency of the bodies being sent, or nil when none is.
    var mostUrgent: Int? { senders.firstIndex { $0 > 0 } }

    /// Whether a body more urgent than `urgency` is being sent, using the link or not.
    func isOutranked(urgency: Int) -> Bool {
        mostUrgent.map { Self.level(urgency) > $0 } ?? false
    }

    /// When the chunks reserved by the bodies more urgent than `urgency` that are being sent leave
    /// the link (the latest end), or nil when they have reserved none (or none is being sent).
    func moreUrgentBusyUntil(urgency: Int) -> Duration? {
        (0..<Self.level(urgency)).filter { senders[$0] > 0 }.compactMap { reservedUntil[$0] }.max()
    }

    /// Whether a body of `urgency` may reserve its next chunk at `now`: no more urgent body being
    /// sent has anything reserved beyond `now` (none is being sent, or they have not asked for
    /// their next chunk in time). When it may not, it may at ``moreUrgentBusyUntil(urgency:)`` at
    /// the earliest, unless they reserve more meanwhile.
    func mayReserve(urgency: Int, at now: Duration) -> Bool {
        (moreUrgentBusyUntil(urgency: urgency) ?? now) <= now
    }

    /// The urgency a body counts at: `urgency` clamped to 0...7.
    static func level(_ urgency: Int) -> Int {
        min(max(urgency, RequestPriority.urgencies.lowerBound), RequestPriority.urgencies.upperBound)
    }
}
