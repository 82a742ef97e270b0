@testable import PrefetchServer
import PrefetchTesting
import Testing

/// The link's booking window on a `ManualClock`: however many bodies stream at once, a more
/// urgent body that starts goes within about two chunks, and bodies of one urgency keep taking
/// turns. Every step waits until each body sleeps on the clock again, never on real time.
@Suite("PrefetchServer link pacer: newcomers behind many senders", .timeLimit(.minutes(1)))
struct PacerNewcomerTests {
    /// 200-byte chunks on a 10,000 B/s link: 20 ms each; the pacer's default 100 ms tolerance.
    static let rate = 10_000, chunkBytes = 200, chunk = Duration.milliseconds(20), tolerance = Duration.milliseconds(100)

    @Test("a u=1 body that starts while N u=5 bodies stream sends its first chunk within two chunk times, whatever N, and from then on they wait",
          arguments: [1, 3, 6, 12])
    func urgentNewcomer(background: Int) async throws {
        let clock = ManualClock()
        let origin = clock.now
        let pacer = LinkPacer(bytesPerSecond: Self.rate, clock: clock, tolerance: Self.tolerance)
        let log = SendLog()
        var streams = (0..<background).map { _ in stream(urgency: 5, through: pacer, on: clock, from: origin, into: log) }
        // One second of the background bodies alone, a chunk time at a time.
        try await advance(clock, from: origin, steps: 1...50, sleepers: background)
        let arrival = Duration.seconds(1)
        streams.append(stream(urgency: 1, through: pacer, on: clock, from: origin, into: log))
        try await advance(clock, from: origin, steps: 51...65, sleepers: background + 1)
        let visible = await log.times(urgency: 1)
        let first = try #require(visible.first, "the u=1 body sent nothing in 0.3 s")
        // Before the window, the u=5 bodies each held one chunk booked: it waited one chunk per
        // u=5 body less the tolerance (20, 60, 120, 240 ms); now at most two chunks.
        #expect(first - arrival <= Self.chunk * 2, "with \(background) u=5 bodies the u=1 body's first chunk went \(first - arrival) after it started")
        // Then it has the link: a chunk every chunk time, and the u=5 bodies send nothing after its first.
        #expect(visible == (0..<visible.count).map { first + Self.chunk * $0 })
        let lastBackground = try #require(await log.times(urgency: 5).max())
        #expect(lastBackground <= first, "a u=5 chunk went at \(lastBackground), after the u=1 body's first at \(first)")
        for task in streams { task.cancel() }
        for task in streams { _ = await task.result }
        #expect(pacer.budget.mostUrgent == nil)
        #expect(pacer.queuedCount == 0 && pacer.waitingCount == 0)
    }

    @Test("bodies of one urgency take turns for the window, chunk by chunk, and the link keeps its rate")
    func turns() async throws {
        let clock = ManualClock()
        let origin = clock.now
        let pacer = LinkPacer(bytesPerSecond: Self.rate, clock: clock, tolerance: Self.tolerance)
        let log = SendLog()
        let streams = (0..<4).map { _ in stream(urgency: 3, through: pacer, on: clock, from: origin, into: log) }
        try await advance(clock, from: origin, steps: 1...50, sleepers: 4)
        let sends = await log.sends
        // The burst of the tolerance at the start, then one chunk every 20 ms: the rate, never more.
        let times = sends.map(\.time)
        #expect(times.filter { $0 > .zero } == (1...50).map { Self.chunk * $0 })
        #expect(pacer.budget.busyUntil! - .seconds(1) <= Self.tolerance + Self.chunk * 2, "booked \(pacer.budget.busyUntil!) at 1 s")
        // Round robin after the burst: each run of four consecutive chunks is one of each body.
        let order = sends.filter { $0.time > .zero }.map(\.sender)
        for start in stride(from: 0, to: order.count - 4, by: 4) {
            #expect(Set(order[start..<(start + 4)]).count == 4, "chunks \(start)...: \(order[start..<(start + 4)])")
        }
        for task in streams { task.cancel() }
        for task in streams { _ = await task.result }
        #expect(pacer.queuedCount == 0)
    }

    /// Moves the clock to each step (a chunk time apart), first waiting until `sleepers` bodies
    /// sleep on it again: each has sent what was due and asked for its next chunk.
    private func advance(_ clock: ManualClock, from origin: ManualClock.Instant, steps: ClosedRange<Int>, sleepers: Int) async throws {
        for step in steps {
            await clock.waitForSleepers(sleepers)
            clock.advance(to: origin.advanced(by: Self.chunk * step))
        }
        await clock.waitForSleepers(sleepers)
    }

    /// A body that sends 200-byte chunks through `pacer` until cancelled, logging when each went.
    private func stream(urgency: Int, through pacer: LinkPacer<ManualClock>, on clock: ManualClock,
                        from origin: ManualClock.Instant, into log: SendLog) -> Task<Void, Never> {
        let sender = pacer.register(urgency: urgency)
        return Task {
            defer { pacer.unregister(sender) }
            while true {
                do { try await pacer.beforeSending(Self.chunkBytes, by: sender) } catch { return }
                await log.append(sender: sender.id, urgency: urgency, time: origin.duration(to: clock.now))
            }
        }
    }
}

/// When each chunk went, by body.
private actor SendLog {
    private(set) var sends: [(sender: Int, urgency: Int, time: Duration)] = []

    func append(sender: Int, urgency: Int, time: Duration) { sends.append((sender, urgency, time)) }

    func times(urgency: Int) -> [Duration] { sends.filter { $0.urgency == urgency }.map(\.time) }
}
