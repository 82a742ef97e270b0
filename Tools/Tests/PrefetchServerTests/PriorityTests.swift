import ArgumentParser
@testable import PrefetchServer
import PrefetchTesting
import Testing

/// RFC 9218's `Priority` header: the parser on its own, then the priority rule of the shared
/// budget on its own (the pacer on a manual clock is in PriorityPacerTests.swift).
@Suite("PrefetchServer request priority")
struct RequestPriorityTests {
    @Test("the urgency and incremental flag of a Priority header; anything invalid leaves the default", arguments: [
        ("u=1", 1, false), ("u=1, i", 1, true), ("i, u=6", 6, true), ("u=0", 0, false), ("u=7, i=?1", 7, true),
        ("u=5, i=?0", 5, false), ("i", 3, true),
        // whitespace: spaces around the field, spaces and tabs around commas
        ("  u=2  ", 2, false), ("u=2,i", 2, true), ("u=2 ,\ti", 2, true), ("u=4,   i", 4, true),
        // out of range, or not an integer: u is ignored, the rest is read
        ("u=9", 3, false), ("u=-1", 3, false), ("u=abc", 3, false), ("u=1.5", 3, false), ("u=?1", 3, false),
        ("u=\"1\"", 3, false), ("u=(1 2), i", 3, true), ("u=8, i", 3, true),
        // i that is not a boolean is ignored
        ("u=2, i=1", 2, false), ("u=2, i=abc", 2, false),
        // other members and parameters are ignored; a repeated key keeps its last value
        ("u=1;x=y, i=?0;z", 1, false), ("u=5, foo=(a \"b\" 1.25);p=:aGk=:, bar", 5, false), ("u=1, u=4", 4, false),
        ("u=2, x=\"a \\\"quoted\\\" text\"", 2, false), ("u=6, *x=tok/en:1", 6, false),
        // not a valid dictionary: the whole header is ignored, as RFC 8941 says
        ("", 3, false), ("u = 1", 3, false), ("U=1", 3, false), ("u=1,", 3, false), (",u=1", 3, false), ("u=1 i", 3, false),
        ("u=1, x=@", 3, false), ("u=1234567890123456", 3, false), ("u=1, x=\"open", 3, false), ("u=1, x=\"é\"", 3, false),
        ("u=1, x=(a b", 3, false), ("u=1;", 3, false), ("u=1.", 3, false), ("u=1, x=?2", 3, false),
    ])
    func parse(field: String, urgency: Int, incremental: Bool) {
        #expect(RequestPriority(field: field) == RequestPriority(urgency: urgency, incremental: incremental), "\(field)")
    }

    @Test("no header is the default; several field lines are one dictionary, the last value winning")
    func missingAndSeveralLines() {
        #expect(RequestPriority(field: nil) == .default)
        #expect(RequestPriority(fieldLines: []) == .default)
        #expect(RequestPriority.default == RequestPriority(urgency: 3, incremental: false))
        #expect(RequestPriority(fieldLines: ["u=5", "i"]) == RequestPriority(urgency: 5, incremental: true))
        #expect(RequestPriority(fieldLines: ["u=1", "u=6"]).urgency == 6)
        #expect(RequestPriority(fieldLines: ["u=1", "u="]) == .default)
    }
}

@Suite("PrefetchServer priority in the shared budget")
struct StrictPriorityTests {
    @Test("a more urgent body that uses the link takes it from the next chunk on; the less urgent one goes on once it ends")
    func moreUrgentFirst() {
        var budget = LinkBudget(bytesPerSecond: 10_000, tolerance: .zero)
        budget.register(urgency: 5)   // a background load alone: the whole link
        #expect(budget.mayReserve(urgency: 5, at: .zero))
        #expect(budget.reserve(1_000, at: .zero, urgency: 5) == .zero)
        #expect(budget.reserve(1_000, at: .zero, urgency: 5) == .milliseconds(100))
        budget.register(urgency: 1)   // a visible cell's load begins while that chunk is on the link
        #expect(budget.mostUrgent == 1)
        #expect(budget.mayReserve(urgency: 1, at: .milliseconds(150)))
        #expect(budget.reserve(1_000, at: .milliseconds(150), urgency: 1) == .milliseconds(200))   // after the chunk already reserved
        #expect(budget.moreUrgentBusyUntil(urgency: 5) == .milliseconds(300))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(150)))
        budget.register(urgency: 3)   // a prefetch waits too
        #expect(!budget.mayReserve(urgency: 3, at: .milliseconds(200)))
        #expect(budget.reserve(1_000, at: .milliseconds(200), urgency: 1) == .milliseconds(300))   // the visible body goes on
        budget.unregister(urgency: 1)
        #expect(budget.mostUrgent == 3)
        #expect(budget.moreUrgentBusyUntil(urgency: 3) == nil, "an urgency with no body being sent holds nothing back")
        #expect(budget.mayReserve(urgency: 3, at: .milliseconds(300)))
        #expect(budget.reserve(1_000, at: .milliseconds(300), urgency: 3) == .milliseconds(400))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(300)))
        budget.unregister(urgency: 3)
        #expect(budget.mayReserve(urgency: 5, at: .milliseconds(300)))
        budget.unregister(urgency: 5)
        #expect(budget.mostUrgent == nil)
        #expect(budget.senders == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(budget.mayReserve(urgency: 7, at: .milliseconds(300)))
    }

    @Test("work-conserving: a less urgent body may reserve once a registered more urgent body has nothing reserved beyond now")
    func idleMoreUrgent() {
        var budget = LinkBudget(bytesPerSecond: 10_000, tolerance: .milliseconds(100))
        budget.register(urgency: 1)
        budget.register(urgency: 5)
        // Nothing reserved yet: the visible body is not using the link, so the background one need not wait.
        #expect(budget.moreUrgentBusyUntil(urgency: 5) == nil)
        #expect(budget.mayReserve(urgency: 5, at: .zero))
        // The visible body reserves one chunk, until 0.1 s, then stops asking (held to its own
        // cap, paused, or its client stopped reading).
        #expect(budget.reserve(1_000, at: .zero, urgency: 1) == .zero)
        #expect(budget.busyUntil == .milliseconds(100))
        // While its chunk is on the link the background body waits, the tolerance notwithstanding.
        #expect(!budget.mayReserve(urgency: 5, at: .zero))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(99)))
        // Once the chunk has left, the background body may reserve, and goes on doing so while
        // the visible one does not ask: its own chunks do not hold it back.
        #expect(budget.mayReserve(urgency: 5, at: .milliseconds(100)))
        #expect(budget.reserve(1_000, at: .milliseconds(130), urgency: 5) == .milliseconds(130))
        #expect(budget.mayReserve(urgency: 5, at: .milliseconds(130)))
        #expect(budget.reserve(1_000, at: .milliseconds(130), urgency: 5) == .milliseconds(130))   // within the tolerance
        #expect(budget.busyUntil == .milliseconds(330))
        // The visible body comes back: it may reserve at once, and its chunk goes after the
        // background ones, less the tolerance, at 0.23 s (less than a chunk late); from then on the
        // background body waits.
        #expect(budget.reserve(1_000, at: .milliseconds(150), urgency: 1) == .milliseconds(230))
        #expect(budget.moreUrgentBusyUntil(urgency: 5) == .milliseconds(430))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(150)))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(429)))
        #expect(budget.mayReserve(urgency: 5, at: .milliseconds(430)))
    }

    @Test("behind a stalled visible body the prefetch streams and the background load gets only what the prefetch leaves")
    func orderAmongGapFillers() {
        var budget = LinkBudget(bytesPerSecond: 10_000, tolerance: .zero)
        for u in [1, 3, 5] { budget.register(urgency: u) }
        #expect(budget.reserve(1_000, at: .zero, urgency: 1) == .zero)   // then the visible body stalls
        #expect(!budget.mayReserve(urgency: 3, at: .milliseconds(50)))
        // At 0.1 s its chunk has left: the prefetch may go, and keeps going; the background waits for it.
        #expect(budget.mayReserve(urgency: 3, at: .milliseconds(100)))
        #expect(budget.reserve(1_000, at: .milliseconds(100), urgency: 3) == .milliseconds(100))
        #expect(budget.mayReserve(urgency: 3, at: .milliseconds(100)))
        #expect(budget.reserve(1_000, at: .milliseconds(100), urgency: 3) == .milliseconds(200))
        #expect(budget.moreUrgentBusyUntil(urgency: 5) == .milliseconds(300))
        #expect(!budget.mayReserve(urgency: 5, at: .milliseconds(200)))
        // The prefetch pauses too (a slow-body fault): once its chunks have left, the background goes.
        #expect(budget.mayReserve(urgency: 5, at: .milliseconds(300)))
        #expect(budget.reserve(1_000, at: .milliseconds(300), urgency: 5) == .milliseconds(300))
        #expect(budget.moreUrgentBusyUntil(urgency: 3) == .milliseconds(100), "the background's chunk does not hold the prefetch back")
        #expect(budget.mayReserve(urgency: 3, at: .milliseconds(300)))
    }

    @Test("bodies of one urgency take turns chunk by chunk; less urgent ones, waking when the link might idle, send only after them")
    func schedule() {
        // Three bodies start together: two visible cells (u=1) and a background load (u=5), five
        // 1,000-byte chunks each. Each asks for its next chunk when its last one went; a body that
        // may not reserve asks again when the chunks holding it back have left, or when a body ends. Asks are
        // served in time order, ties by sender.
        var budget = LinkBudget(bytesPerSecond: 10_000, tolerance: .zero)
        let urgencies = [1, 1, 5]
        for u in urgencies { budget.register(urgency: u) }
        var asks: [Duration] = [.zero, .zero, .zero]
        var left = [5, 5, 5]
        var waiting: Set<Int> = []
        var waits = 0
        var order: [Int] = []
        var sendTimes: [Duration] = []
        while let sender = asks.indices.filter({ left[$0] > 0 }).min(by: { (asks[$0], $0) < (asks[$1], $1) }) {
            let now = asks[sender]
            guard budget.mayReserve(urgency: urgencies[sender], at: now) else {
                asks[sender] = budget.moreUrgentBusyUntil(urgency: urgencies[sender])!   // wake when their chunks have left
                waiting.insert(sender)
                waits += 1
                continue
            }
            waiting.remove(sender)
            let at = budget.reserve(1_000, at: now, urgency: urgencies[sender])
            order.append(sender)
            sendTimes.append(at)
            left[sender] -= 1
            asks[sender] = at
            if left[sender] == 0 {
                budget.unregister(urgency: urgencies[sender])
                // The end of a body wakes the waiting ones that may go now.
                for other in waiting where budget.mayReserve(urgency: urgencies[other], at: now) { asks[other] = now }
            }
        }
        // The two visible bodies alternate (the first asks again at 0 and wins the tie), and the
        // background body, though it wakes each time the link would have idled, finds it reserved
        // ahead every time: it sends only after both.
        #expect(order == [0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 2, 2, 2, 2, 2])
        #expect(waits == 3, "the background body found the link busy \(waits) times")
        // The link never idles and never runs faster than its rate: one chunk every 0.1 s.
        #expect(sendTimes == (0..<15).map { .milliseconds(100 * $0) })
        #expect(budget.mostUrgent == nil)
    }

    @Test("an urgency outside 0...7 counts as the nearest one")
    func outOfRange() {
        var budget = LinkBudget(bytesPerSecond: 1_000)
        budget.register(urgency: 9)
        #expect(budget.mostUrgent == 7)
        budget.register(urgency: -2)
        #expect(budget.mostUrgent == 0)
        #expect(budget.reserve(1_000, at: .zero, urgency: -2) == .zero)
        #expect(budget.reservedUntil[0] == .seconds(1))
        #expect(budget.moreUrgentBusyUntil(urgency: 12) == .seconds(1))
        #expect(!budget.mayReserve(urgency: 12, at: .zero))
        budget.unregister(urgency: -2)
        budget.unregister(urgency: 9)
        #expect(budget.mostUrgent == nil)
        #expect(RequestPriority(urgency: 11).urgency == 3)
    }

    @Test("--ignore-priority turns priority off; it needs --server-bandwidth; priority is honoured by default")
    func flag() throws {
        #expect(try ServerOptions.parse([]).configuration().honoursPriority)
        #expect(try ServerOptions.parse(["--server-bandwidth", "1mbit"]).configuration().honoursPriority)
        #expect(try !ServerOptions.parse(["--server-bandwidth", "1mbit", "--ignore-priority"]).configuration().honoursPriority)
        do {
            _ = try ServerOptions.parse(["--ignore-priority"])
            Issue.record("--ignore-priority without --server-bandwidth was accepted")
        } catch {
            #expect(ServerOptions.message(for: error)
                == "--ignore-priority only applies with --server-bandwidth (priority orders the bodies sharing that budget)")
        }
    }
}

/// The parser against generated headers: whatever a client sends, it answers an urgency in 0...7
/// and never traps; a valid dictionary with a `u` member in range, whatever else it holds, answers that `u`.
@Suite("PrefetchServer request priority, generated headers")
struct GeneratedPriorityHeaderTests {
    /// A small seeded generator (xorshift64*), so every run sees the same headers.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return Int((state &* 2_685_821_657_736_338_717) >> 33) % bound
        }
    }

    @Test("any bytes: an urgency in 0...7, no trap")
    func anyBytes() {
        var random = Generator(state: 0x5EED_1234)
        let alphabet = Array("u=i?01789 ,;\t\"\\()*:/.-aZé@".unicodeScalars)
        for _ in 0..<5_000 {
            let field = String(String.UnicodeScalarView((0..<random.next(24)).map { _ in alphabet[random.next(alphabet.count)] }))
            let priority = RequestPriority(field: field)
            #expect(RequestPriority.urgencies.contains(priority.urgency), "\(field)")
        }
    }

    @Test("a valid dictionary answers its u, whatever other members and parameters it holds")
    func validDictionaries() {
        var random = Generator(state: 0xC0FF_EE11)
        let others = ["i", "i=?0", "i=?1", "x=tok", "y=(a b)", "z=\"s\"", "w=1.5", "v=:aGk=:", "q;p=1"]
        for _ in 0..<2_000 {
            let urgency = random.next(8)
            var members = (0..<random.next(4)).map { _ in others[random.next(others.count)] }
            members.insert("u=\(urgency)" + (random.next(3) == 0 ? ";a=b" : ""), at: random.next(members.count + 1))
            let field = members.joined(separator: random.next(2) == 0 ? ", " : ",")
            #expect(RequestPriority(field: field).urgency == urgency, "\(field)")
        }
    }
}

@Suite("PrefetchServer request urgency, public")
struct PublicUrgencyTests {
    @Test("ServerRequest.urgency(priorityFieldLines:) reads what the shaper reads")
    func publicUrgency() {
        #expect(ServerRequest.urgency(priorityFieldLines: ["u=1, i"]) == 1)
        #expect(ServerRequest.urgency(priorityFieldLines: ["u=5", "i"]) == 5)
        #expect(ServerRequest.urgency(priorityFieldLines: []) == 3)
        #expect(ServerRequest.urgency(priorityFieldLines: ["u = 1"]) == 3)
    }
}
