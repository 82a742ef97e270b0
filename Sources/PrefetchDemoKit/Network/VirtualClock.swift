import PrefetchTesting

/// The demo's virtual time: `PrefetchTesting`'s `ManualClock`, moved only by the scripted driver.
///
/// The fetcher measures load latencies with it, so the latency estimate the adaptive policy
/// uses is virtual too, and a scripted run repeats exactly.
package typealias VirtualClock = ManualClock

extension ManualClock {
    /// The current virtual time, in seconds since the run started.
    var seconds: Double { now.offset.seconds }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// A duration of `seconds`, to the nanosecond.
    static func seconds(exactly seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
