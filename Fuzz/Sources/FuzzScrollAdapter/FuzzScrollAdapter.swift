import Foundation
import FuzzSupport
import PrefetchKit

/// libFuzzer entry point: the bytes are a geometry and a script of calls on a `ScrollAdapter`
/// (frames, lifts, page scrolls, animations, questions, data changes) with arbitrary numbers:
/// NaN, ±infinity, subnormals, 1e300, -0 and raw bit patterns all occur. Whatever the script,
/// nothing may trap: bad input comes back as a `PrefetchError`, or is ignored where the call
/// returns none. A second controller is driven with raw `ScrollState`s (times kept in order, the
/// controller's documented precondition) over the same geometries.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScrollAdapter(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: start, count: count))
    var script = ScrollAdapterScript(&input)
    script.run(&input)
    return 0
}

/// The script's readings of the fuzzer's bytes.
extension FuzzInput {
    /// A number that is often one of the values that break arithmetic.
    mutating func double() -> Double {
        let selector = byte()
        switch selector % 16 {
        case 0: return Self.specials[Int(byte()) % Self.specials.count]
        case 1: return Double(bitPattern: uint64())
        case 2: return Double(Int8(bitPattern: byte())) * 100
        case 3: return Double(byte()) / 16
        case 4: return -Double(Int16(bitPattern: UInt16(byte()) << 8 | UInt16(byte())))
        case 5: return Double(Int16(bitPattern: UInt16(byte()) << 8 | UInt16(byte()))) * 10
        default: return Double(byte()) * 25
        }
    }

    /// A time or an offset that mostly moves on from `last`, so that scripts get past the
    /// adapter's refusal of frames from the past.
    mutating func after(_ last: Double) -> Double {
        switch byte() % 4 {
        case 0: return double()
        case 1: return last
        default: return last + Double(byte()) / 60
        }
    }

    mutating func integer() -> Int {
        switch byte() % 8 {
        case 0: return [Int.max, Int.min, Int.max - 1, Int.min + 1, 0, -1, 1 << 62, Int(Int32.max)][Int(byte()) % 8]
        default: return Int(byte() % 8)
        }
    }

    static let specials: [Double] = [
        .nan, -.nan, .signalingNaN, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300, 1e-300, 1e308,
        .ulpOfOne, 1 - .ulpOfOne / 2, 1, -1, 0.998, 0.99, 9.223372036854775807e18, -9.223372036854775808e18,
        1e18, 1e15, 100, 300, 800, 0.5, 1e-9, Double(Int64.max),
    ]
}

/// Records what a controller asks for; its latencies come from the input.
final class RecordingTarget: PrefetchTarget {
    var requested: [Int: FetchPriority] = [:]
    var expectedLatency: Duration?
    var typicalLatency: Duration?

    init(expected: Duration?, typical: Duration?) {
        expectedLatency = expected
        typicalLatency = typical
    }

    func updatePrefetching(_ update: PrefetchUpdate<Int>) {
        for item in update.removed { requested[item] = nil }
        for move in update.moved { requested[move.to] = requested.removeValue(forKey: move.from) }
        for item in update.withdrawals { requested[item] = nil }
        for request in update.requests {
            // A NaN order has no place in a fetcher's queue (it compares false with everything).
            precondition(!request.priority.order.isNaN, "request for \(request.item) at \(request.priority)")
            requested[request.item] = request.priority
        }
    }
}

/// A layout's reported frames: index paths with extents, taken as they come.
struct LayoutFrames {
    var frames: [(IndexPath, Range<Double>)]

    init(_ input: inout FuzzInput, itemCount: Int) {
        var frames: [(IndexPath, Range<Double>)] = []
        let count = Int(input.byte() % 48)
        var cursor = 0.0
        for _ in 0..<count {
            let section = input.byte() % 8 == 0 ? Int(input.byte() % 3) : 0
            let row = input.byte() % 16 == 0 ? input.integer() : Int(input.byte()) % max(1, itemCount + 2)
            let path = input.byte() % 32 == 0 ? IndexPath(indexes: [row]) : IndexPath(indexes: [section, row])
            let lower = input.byte() % 2 == 0 ? cursor : input.double()
            let upper = input.byte() % 2 == 0 ? lower + Double(input.byte()) : input.double()
            cursor = upper.isFinite ? upper : cursor
            frames.append((path, Self.range(lower, upper)))
        }
        self.frames = frames
    }

    /// A range from two numbers in either order; NaN cannot bound a range (building one traps in the
    /// caller's code, before PrefetchKit sees it), so it stands for 0.
    static func range(_ a: Double, _ b: Double) -> Range<Double> {
        let a = a.isNaN ? 0 : a, b = b.isNaN ? 0 : b
        return a <= b ? a..<b : b..<a
    }

    func geometry(_ lookup: ItemLookup<Int>) -> LayoutScrollGeometry<Int> {
        let frames = self.frames
        return LayoutScrollGeometry(
            lookup: lookup,
            frames: { _ in frames },
            frame: { path in frames.first { $0.0 == path }?.1 })
    }
}

enum AnyGeometry {
    case uniform(UniformRowsGeometry<Int>)
    case layout(LayoutScrollGeometry<Int>)
}

struct ScrollAdapterScript {
    var ids: [Int]
    var lookup: ItemLookup<Int>
    var geometry: AnyGeometry
    let adapter: ScrollAdapter<Int>
    let target: RecordingTarget
    let shutDown: ShutDownFlag
    let controller: PrefetchController<Int>
    var lastTime = 0.0
    var lastOffset = 0.0
    var stateTime = 0.0

    final class ShutDownFlag { var isShutDown = false }

    init(_ input: inout FuzzInput) {
        let count = Int(UInt16(input.byte()) << 8 | UInt16(input.byte())) % 4_097
        ids = input.bool() ? Array(0..<count) : (0..<count).map { $0 % max(1, Int(input.byte())) }
        lookup = ItemLookup(identifiers: ids, section: input.byte() % 8 == 0 ? input.integer() : 0)
        geometry = .uniform(UniformRowsGeometry(items: [], rowLength: 0))
        func duration(_ input: inout FuzzInput) -> Duration? {
            switch input.byte() % 4 {
            case 0: nil
            case 1: .milliseconds(Int(input.byte()) * 10)
            default: Duration(secondsComponent: Int64(bitPattern: input.uint64()), attosecondsComponent: Int64(input.byte()) * 1_000_000_000_000_000)
            }
        }
        target = RecordingTarget(expected: duration(&input), typical: duration(&input))
        let policy = Self.policy(&input)
        let configuration = (try? PrefetchController<Int>.Configuration(
            fallbackLatency: duration(&input) ?? .milliseconds(300), reprioritizationTolerance: input.double(),
            withdrawalGrace: input.double())) ?? .standard
        shutDown = ShutDownFlag()
        let flag = shutDown
        adapter = ScrollAdapter(controller: PrefetchController<Int>(policy: policy, target: target, configuration: configuration),
                                admission: RowAdmission(dwell: input.double()), isShutDown: { flag.isShutDown })
        controller = PrefetchController<Int>(policy: Self.policy(&input), target: RecordingTarget(expected: duration(&input), typical: nil))
        geometry = makeGeometry(&input)
    }

    static func policy(_ input: inout FuzzInput) -> any PrefetchPolicy {
        switch input.byte() % 6 {
        case 0: PrefetchPolicies.none
        case 1: PrefetchPolicies.uikitLike
        case 2: PrefetchPolicies.textureLike
        case 3: (try? PrefetchPolicies.UIKitLike(lead: input.double())) ?? PrefetchPolicies.uikitLike
        case 4: (try? PrefetchPolicies.Adaptive(
            margin: input.double(), minimumLead: input.double(), maximumLead: input.double(), idleLead: input.double(),
            behind: input.double(), latencyMultiplier: input.double(), reversalPrior: input.double(),
            reversalBehind: input.double(), aggressiveness: input.double())) ?? PrefetchPolicies.Adaptive.standard
        default: PrefetchPolicies.Adaptive.standard
        }
    }

    func makeGeometry(_ input: inout FuzzInput) -> AnyGeometry {
        if input.bool() {
            return .layout(LayoutFrames(&input, itemCount: ids.count).geometry(lookup))
        }
        let items = input.bool() ? ids : Array(ids.prefix(Int(input.byte()) * 16))
        return .uniform(UniformRowsGeometry(items: items, rowLength: input.double(), columns: input.integer(),
                                            spacing: input.double(), leadingPadding: input.double()))
    }

    mutating func frame(_ input: inout FuzzInput) -> ScrollTracker.Frame {
        let time = input.after(lastTime)
        let offset = input.after(lastOffset)
        let contentLength: Double
        if input.bool(), case let .uniform(rows) = geometry {
            contentLength = rows.contentLength
        } else {
            contentLength = input.double()
        }
        let frame = ScrollTracker.Frame(
            time: time, offset: offset, viewportLength: input.bool() ? 800 : input.double(), contentLength: contentLength,
            leadingInset: input.bool() ? 0 : input.double(), trailingInset: input.bool() ? 0 : input.double(),
            motion: [.idle, .tracking, .decelerating, .animating][Int(input.byte() % 4)],
            decelerationRate: input.bool() ? ScrollTranslation.normalDecelerationRate : input.double())
        if time.isFinite, time > lastTime { lastTime = time }
        if offset.isFinite { lastOffset = offset }
        return frame
    }

    func send(_ frame: ScrollTracker.Frame) -> PrefetchError? {
        switch geometry {
        case .uniform(let rows): adapter.frame(frame, geometry: rows)
        case .layout(let layout): adapter.frame(frame, geometry: layout)
        }
    }

    func extent(of item: Int) -> Range<Double>? {
        switch geometry {
        case .uniform(let rows): rows.extent(of: item)
        case .layout(let layout): layout.extent(of: item)
        }
    }

    mutating func run(_ input: inout FuzzInput) {
        var steps = 0
        while !input.isAtEnd, steps < 256 {
            steps += 1
            switch input.byte() % 16 {
            case 0, 1, 2:
                _ = send(frame(&input))
            case 3:
                let frame = frame(&input)
                let target: Double? = input.bool() ? nil : input.double()
                let rate = input.bool() ? ScrollTranslation.normalDecelerationRate : input.double()
                _ = adapter.fingerLifted(at: frame, velocity: input.double(), targetOffset: target, rate: rate)
            case 4:
                let frame = frame(&input)
                let destination = adapter.pageScroll(input.bool() ? .forward : .backward, from: frame,
                                                     overlap: input.bool() ? 0 : input.double())
                if destination.isFinite { lastOffset = destination }
            case 5:
                let duration = input.bool() ? ScrollTranslation.animatedScrollDuration : input.double()
                adapter.willAnimate(to: input.after(lastOffset), at: input.after(lastTime), duration: duration)
            case 6:
                let index = Int(input.byte())
                let path = input.byte() % 8 == 0 ? IndexPath(indexes: [input.integer(), input.integer()])
                    : IndexPath(indexes: [0, ids.isEmpty ? index : index % ids.count])
                var extent: Range<Double>?
                switch input.byte() % 3 {
                case 0: extent = nil
                case 1: extent = lookup.item(path).flatMap { self.extent(of: $0) }
                default: extent = LayoutFrames.range(input.double(), input.double())
                }
                let answer = adapter.priority(at: path, lookup: lookup, extent: extent)
                precondition(!answer.priority.order.isNaN, "priority \(answer.priority) for \(path) at \(String(describing: extent))")
            case 7:
                _ = adapter.rowDecision(for: ids.isEmpty ? 0 : ids[Int(input.byte()) % ids.count],
                                        appearedAt: input.after(lastTime), now: input.after(lastTime))
            case 8:
                adapter.dataChanged()
            case 9:
                adapter.dataReloaded()
            case 10:
                adapter.detach()
            case 11:
                shutDown.isShutDown.toggle()
            case 12:
                geometry = makeGeometry(&input)
            case 13:
                if input.bool() {
                    var generator = SeededGenerator(seed: input.uint64())
                    ids.shuffle(using: &generator)
                }
                lookup = ItemLookup(identifiers: ids)
                if case .layout = geometry { geometry = makeGeometry(&input) }
            default:
                driveController(&input)
            }
        }
    }

    /// Raw `ScrollState`s, any phase, to the second controller (times in order: its precondition).
    mutating func driveController(_ input: inout FuzzInput) {
        let time = input.after(stateTime)
        if time.isFinite, time > stateTime { stateTime = time }
        let lower = input.after(lastOffset)
        let upper = input.bool() ? lower + input.double() : input.double()
        let phase: MotionPhase
        switch input.byte() % 4 {
        case 0: phase = .idle
        case 1: phase = .dragging
        case 2: phase = .decelerating(restingOffset: input.double(), rate: input.bool() ? 0.998 : input.double())
        default: phase = .programmatic(targetOffset: input.double(), duration: input.double())
        }
        // A finite time before the last one would trip the precondition; anything else goes.
        let state = ScrollState(time: time.isFinite && time < stateTime ? stateTime : time, viewport: LayoutFrames.range(lower, upper),
                                contentLength: input.double(), velocity: input.double(), phase: phase)
        switch geometry {
        case .uniform(let rows):
            controller.update(state, geometry: rows)
        case .layout(let layout):
            controller.update(state, geometry: layout)
        }
        switch input.byte() % 4 {
        case 0: controller.invalidateLayout()
        case 1: controller.moveItems { $0 % 3 == 0 ? nil : $0 + 1 }
        case 2:
            let item = ids.isEmpty ? 0 : ids[Int(input.byte()) % ids.count]
            let priority = controller.priority(for: item, extent: input.bool() ? extent(of: item) : LayoutFrames.range(input.double(), input.double()))
            precondition(!priority.order.isNaN, "priority \(priority) for \(item)")
        default: break
        }
    }
}

/// SplitMix64 from a seed in the input, so a crash replays.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_B9E9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
