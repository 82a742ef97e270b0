import Foundation
import NIOConcurrencyHelpers
import PrefetchSupport

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

/// Decides each request's faults from the seed, the path and the attempt number.
final class FaultPlanner: Sendable {
    private let configuration: ServerConfiguration
    private let attempts = NIOLockedValueBox([String: Int]())

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// Counts a request to `path` and returns its attempt number (0 first).
    func nextAttempt(_ path: String) -> Int {
        attempts.withLockedValue { a in
            let n = a[path, default: 0]
            a[path] = n + 1
            return n
        }
    }

    func plan(path: String, attempt: Int, bodySize: Int) -> FaultPlan {
        let faults = configuration.faults
        var random = SplitMix64(seed: configuration.seed ^ stableHash(path) ^ (UInt64(attempt) &* 0xD6E8_FEB8_6659_FD93))
        var plan = FaultPlan()
        switch faults.latency {
        case .none: break
        case .fixed(let d): plan.latency = d
        case .logNormal(let median, let p99):
            let medianMs = ServerConfiguration.milliseconds(median)
            let sigma = log(ServerConfiguration.milliseconds(p99) / medianMs) / 2.326_347_874
            let u1 = max(random.nextUnitInterval(), 1e-12), u2 = random.nextUnitInterval()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            let ms = min(medianMs * exp(sigma * z), Double(ServerConfiguration.Limits.latencyMilliseconds.upperBound))
            plan.latency = .microseconds(Int64((ms * 1000).rounded()))
        }
        let errorDraw = random.nextUnitInterval(), resetDraw = random.nextUnitInterval(), slowDraw = random.nextUnitInterval(), resetPoint = random.nextUnitInterval()
        if attempt < faults.failFirst || errorDraw < faults.errorRate {
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
