import NIOConcurrencyHelpers
import PrefetchToolSupport

/// FNV-1a over a string's UTF-8: a hash that is the same in every process (unlike `Hasher`).
func stableHash(_ string: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in string.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
}

/// The faults for one request.
struct FaultPlan: Sendable, Equatable {
    var latency: Duration = .zero
    var fail = false
    /// Reset the connection after this many body bytes.
    var resetAfter: Int?
    var slowBody = false
}

/// Decides each request's faults from the seed, the resource and the attempt number.
///
/// Attempts are counted per resource, keyed by what the request means (`/thumb/7`,
/// `/items?offset=0&limit=50`), never by its raw text, and only for resources the server serves:
/// a 404 or a 400 counts nothing. The table holds at most ``maxTracked`` resources; past that the
/// oldest counters are forgotten, so a server that runs for hours stays bounded.
final class FaultPlanner: Sendable {
    /// The most resources whose attempts are counted at once.
    static let maxTracked = 65_536

    private struct Attempts: Sendable {
        var counts: [UInt64: Int] = [:]
        /// Keys in first-seen order, for forgetting the oldest; `head` is the oldest still kept.
        var order: [UInt64] = []
        var head = 0
    }

    private let configuration: ServerConfiguration
    private let limit: Int
    private let attempts = NIOLockedValueBox(Attempts())

    init(configuration: ServerConfiguration, maxTracked: Int = FaultPlanner.maxTracked) {
        self.configuration = configuration
        self.limit = max(1, maxTracked)
    }

    /// How many resources have an attempt counter now.
    var trackedCount: Int { attempts.withLockedValue { $0.counts.count } }

    /// Counts a request to `resource` (its canonical key) and returns its attempt number (0 first).
    func nextAttempt(_ resource: String) -> Int {
        let key = stableHash(resource)
        let limit = limit
        return attempts.withLockedValue { a in
            if let n = a.counts[key] {
                a.counts[key] = n + 1
                return n
            }
            if a.counts.count >= limit {
                a.counts[a.order[a.head]] = nil
                a.head += 1
                if a.head >= limit {
                    a.order.removeFirst(a.head)
                    a.head = 0
                }
            }
            a.counts[key] = 1
            a.order.append(key)
            return 0
        }
    }

    func plan(path: String, attempt: Int, bodySize: Int) -> FaultPlan {
        let faults = configuration.faults
        let draw = faults.latency.draw(seed: configuration.seed, item: Int(truncatingIfNeeded: stableHash(path)), load: 0, attempt: attempt, payloadBytes: bodySize)
        var plan = FaultPlan(latency: min(draw.latency, .milliseconds(ServerConfiguration.Limits.latencyMilliseconds.upperBound)))
        var random = SplitMix64(seed: configuration.seed ^ stableHash(path) ^ (UInt64(attempt) &* 0xD6E8_FEB8_6659_FD93))
        let resetDraw = random.nextUnitInterval(), slowDraw = random.nextUnitInterval(), resetPoint = random.nextUnitInterval()
        if attempt < faults.failFirst || draw.fails {
            plan.fail = true
            return plan
        }
        if attempt < faults.failFirst + faults.resetFirst || resetDraw < faults.resetRate {
            plan.resetAfter = Int(Double(bodySize) * (0.25 + 0.5 * resetPoint))
        }
        plan.slowBody = slowDraw < faults.slowBodyRate
        return plan
    }
}
