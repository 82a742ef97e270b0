/// The bytes and times of recent finished loads, and what they say about the network: how fast
/// one transfer moves its bytes, and how fast the loads moved bytes together.
///
/// A ring of the last ``capacity`` loads whose loader reported its bytes
/// (``FetchLoadContext/recordTransferred(bytes:)``). Every estimate is computed once, when a load
/// is recorded, so reading it (once a frame, by a prefetch target) is O(1).
///
/// - **Transfer rate.** A load's duration is a round trip plus its bytes at the rate its share of
///   the link allows: `duration ≈ roundTrip + bytes / rate`. The slope of duration against bytes
///   is estimated by Theil–Sen: the median of the slopes between every two loads of different
///   sizes. One slow round trip (a p99 of ten times the median is ordinary on a phone) moves a
///   least-squares slope a long way and a median of slopes hardly at all. Loads of one size say
///   nothing about the slope: the estimate needs ``minimumSamples`` loads and pairs whose sizes
///   differ by more than a tenth.
/// - **Link rate.** The bytes of the loads kept, over the time at least one of them was running
///   (the union of their intervals): what the link delivered while it was in use.
///
/// Every estimate is finite or `nil`, whatever was recorded (a byte count up to `Int.max`, a load
/// of no time, times of any size): ``seconds(forBytes:)`` is at most ``longestEstimate``, so its
/// caller's `Duration` never overflows, whatever size it is asked about.
@usableFromInline
struct ThroughputWindow: Sendable, Equatable {
    /// One finished load: its bytes, and when it started and ended on the fetcher's clock, in seconds.
    struct Sample: Sendable, Equatable {
        var bytes: Double
        var start: Double
        var end: Double
    }

    /// The most samples kept; older ones are forgotten first.
    let capacity: Int
    var ring: [Sample] = []
    var cursor = 0
    /// Seconds per byte past the round trip (the Theil–Sen slope), once estimable.
    private(set) var secondsPerByte: Double?
    /// Seconds of a load that do not grow with its bytes (the round trip): the median of each
    /// load's duration less its bytes at ``secondsPerByte``, once that is estimated.
    private(set) var roundTrip: Double?
    /// Bytes per second while any kept load ran.
    private(set) var linkBytesPerSecond: Double?

    /// The fewest loads the transfer rate is estimated from: 8.
    static let minimumSamples = 8

    /// The longest load time ``seconds(forBytes:)`` answers, in seconds: 10¹⁸ (some 32 billion
    /// years). A longer estimate (`Int.max` bytes at a slow fitted rate) is this one, so that it
    /// still converts to a `Duration` and back (`Duration.seconds(_:)` traps past about 1.7 × 10²⁰
    /// seconds, and its `components` past `Int64.max` seconds), and a larger size never gets a
    /// shorter estimate.
    @usableFromInline static let longestEstimate: Double = 1e18

    /// Creates an empty window of at most `capacity` loads (at least 1).
    init(capacity: Int = 64) {
        self.capacity = Swift.max(capacity, 1)
    }

    /// The number of loads kept.
    var count: Int { ring.count }

    /// Records a load that moved `bytes` from `start` to `end` (seconds on one clock). Ignored
    /// unless `bytes` is positive and the times and the time between them are finite, and in order.
    /// - Complexity: O(n²) in the samples kept (64 by default): once per finished load.
    @usableFromInline
    mutating func record(bytes: Int, start: Double, end: Double) {
        guard bytes > 0, start.isFinite, end.isFinite, end >= start, (end - start).isFinite else { return }
        let sample = Sample(bytes: Double(bytes), start: start, end: end)
        if ring.count < capacity {
            ring.append(sample)
        } else {
            ring[cursor] = sample
            cursor = (cursor + 1) % capacity
        }
        estimate()
    }

    /// Computes the estimates from the samples kept.
    mutating func estimate() {
        linkBytesPerSecond = Self.linkRate(ring)
        secondsPerByte = Self.slope(ring)
        roundTrip = secondsPerByte.flatMap { slope in
            Self.median(ring.map { ($0.end - $0.start) - slope * $0.bytes }.sorted()).flatMap { $0.isFinite ? Swift.max($0, 0) : nil }
        }
        if roundTrip == nil { secondsPerByte = nil }
    }

    /// How long a load of `bytes` takes: ``roundTrip`` plus the bytes at ``secondsPerByte``, at
    /// most ``longestEstimate``; `nil` until the transfer rate is estimated, and for a negative
    /// size (unknown). Zero bytes take the round trip. Never larger for fewer bytes.
    @usableFromInline
    func seconds(forBytes bytes: Int) -> Double? {
        guard let secondsPerByte, let roundTrip, bytes >= 0 else { return nil }
        // Finite factors, but their product may be far beyond any `Duration` (Int.max bytes at
        // 20 s a byte is some 1.8 × 10²⁰ s): capped, not converted as it is.
        let seconds = roundTrip + Double(bytes) * secondsPerByte
        guard !seconds.isNaN else { return nil }
        return Swift.min(Swift.max(seconds, 0), Self.longestEstimate)
    }

    /// The Theil–Sen slope of duration against bytes, over pairs whose sizes differ by more than
    /// a tenth of the larger; `nil` with fewer than ``minimumSamples`` samples, fewer such pairs
    /// than samples, or a slope that is not positive.
    static func slope(_ samples: [Sample]) -> Double? {
        guard samples.count >= minimumSamples else { return nil }
        var slopes: [Double] = []
        slopes.reserveCapacity(samples.count * (samples.count - 1) / 2)
        for i in samples.indices {
            for j in samples.indices where j > i {
                let (a, b) = (samples[i], samples[j])
                let spread = abs(a.bytes - b.bytes)
                guard spread > 0.1 * Swift.max(a.bytes, b.bytes) else { continue }
                slopes.append(((b.end - b.start) - (a.end - a.start)) / (b.bytes - a.bytes))
            }
        }
        guard slopes.count >= samples.count else { return nil }
        // Positive, finite, and with a finite reciprocal (the rate `FetchStatistics` reports).
        guard let slope = median(selecting: &slopes), slope > 0, slope.isFinite, (1 / slope).isFinite else { return nil }
        return slope
    }

    /// The bytes of `samples` over the length of the union of their intervals; `nil` when that
    /// length is zero or the rate is not finite.
    static func linkRate(_ samples: [Sample]) -> Double? {
        let intervals = samples.map { ($0.start, $0.end) }.sorted { $0.0 < $1.0 }
        var busy = 0.0
        var current: (start: Double, end: Double)?
        for (start, end) in intervals {
            if let open = current, start <= open.end {
                current = (open.start, Swift.max(open.end, end))
            } else {
                if let open = current { busy += open.end - open.start }
                current = (start, end)
            }
        }
        if let open = current { busy += open.end - open.start }
        guard busy > 0 else { return nil }
        let rate = samples.reduce(0) { $0 + $1.bytes } / busy
        return rate.isFinite ? rate : nil
    }

    /// The median of sorted `values` (the mean of the middle two for an even count).
    static func median(_ sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        // Halved before adding: the mean of two finite values is finite.
        return sorted.count % 2 == 1 ? sorted[middle] : sorted[middle - 1] / 2 + sorted[middle] / 2
    }

    /// The median of `values`, as ``median(_:)`` gives it for them sorted, found by selection
    /// (O(n) expected, where sorting the 2,016 slopes of 64 loads was most of a load's
    /// bookkeeping); `values` is left reordered.
    static func median(selecting values: inout [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let middle = values.count / 2
        if values.count % 2 == 1 { return nth(middle, of: &values) }
        let low = nth(middle - 1, of: &values)
        // After the selection everything past `middle - 1` is at least `low`: the next is their least.
        let high = values[middle...].min()!
        return low / 2 + high / 2
    }

    /// The `k`-th smallest of `values` (from 0), moved to index `k` with none larger before it and
    /// none smaller after it: quickselect with three-way partitions, so equal values (a link
    /// whose loads all give one slope) take one pass, not one each.
    static func nth(_ k: Int, of values: inout [Double]) -> Double {
        var (low, high) = (0, values.count - 1)
        while low < high {
            let (a, b, c) = (values[low], values[low + (high - low) / 2], values[high])
            let pivot = max(min(a, b), min(max(a, b), c))
            var (less, index, greater) = (low, low, high)
            while index <= greater {
                if values[index] < pivot {
                    values.swapAt(less, index)
                    less += 1
                    index += 1
                } else if values[index] > pivot {
                    values.swapAt(index, greater)
                    greater -= 1
                } else {
                    index += 1
                }
            }
            if k < less { high = less - 1 } else if k > greater { low = greater + 1 } else { return values[k] }
        }
        return values[k]
    }
}
