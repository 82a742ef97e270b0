@testable import PrefetchServer
import PrefetchTesting
import Testing

/// The pacer with priority on a `ManualClock`: a less urgent body waits off the clock while a more
/// urgent one keeps the link busy, wakes when that body ends or when the link falls idle, and a
/// cancelled wait leaves nothing behind. Every step is synchronised on the pacer's waiters and the
/// clock's sleepers, never on real time.
@Suite("PrefetchServer link pacer with priority", .timeLimit(.minutes(1)))
struct PriorityPacerTests {
    @Test("a less urgent body waits while the more urgent one keeps the link busy, then takes its turn once it is counted out")
    func waitsForMoreUrgent() async throws {
        let (clock, origin, pacer) = link()
        let visible = pacer.register(urgency: 1)
        let background = pacer.register(urgency: 5)
        try await pacer.beforeSending(1_000, by: visible)   // the link is free: at once, busy until 0.1 s
        async let second: Void = pacer.beforeSending(1_000, by: visible)
        await clock.waitForSleepers(1)                      // its turn on the link is at 0.1 s, busy until 0.2 s
        let waiting = send(1_000, by: background, through: pacer, on: clock, from: origin)
        await pacer.waitForWaiting(1)
        await clock.waitForSleepers(2)                      // ...and the background body's wake-up, at 0.2 s
        clock.advance(by: .milliseconds(100))
        try await second
        #expect(pacer.waitingCount == 1, "the background body went while the visible one was being sent")
        pacer.unregister(visible)                           // its last chunk is on the link until 0.2 s
        #expect(pacer.waitingCount == 0)
        await clock.waitForSleepers(1)
        clock.advance(to: origin.advanced(by: .milliseconds(200)))
        #expect(try await value(of: waiting) == .milliseconds(200))
        pacer.unregister(background)
        #expect(pacer.budget.mostUrgent == nil)
    }

    @Test("the end of the most urgent body wakes only the next urgency, before the link falls idle")
    func wakesByUrgency() async throws {
        let clock = ManualClock()
        let origin = clock.now
        // With the tolerance, a body woken by an unregister sends at once, so the steps below need
        // no clock between them: the prefetch's send time shows it woke on the unregister.
        let pacer = LinkPacer(bytesPerSecond: 10_000, clock: clock, tolerance: .milliseconds(100))
        let visible = pacer.register(urgency: 1)
        let prefetch = pacer.register(urgency: 3)
        let background = pacer.register(urgency: 5)
        try await pacer.beforeSending(1_000, by: visible)   // busy until 0.1 s
        let prefetchTask = send(1_000, by: prefetch, through: pacer, on: clock, from: origin)
        let backgroundTask = send(1_000, by: background, through: pacer, on: clock, from: origin)
        await pacer.waitForWaiting(2)
        await clock.waitForSleepers(2)                      // both would wake when the link idles, at 0.1 s
        pacer.unregister(visible)
        #expect(pacer.waitingCount == 1)
        #expect(try await value(of: prefetchTask) == .zero)     // right behind the visible body's chunk, within the tolerance
        #expect(pacer.budget.busyUntil == .milliseconds(200))
        pacer.unregister(prefetch)
        #expect(pacer.waitingCount == 0)
        await clock.waitForSleepers(1)
        clock.advance(to: origin.advanced(by: .milliseconds(100)))
        #expect(try await value(of: backgroundTask) == .milliseconds(100))   // 0.2 s, less the tolerance
        pacer.unregister(background)
        #expect(pacer.budget.senders == [0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test("work-conserving: a more urgent body that sends a chunk and stops asking lets a waiting one go once its chunk is sent")
    func stalledMoreUrgent() async throws {
        let (clock, origin, pacer) = link()
        let visible = pacer.register(urgency: 1)
        let background = pacer.register(urgency: 5)
        try await pacer.beforeSending(1_000, by: visible)   // one chunk, on the link until 0.1 s; then it stalls
        let waiting = send(1_000, by: background, through: pacer, on: clock, from: origin)
        await pacer.waitForWaiting(1)
        await clock.waitForSleepers(1)
        clock.advance(to: origin.advanced(by: .milliseconds(50)))   // still on the link: it waits
        #expect(pacer.waitingCount == 1)
        clock.advance(to: origin.advanced(by: .milliseconds(100)))  // the link falls idle
        #expect(try await value(of: waiting) == .milliseconds(100))
        #expect(pacer.budget.senders == [0, 1, 0, 0, 0, 1, 0, 0], "the visible body is still being sent")
        // The visible body asks again: its chunk goes right after the background one, at 0.2 s,
        // and the background body, asking too, waits again; then the visible body stalls again.
        async let visibleAgain: Void = pacer.beforeSending(1_000, by: visible)
        await clock.waitForSleepers(1)
        #expect(pacer.budget.busyUntil == .milliseconds(300))
        let again = send(1_000, by: background, through: pacer, on: clock, from: origin)
        await pacer.waitForWaiting(1)
        await clock.waitForSleepers(2)
        clock.advance(to: origin.advanced(by: .milliseconds(200)))
        try await visibleAgain
        clock.advance(to: origin.advanced(by: .milliseconds(300)))
        #expect(try await value(of: again) == .milliseconds(300))
        pacer.unregister(visible)
        pacer.unregister(background)
    }

    @Test("strict while used: a more urgent body that asks for its next chunk as it sends the last holds a less urgent one back throughout")
    func busyMoreUrgentHoldsBack() async throws {
        let (clock, origin, pacer) = link()
        let visible = pacer.register(urgency: 1)
        let background = pacer.register(urgency: 5)
        try await pacer.beforeSending(1_000, by: visible)   // chunk 0 at 0 s
        let waiting = send(1_000, by: background, through: pacer, on: clock, from: origin)
        await pacer.waitForWaiting(1)
        for chunk in 1...4 {
            // As BodyStreamer does: the next chunk is asked for as soon as the last one is sent,
            // so the link is reserved a chunk ahead whenever the background body wakes to look.
            async let next: Void = pacer.beforeSending(1_000, by: visible)
            await clock.waitForSleepers(2)                  // the visible body's turn and the background body's wake-up
            #expect(pacer.budget.busyUntil == .milliseconds(100 * (chunk + 1)), "chunk \(chunk)")
            clock.advance(to: origin.advanced(by: .milliseconds(100 * chunk)))
            try await next
        }
        // The visible body stops asking (its own cap, a pause, a client not reading): once its
        // last chunk is sent, at 0.5 s, the link is idle and the background body goes.
        await clock.waitForSleepers(1)
        clock.advance(to: origin.advanced(by: .milliseconds(500)))
        #expect(try await value(of: waiting) == .milliseconds(500))
        #expect(pacer.budget.busyUntil == .milliseconds(600))
        pacer.unregister(visible)
        pacer.unregister(background)
    }

    /// The task's value; the test's time limit cancelling the test cancels the task too, so a body
    /// that never gets its turn fails the test rather than hanging it.
    /// A pacer of 10,000 bytes a second with no tolerance on a new manual clock, and the clock's start.
    private func link() -> (ManualClock, ManualClock.Instant, LinkPacer<ManualClock>) {
        let clock = ManualClock()
        return (clock, clock.now, LinkPacer(bytesPerSecond: 10_000, clock: clock, tolerance: .zero))
    }

    /// Sends `bytes` of `sender`'s body through `pacer` in a task of its own, which answers when
    /// the pacer let them go, measured from `origin`.
    private func send(_ bytes: Int, by sender: LinkSender, through pacer: LinkPacer<ManualClock>, on clock: ManualClock,
                      from origin: ManualClock.Instant) -> Task<Duration, any Error> {
        Task {
            try await pacer.beforeSending(bytes, by: sender)
            return origin.duration(to: clock.now)
        }
    }

    private func value<T: Sendable>(of task: Task<T, any Error>) async throws -> T {
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    @Test("a waiting body that is cancelled throws at once and leaves no waiter or sleeper behind")
    func cancelledWhileWaiting() async throws {
        let clock = ManualClock()
        let pacer = LinkPacer(bytesPerSecond: 10_000, clock: clock, tolerance: .zero)
        let visible = pacer.register(urgency: 1)
        let background = pacer.register(urgency: 5)
        try await pacer.beforeSending(1_000, by: visible)   // busy until 0.1 s
        let waiting = Task {
            // as BodyStreamer does: counted out however the body ends
            defer { pacer.unregister(background) }
            try await pacer.beforeSending(1_000, by: background)
        }
        await pacer.waitForWaiting(1)
        await clock.waitForSleepers(1)
        waiting.cancel()
        // The clock does not move: the task ends only if its wake-up on the clock was cancelled too.
        await #expect(throws: CancellationError.self) { try await value(of: waiting) }
        #expect(pacer.waitingCount == 0)
        #expect(pacer.budget.senders == [0, 1, 0, 0, 0, 0, 0, 0])
        #expect(pacer.budget.busyUntil == .milliseconds(100), "the cancelled body reserved nothing")
        pacer.unregister(visible)
        #expect(pacer.budget.mostUrgent == nil)
    }

    @Test("a pacer that ignores priority counts every body at the default urgency: none waits")
    func ignoringPriority() async throws {
        let clock = ManualClock()
        let pacer = LinkPacer(bytesPerSecond: 10_000, honoursPriority: false, clock: clock, tolerance: .zero)
        let visible = pacer.register(urgency: 1)
        let background = pacer.register(urgency: 5)
        #expect(visible.urgency == 3 && background.urgency == 3)
        #expect(pacer.budget.senders == [0, 0, 0, 2, 0, 0, 0, 0])
        try await pacer.beforeSending(1_000, by: visible)
        async let second: Void = pacer.beforeSending(1_000, by: background)   // shares the link: its turn at 0.1 s, no wait
        await clock.waitForSleepers(1)
        #expect(pacer.waitingCount == 0)
        clock.advance(by: .milliseconds(100))
        try await second
        pacer.unregister(visible)
        pacer.unregister(background)
    }
}
