import Foundation

/// What a run moved over the network: the input of a result's byte figures.
struct ByteUsage: Sendable {
    /// Bytes moved, finished payloads and parts of stopped ones.
    var onWire = 0.0
    /// Bytes of transfers stopped before their end that no later transfer resumed after.
    var stopped = 0.0
    /// The shared link's capacity in bytes per second (nil: independent latencies, no link).
    var capacityBytesPerSecond: Double?
    /// The run's length, in seconds.
    var duration = 0.0
    /// The payload size of an item, in bytes.
    var size: @Sendable (Int) -> Int = { _ in 0 }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// A duration of `seconds`, to the nanosecond.
    static func seconds(exactly seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
