import Foundation
import PrefetchTesting
import PrefetchToolSupport

/// The effects that make a ``SharedLink`` behave like a phone's radio link, each its own switch
/// (all off by default: the classic fluid link). See <doc:APhonesLink> for each effect's source.
///
/// ```swift
/// import PrefetchSimulation
/// import PrefetchToolSupport
///
/// var link = SharedLink(.lte, sizes: .cell(CellImages(.thumbnail)))
/// link.phone = .phone(capacityBytesPerSecond: link.capacityBytesPerSecond)
/// ```
public struct PhoneEffects: Sendable, Hashable, CustomStringConvertible {
    /// Queueing in the bottleneck's buffer: nil for none.
    public var queueing: Queueing?
    /// TCP slow start on a new (or idle) connection: nil for none.
    public var slowStart: SlowStart?
    /// The radio's late wake-up after an idle spell: nil for none.
    public var radioWake: RadioWake?
    /// Slow round trips in runs (a Gilbert-Elliott channel): nil for none.
    public var burstyRoundTrips: BurstyRoundTrips?

    /// No effect: the classic link.
    public init(queueing: Queueing? = nil, slowStart: SlowStart? = nil, radioWake: RadioWake? = nil, burstyRoundTrips: BurstyRoundTrips? = nil) {
        self.queueing = queueing
        self.slowStart = slowStart
        self.radioWake = radioWake
        self.burstyRoundTrips = burstyRoundTrips
    }

    /// Every effect with its default parameters, for a link of `capacityBytesPerSecond`
    /// (the buffer holds half a second of it).
    public static func phone(capacityBytesPerSecond: Double) -> PhoneEffects {
        PhoneEffects(queueing: Queueing(bufferBytes: capacityBytesPerSecond * 0.5), slowStart: SlowStart(), radioWake: .lte,
                     burstyRoundTrips: BurstyRoundTrips())
    }

    /// Whether no effect is on.
    public var isClassic: Bool { self == PhoneEffects() }

    /// The effects on, e.g. `queueing(625000 B), slow start(10 × 1460 B), radio wake(…), bursty RTTs(…)`; empty when none is.
    public var description: String {
        [queueing.map { "queueing(\(Int($0.bufferBytes.rounded())) B buffer)" },
         slowStart.map { "slow start(\($0.initialWindowSegments) × \($0.segmentBytes) B)" },
         radioWake.map { "radio wake(\($0.promotionSeconds) s after \($0.idleSeconds) s idle)" },
         burstyRoundTrips.map { "bursty RTTs(good \($0.meanGoodSeconds) s, bad \($0.meanBadSeconds) s, × \($0.badFactor))" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// Throws ``SimulationError`` naming the first parameter out of range.
    func validate() throws {
        if let queueing, !(queueing.bufferBytes.isFinite && queueing.bufferBytes >= 0) {
            throw SimulationError("queueing buffer is \(queueing.bufferBytes) bytes, but it must be a finite number, at least 0")
        }
        if let slowStart, slowStart.initialWindowSegments < 1 || slowStart.segmentBytes < 1 {
            throw SimulationError("slow start window is \(slowStart.initialWindowSegments) segments of \(slowStart.segmentBytes) bytes, but both must be at least 1")
        }
        if let radioWake, !(radioWake.idleSeconds.isFinite && radioWake.idleSeconds >= 0 && radioWake.promotionSeconds.isFinite && radioWake.promotionSeconds >= 0) {
            throw SimulationError("radio wake after \(radioWake.idleSeconds) s idle, \(radioWake.promotionSeconds) s late: both must be finite numbers of seconds, at least 0")
        }
        if let b = burstyRoundTrips, !(b.meanGoodSeconds.isFinite && b.meanGoodSeconds > 0 && b.meanBadSeconds.isFinite && b.meanBadSeconds > 0 && b.badFactor.isFinite && b.badFactor >= 1) {
            throw SimulationError("bursty round trips good \(b.meanGoodSeconds) s, bad \(b.meanBadSeconds) s, factor \(b.badFactor): the means must be finite and above 0, the factor at least 1")
        }
    }

    /// Queueing in the bottleneck's buffer: a request's round trip waits behind the bytes
    /// queued there, `min(bytes the running transfers have left, bufferBytes) / capacity`.
    public struct Queueing: Sendable, Hashable {
        /// The most bytes the bottleneck's buffer holds.
        public var bufferBytes: Double
        /// A buffer of `bufferBytes`.
        public init(bufferBytes: Double) { self.bufferBytes = bufferBytes }
    }

    /// TCP slow start: a new connection's congestion window is `initialWindowSegments` segments
    /// (RFC 6928: 10) and doubles every round trip, so a transfer of `b` bytes needs
    /// `r = ⌈log2(b / window + 1)⌉` flights and ends no sooner than `r − 1` round trips after its first byte.
    /// Over HTTP/1.1 every transfer pays it; over HTTP/2 (one connection) only a transfer that begins
    /// when no other is running and none ended within `restartAfterIdleSeconds` (RFC 5681's restart after idle).
    public struct SlowStart: Sendable, Hashable {
        /// The initial window, in segments (RFC 6928: 10).
        public var initialWindowSegments: Int
        /// A segment's payload, in bytes (1,460: a 1,500-byte Ethernet MTU less IP and TCP headers).
        public var segmentBytes: Int
        /// How long an HTTP/2 connection idles before its window starts over (1 s: RFC 6298's initial retransmission timeout).
        public var restartAfterIdleSeconds: Double
        /// RFC 6928's window of 10 segments of 1,460 bytes, restarting after 1 s idle.
        public init(initialWindowSegments: Int = 10, segmentBytes: Int = 1_460, restartAfterIdleSeconds: Double = 1) {
            self.initialWindowSegments = initialWindowSegments
            self.segmentBytes = segmentBytes
            self.restartAfterIdleSeconds = restartAfterIdleSeconds
        }

        /// The flights a transfer of `bytes` needs: 1 up to the initial window, 2 up to three windows, ….
        public func flights(_ bytes: Double) -> Int {
            let window = Double(initialWindowSegments * segmentBytes)
            var (flights, sent) = (1, window)
            while sent < bytes { flights += 1; sent += window * pow(2, Double(flights - 1)) }
            return flights
        }
    }

    /// The radio's wake-up: after `idleSeconds` with nothing on the network the radio has
    /// dropped to idle, and the next request waits `promotionSeconds` for it to reconnect
    /// (3GPP RRC state promotion). Requests made while it wakes wait for the same moment.
    public struct RadioWake: Sendable, Hashable {
        /// How long the radio stays connected with nothing to send (the tail).
        public var idleSeconds: Double
        /// How long it takes to reconnect.
        public var promotionSeconds: Double
        /// A radio with this tail and promotion delay.
        public init(idleSeconds: Double, promotionSeconds: Double) {
            self.idleSeconds = idleSeconds
            self.promotionSeconds = promotionSeconds
        }
        /// LTE as Huang et al. measured it (MobiSys 2012): tail 11.6 s, promotion 0.26 s.
        public static let lte = RadioWake(idleSeconds: 11.6, promotionSeconds: 0.26)
        /// 3G (UMTS) as Qian et al. measured it (IMC 2010): about 17 s of tails, about 2 s to promote from idle.
        public static let umts = RadioWake(idleSeconds: 17, promotionSeconds: 2)
    }

    /// Slow round trips in runs: a two-state (good, bad) Markov chain in continuous time (a
    /// Gilbert-Elliott channel), staying in each state an exponentially distributed time of
    /// its mean; a round trip that starts in the bad state takes `badFactor` times its draw.
    /// Seeded: the same seed gives the same runs.
    public struct BurstyRoundTrips: Sendable, Hashable {
        /// The mean time in the good state, in seconds.
        public var meanGoodSeconds: Double
        /// The mean time in the bad state (a run of slow round trips), in seconds.
        public var meanBadSeconds: Double
        /// How many times longer a round trip is in the bad state.
        public var badFactor: Double
        /// Good for 10 s, bad for 2 s, on average; bad round trips 4 × as long.
        public init(meanGoodSeconds: Double = 10, meanBadSeconds: Double = 2, badFactor: Double = 4) {
            self.meanGoodSeconds = meanGoodSeconds
            self.meanBadSeconds = meanBadSeconds
            self.badFactor = badFactor
        }
    }
}

/// The chain of ``PhoneEffects/BurstyRoundTrips``: when its state changes, drawn lazily and seeded.
struct BurstyChain: Sendable {
    let parameters: PhoneEffects.BurstyRoundTrips
    private var rng: SplitMix64
    /// The times the state changes, in seconds; the chain starts good at 0.
    private(set) var changes: [Double] = []

    init(_ parameters: PhoneEffects.BurstyRoundTrips, seed: UInt64) {
        self.parameters = parameters
        self.rng = SplitMix64(seed: seed ^ 0x4255_5253_5459)
    }

    /// Whether the chain is bad at `seconds`.
    mutating func isBad(at seconds: Double) -> Bool {
        while (changes.last ?? 0) <= seconds { extend() }
        // The number of changes at or before `seconds`: odd means bad.
        var (low, high) = (0, changes.count)
        while low < high {
            let mid = (low + high) / 2
            if changes[mid] <= seconds { low = mid + 1 } else { high = mid }
        }
        return low % 2 == 1
    }

    /// Draws the next stay.
    mutating func extend() {
        let mean = changes.count % 2 == 0 ? parameters.meanGoodSeconds : parameters.meanBadSeconds
        let u = max(rng.nextUnitInterval(), 1e-300)
        changes.append((changes.last ?? 0) - mean * log(u))
    }
}

/// Payload sizes that follow the cell: the image's pixels on a 3x screen times a format's bytes
/// per pixel, with a seeded per-item spread (a log-normal around that median).
public struct CellImages: Sendable, Hashable, CustomStringConvertible {
    /// Which image a cell shows.
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        /// A thumbnail the cell's size: a grid item's rectangle, or a square as high as a list row.
        case thumbnail
        /// A full-width feed photo: the viewport's width, square.
        case feedPhoto
    }

    /// An encoding and its bytes per pixel.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// JPEG at quality about 80: 0.35 bytes per pixel (about 11 bits per pixel of 24, i.e. 8.5:1).
        case jpeg
        /// Lossy WebP: 0.25 bytes per pixel (Google's WebP study: 25-34 % smaller than JPEG at equal SSIM).
        case webp

        /// The bytes per pixel.
        public var bytesPerPixel: Double { self == .jpeg ? 0.35 : 0.25 }
    }

    /// Which image.
    public var profile: Profile
    /// Its encoding.
    public var format: Format
    /// Screen pixels per point (3 on current iPhones).
    public var scale: Double
    /// The 99th percentile of the per-item spread over the median (2: some images compress twice as badly).
    public var p99Ratio: Double

    /// Images of `profile` in `format`.
    public init(_ profile: Profile, format: Format = .jpeg, scale: Double = 3, p99Ratio: Double = 2) {
        self.profile = profile
        self.format = format
        self.scale = scale
        self.p99Ratio = p99Ratio
    }

    /// The median bytes of an image `width` × `height` points.
    public func medianBytes(width: Double, height: Double) -> Int {
        Int((width * scale * height * scale * format.bytesPerPixel).rounded())
    }

    /// The sizes for `layout` in `viewport`: a log-normal around the cell's image's median.
    func sizes(layout: ScenarioLayout, viewport: Viewport) -> PayloadSizes {
        let median: Int = switch profile {
        case .thumbnail: layout.kind == .grid ? medianBytes(width: layout.itemWidth, height: layout.itemHeight)
            : medianBytes(width: layout.itemHeight, height: layout.itemHeight)
        case .feedPhoto: medianBytes(width: viewport.width, height: viewport.width)
        }
        return .logNormal(median: max(median, 1), p99: Int((Double(max(median, 1)) * p99Ratio).rounded()))
    }

    /// `thumbnail jpeg (0.35 B/px, 3x)`.
    public var description: String { "\(profile.rawValue) \(format.rawValue) (\(format.bytesPerPixel) B/px, \(Int(scale))x)" }
}
