import NIOConcurrencyHelpers

/// The rule of the server's shared bandwidth, on its own: when may the next chunk of some body go,
/// so that all bodies together send at most `bytesPerSecond`?
///
/// A virtual-time pacer (the shaping form of the generic cell rate algorithm): the link is busy
/// until `busyUntil`; a chunk reserved at `now` goes when the link frees up (or at once, if it is
/// already free), less a small `tolerance` so a sender woken late does not lose the link's time
/// for good, and makes the link busy for its own transmission time after that. Idle time earns no
/// credit beyond the tolerance. Each body reserves its next chunk only after sending the last, so
/// bodies sending at once take turns, chunk by chunk, and N of them get about 1/N each.
struct LinkBudget: Sendable, Equatable {
    /// The link's rate.
    let bytesPerSecond: Int
    /// How far ahead of the link's schedule a chunk may go.
    let tolerance: Duration
    /// When the link will have sent everything reserved so far (nil before the first chunk).
    private(set) var busyUntil: Duration?

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

    /// Reserves the link for `bytes` asked for at `now` (time since any fixed origin); returns
    /// when they may be sent, never before `now`.
    mutating func reserve(_ bytes: Int, at now: Duration) -> Duration {
        let free = max(busyUntil ?? now, now)
        busyUntil = free + transmissionTime(bytes)
        return max(now, free - tolerance)
    }
}

/// Something that spaces body chunks out: the shared link of a ``DataServer``, or nothing.
protocol ChunkPacing: Sendable {
    /// Returns when `bytes` more may be sent; throws `CancellationError` if cancelled meanwhile.
    func beforeSending(_ bytes: Int) async throws
}

/// A ``LinkBudget`` on a clock, shared by every response of a server.
final class LinkPacer<C: Clock>: ChunkPacing where C.Duration == Duration {
    private let clock: C
    private let origin: C.Instant
    private let budget: NIOLockedValueBox<LinkBudget>

    init(bytesPerSecond: Int, clock: C) {
        self.clock = clock
        origin = clock.now
        budget = NIOLockedValueBox(LinkBudget(bytesPerSecond: bytesPerSecond))
    }

    /// The rate, for choosing chunk sizes.
    var bytesPerSecond: Int { budget.withLockedValue { $0.bytesPerSecond } }

    func beforeSending(_ bytes: Int) async throws {
        let now = origin.duration(to: clock.now)
        let at = budget.withLockedValue { $0.reserve(bytes, at: now) }
        if at > now { try await clock.sleep(until: origin.advanced(by: at), tolerance: nil) }
    }

    /// The pacer of `bytesPerSecond` on `clock`, or nil for no limit.
    static func make(bytesPerSecond: Int?, clock: C) -> LinkPacer? {
        bytesPerSecond.map { LinkPacer(bytesPerSecond: $0, clock: clock) }
    }
}
