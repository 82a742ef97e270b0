import Foundation
import FuzzSupport
import PrefetchKit
import PrefetchTesting
import PrefetchUIKit

/// libFuzzer entry point: the bytes are a list, a layout and a script of what a scroll view and an
/// app do to a `ScrollViewPrefetcher` attached to a fake `ScrollSurface`: readings with arbitrary
/// offsets, lengths, insets, flags and deceleration rates (NaN, ±infinity, subnormals, 1e300, -0
/// and raw bit patterns all occur), the observers' callbacks (a change, a drag's start and end, a
/// memory warning), programmatic and page scrolls, data changes and reloads, priority questions,
/// target swaps (one of them to a shut-down fetcher's), detaching and attaching again, and the
/// prefetcher's scheduled checks, run when the script says on a clock it moves. Whatever the
/// script, nothing may trap: bad input comes back through `onProblem`. A second controller is
/// driven with raw `ScrollState`s in any phase over the same layout.
///
/// libFuzzer calls this on the main thread, where the prefetcher (main-actor isolated) runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScrollAdapter(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    MainActor.assumeIsolated {
        var input = bytes.withUnsafeBytes { FuzzInput($0) }
        var script = PrefetcherScript(&input)
        script.run(&input)
        script.finish()
    }
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

    /// A value that mostly moves on from `last` by a little, so that scripts get somewhere.
    mutating func after(_ last: Double) -> Double {
        switch byte() % 4 {
        case 0: return double()
        case 1: return last
        default: return last + Double(byte()) / 60
        }
    }

    /// An offset near `last`: a step either way, mostly a finger's, sometimes a screen's, sometimes any number.
    mutating func offset(after last: Double) -> Double {
        switch byte() % 8 {
        case 0: return double()
        case 1: return last
        case 2: return last + Double(Int8(bitPattern: byte())) * 40
        default: return last + Double(Int8(bitPattern: byte()))
        }
    }

    /// How far the script's clock moves on, in seconds: never back and never to infinity (the
    /// prefetcher's `now` is documented as a clock that never goes back), but by nothing, by a
    /// display frame or a few, by the prefetcher's quiet time, or very far.
    mutating func advance() -> Double {
        switch byte() % 8 {
        case 0: return 0
        case 1: return [0.1, 0.05, 0.2, 0.3, 0.5, 1, 1e-9, 1e6, 1e300, .leastNonzeroMagnitude][Int(byte()) % 10]
        case 2: return Double(byte()) / 1000
        default: return Double(byte() % 8 + 1) / 60
        }
    }

    /// An integer, often at an edge.
    mutating func integer() -> Int {
        switch byte() % 8 {
        case 0: return [Int.max, Int.min, Int.max - 1, Int.min + 1, 0, -1, 1 << 62, Int(Int32.max)][Int(byte()) % 8]
        default: return Int(byte() % 8)
        }
    }

    /// A duration as a target might report a latency: none, a plausible one, or any bit pattern.
    mutating func latency() -> Duration? {
        switch byte() % 4 {
        case 0: return nil
        case 1: return .milliseconds(Int(byte()) * 10)
        default: return Duration(secondsComponent: Int64(bitPattern: uint64()), attosecondsComponent: Int64(byte()) * 1_000_000_000_000_000)
        }
    }

    /// The numbers that break arithmetic, and a few plausible ones.
    static let specials: [Double] = [
        .nan, -.nan, .signalingNaN, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300, 1e-300, 1e308,
        .ulpOfOne, 1 - .ulpOfOne / 2, 1, -1, 0.998, 0.99, 9.223372036854775807e18, -9.223372036854775808e18,
        1e18, 1e15, 100, 300, 800, 0.5, 1e-9, Double(Int64.max),
    ]
}

/// A range from two numbers in either order; NaN cannot bound a range (building one traps in the
/// caller's code, before PrefetchKit sees it), so it stands for 0.
func range(_ a: Double, _ b: Double) -> Range<Double> {
    let a = a.isNaN ? 0 : a, b = b.isNaN ? 0 : b
    return a <= b ? a..<b : b..<a
}

/// Whether `extent` has a positive-length overlap with `range`: what "meets" means to a geometry.
func meets(_ extent: Range<Double>, _ range: Range<Double>) -> Bool {
    extent.lowerBound < range.upperBound && range.lowerBound < extent.upperBound
}

/// Traps unless `priority` is one a fetcher can queue: a level the package uses and an order that is not NaN.
func checkPriority(_ priority: FetchPriority, _ context: @autoclosure () -> String) {
    // A NaN order has no place in a fetcher's queue (it compares false with everything).
    precondition(!priority.order.isNaN, "\(context()): priority \(priority) has a NaN order")
    let level = priority.level
    precondition(level == .visible || level == .prefetch || level == .speculative || level == .background,
                 "\(context()): priority \(priority) has an unknown level")
}

// MARK: The list

/// The list's data: ids by position in one section, as a plain data source holds them. The
/// script changes it under the prefetcher (a shuffle, deletions, insertions, another section),
/// telling the prefetcher or not.
final class DataModel {
    /// The ids, by row.
    private(set) var ids: [Int] = []
    /// The section the rows are in.
    private(set) var section = 0
    /// The first row of each id.
    private var positions: [Int: Int] = [:]
    /// Every id the list ever held: the only items a controller over it may request.
    private(set) var everHeld: Set<Int> = []

    /// Creates a list of `ids` in `section`.
    init(ids: [Int], section: Int) { replace(ids: ids, section: section) }

    /// Replaces the data.
    func replace(ids: [Int], section: Int) {
        self.ids = ids
        self.section = section
        positions = [:]
        for (row, id) in ids.enumerated() where positions[id] == nil { positions[id] = row }
        everHeld.formUnion(ids)
    }

    /// The id at `path`, or `nil` when it names none (another section, a row past the end, not two indexes).
    func item(at path: IndexPath) -> Int? {
        guard path.count == 2, path[0] == section, ids.indices.contains(path[1]) else { return nil }
        return ids[path[1]]
    }

    /// The index path of `id`'s first row, or `nil` when the list no longer holds it.
    func indexPath(of id: Int) -> IndexPath? {
        positions[id].map { IndexPath(indexes: [section, $0]) }
    }

    /// A lookup that reads the list as it is when asked (a data source's answers change with its data).
    var lookup: ItemLookup<Int> {
        ItemLookup(item: { self.item(at: $0) }, indexPath: { self.indexPath(of: $0) })
    }
}

// MARK: The layout

/// Rows of equal length, `columns` cells to a row, at index paths `[section, 0..<count]`: a grid
/// or (one column) a list. Its numbers are kept usable (what a real layout reports), though rows
/// may be tiny, far away or past the largest finite offset.
struct Grid {
    /// The number of cells (it may lag the data behind, as a layout does until it is updated).
    let count: Int
    /// The section of the cells' index paths.
    let section: Int
    /// A row's length along the axis; 0 when the input gave no usable length (no cells then).
    let rowLength: Double
    /// Cells per row, from 1 to `count`.
    let columns: Int
    /// The gap between rows.
    let spacing: Double
    /// The content before the first row (negative for a layout that starts before 0).
    let padding: Double
    /// A cell's width across the axis (for the carousel check of the surface).
    let cardWidth: Double

    /// Creates a grid; lengths that are not finite (or, for the row, spacing and width, not
    /// positive) count as 0, and `columns` is clamped to 1...max(1, count).
    init(count: Int, section: Int, rowLength: Double, columns: Int, spacing: Double, padding: Double, cardWidth: Double) {
        func length(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
        self.count = max(0, count)
        self.section = section
        self.rowLength = length(rowLength)
        self.columns = min(max(1, columns), max(1, count))
        self.spacing = length(spacing)
        self.padding = padding.isFinite ? padding : 0
        self.cardWidth = length(cardWidth)
    }

    /// The number of rows.
    var rows: Int { count / columns + (count % columns == 0 ? 0 : 1) }

    /// The content's length: padding, rows and the gaps between them (possibly infinite).
    var contentLength: Double {
        rows == 0 ? max(0, padding) : max(0, padding + Double(rows) * rowLength + Double(rows - 1) * spacing)
    }

    /// The extent of `row`; row 0 starts at the padding even when a row and its gap add up to
    /// infinity (0 × ∞ is NaN), later rows may start at infinity.
    func extent(ofRow row: Int) -> Range<Double> {
        let start = row == 0 ? padding : padding + Double(row) * (rowLength + spacing)
        return start..<(start + rowLength)
    }

    /// The row of the cell at `path`, or `nil` when the path names no cell of the grid.
    func row(of path: IndexPath) -> Int? {
        guard path.count == 2, path[0] == section, (0..<count).contains(path[1]) else { return nil }
        return path[1] / columns
    }

    /// The row `position` falls in, rounded by `rule` and clamped to the rows; `nil` when the
    /// quotient is NaN (an infinite position over an infinite pitch).
    private func row(at position: Double, _ rule: FloatingPointRoundingRule) -> Int? {
        let row = ((position - padding) / (rowLength + spacing)).rounded(rule)
        guard !row.isNaN else { return nil }
        return Int(min(max(row, 0), Double(rows - 1)))
    }

    /// The cells whose rows meet `range`, row by row.
    func cells(meeting range: Range<Double>) -> [(IndexPath, Range<Double>)] {
        guard count > 0, rowLength > 0 else { return [] }
        let first = row(at: range.lowerBound, .down) ?? 0
        let last = row(at: range.upperBound, .up) ?? rows - 1
        guard first <= last else { return [] }
        var cells: [(IndexPath, Range<Double>)] = []
        for row in first...last {
            let extent = extent(ofRow: row)
            guard meets(extent, range) else { continue }
            for index in (row * columns)..<min(count, row * columns + columns) {
                cells.append((IndexPath(indexes: [section, index]), extent))
            }
        }
        return cells
    }
}

/// One cell a layout reports: its index path, its extent along the axis and, when the fuzzer
/// gives one, across it.
struct CellFrame {
    /// The cell's index path (any shape: two indexes, one, past the data).
    var path: IndexPath
    /// Its extent along the axis, as reported (empty, infinite, out of order).
    var extent: Range<Double>
    /// Its extent across the axis, or `nil`.
    var across: Range<Double>?
}

/// Where the surface's cells lie: a grid computed from its rows, or a list of frames taken as
/// the fuzzer gives them (unsorted, duplicated, empty, infinite, reported whatever the range).
enum SurfaceLayout {
    /// Rows computed from their lengths.
    case grid(Grid)
    /// Frames as the fuzzer gives them.
    case frames([CellFrame])

    /// The cells a layout reports for `range`.
    func cells(meeting range: Range<Double>) -> [(IndexPath, Range<Double>)] {
        switch self {
        case .grid(let grid): grid.cells(meeting: range)
        case .frames(let frames): frames.map { ($0.path, $0.extent) }
        }
    }

    /// The extent of the cell at `path` along the axis, or `nil`.
    func extent(at path: IndexPath) -> Range<Double>? {
        switch self {
        case .grid(let grid):
            guard grid.rowLength > 0, let row = grid.row(of: path) else { return nil }
            return grid.extent(ofRow: row)
        case .frames(let frames):
            return frames.first { $0.path == path }?.extent
        }
    }

    /// The extent of the cell at `path` across the axis, or `nil`.
    func crossExtent(at path: IndexPath) -> Range<Double>? {
        switch self {
        case .grid(let grid):
            guard grid.cardWidth > 0, grid.row(of: path) != nil else { return nil }
            let column = Double(path[1] % grid.columns)
            return (column * grid.cardWidth)..<((column + 1) * grid.cardWidth)
        case .frames(let frames):
            return frames.first { $0.path == path }?.across
        }
    }

    /// The content length the layout implies, when it has one.
    var contentLength: Double? {
        if case .grid(let grid) = self { return grid.contentLength }
        return nil
    }

    /// A layout from the input over `model`'s rows.
    static func make(_ input: inout FuzzInput, model: DataModel) -> SurfaceLayout {
        if input.bool() {
            return .frames(frames(&input, itemCount: model.ids.count, section: model.section))
        }
        let count = input.bool() ? model.ids.count : min(4_096, Int(input.byte()) * 16)
        return .grid(Grid(count: count, section: model.section,
                          rowLength: input.bool() ? Double(40 + Int(input.byte())) : input.double(),
                          columns: input.bool() ? 1 : input.integer(),
                          spacing: input.bool() ? 0 : input.double(),
                          padding: input.bool() ? 0 : input.double(),
                          cardWidth: input.bool() ? 120 : input.double()))
    }

    /// Up to 47 frames: mostly consecutive cells of the list's section, some at other index paths
    /// or with any numbers.
    private static func frames(_ input: inout FuzzInput, itemCount: Int, section: Int) -> [CellFrame] {
        var frames: [CellFrame] = []
        var cursor = 0.0
        for _ in 0..<Int(input.byte() % 48) {
            let inSection = input.byte() % 8 == 0 ? Int(input.byte() % 3) : section
            let row = input.byte() % 16 == 0 ? input.integer() : Int(input.byte()) % max(1, itemCount + 2)
            let path = input.byte() % 32 == 0 ? IndexPath(indexes: [row]) : IndexPath(indexes: [inSection, row])
            let lower = input.bool() ? cursor : input.double()
            let upper = input.bool() ? lower + Double(input.byte()) : input.double()
            cursor = upper.isFinite ? upper : cursor
            let across: Range<Double>? = input.byte() % 4 == 0 ? range(input.double(), input.double()) : nil
            frames.append(CellFrame(path: path, extent: range(lower, upper), across: across))
        }
        return frames
    }
}

/// The surface's cells as a controller's geometry over the list's ids, kept to the protocol's
/// terms as a layout-backed geometry must be: only finite, non-empty extents that meet the range,
/// in ascending order, each item once, and only index paths the list names.
struct SurfaceItems: ItemGeometry {
    /// Where the cells lie.
    let layout: SurfaceLayout
    /// Names the cells' index paths.
    let model: DataModel

    /// Whether a layout's extent can stand for an item's.
    private static func usable(_ extent: Range<Double>) -> Bool {
        extent.lowerBound.isFinite && extent.upperBound.isFinite && !extent.isEmpty
    }

    /// Calls `body` with each named item whose cell meets `range`, in ascending order along the axis.
    func forEachItem(meeting range: Range<Double>, _ body: (Int, Range<Double>) -> Void) {
        let found = layout.cells(meeting: range).filter { Self.usable($0.1) && meets($0.1, range) }
            .sorted { $0.1.lowerBound != $1.1.lowerBound ? $0.1.lowerBound < $1.1.lowerBound : $0.0 < $1.0 }
        var seen: Set<Int> = []
        for (path, extent) in found {
            guard let item = model.item(at: path), seen.insert(item).inserted else { continue }
            body(item, extent)
        }
    }

    /// The extent of `item`'s cell, or `nil` when the list no longer holds it or its cell is unusable.
    func extent(of item: Int) -> Range<Double>? {
        guard let path = model.indexPath(of: item), let extent = layout.extent(at: path), Self.usable(extent) else { return nil }
        return extent
    }
}

// MARK: The fake scroll view

/// A scroll view whose every answer the script sets: its reading, its cells, the part of a
/// carousel section it shows. It keeps the observers the prefetcher registers so the script can
/// call them as UIKit's would, and records what the prefetcher asks of it.
@MainActor
final class FuzzSurface: ScrollSurface {
    /// The axis the attached prefetcher scrolls along: the only one it may ask about.
    var axis: ScrollAxis = .vertical
    /// What the view reports while on screen.
    var reading: SurfaceReading
    /// Whether the view is on screen and laid out (off: no reading).
    var isOnScreen = true
    /// Where the cells lie.
    var layout: SurfaceLayout
    /// The part across the axis that each carousel section shows; sections not here show what the viewport shows.
    var windows: [Int: Range<Double>] = [:]
    /// The observers last registered, kept after they were unregistered (for a late callback).
    private(set) var events: SurfaceEvents?
    /// Whether the observers in `events` are still registered.
    private(set) var isObserved = false
    /// Counts registrations, so that a stale unregistration leaves a newer one alone.
    private var registrations = 0
    /// Whether the prefetcher turned the view's own prefetching off (the script clears it before attaching one).
    var prefetchingStopped = false
    /// Where the last animated scroll the prefetcher started, or the script announced, goes.
    var animationTarget: Double?
    /// How many animated scrolls the prefetcher started.
    private(set) var animations = 0
    /// How many page-scroll announcements the prefetcher posted.
    private(set) var announcements = 0

    /// Creates a view showing `reading` over `layout`.
    init(reading: SurfaceReading, layout: SurfaceLayout) {
        self.reading = reading
        self.layout = layout
    }

    /// Traps when the prefetcher asks along another axis than its own.
    private func check(_ asked: ScrollAxis) {
        precondition(asked == axis, "the prefetcher asked along \(asked), but it scrolls along \(axis)")
    }

    /// Whether every number of the reading is finite and of a size a real scroll view has.
    var readingIsPlausible: Bool {
        [reading.offset, reading.viewportLength, reading.contentLength, reading.leadingInset, reading.trailingInset]
            .allSatisfy { $0.isFinite && abs($0) <= 1e12 }
    }

    /// The reading, while on screen.
    func reading(along axis: ScrollAxis) -> SurfaceReading? {
        check(axis)
        return isOnScreen ? reading : nil
    }

    /// The layout's cells for `range`.
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        check(axis)
        return layout.cells(meeting: range)
    }

    /// The layout's extent for the cell at `indexPath`.
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        check(axis)
        return layout.extent(at: indexPath)
    }

    /// Records where a page scroll goes; the script moves the view there (or not) later. A view
    /// whose numbers are plausible must never be sent to a NaN or infinite offset (UIKit traps on one).
    func animateScroll(to offset: Double, along axis: ScrollAxis) {
        check(axis)
        precondition(offset.isFinite || !readingIsPlausible, "animated scroll to \(offset) from \(reading)")
        animationTarget = offset
        animations += 1
    }

    /// Records that the view's own prefetching is off.
    func stopDataPrefetching() { prefetchingStopped = true }

    /// Keeps `events` for the script to call; the returned function unregisters them, unless a
    /// later registration replaced them.
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        registrations += 1
        let registration = registrations
        self.events = events
        isObserved = true
        return { [weak self] in
            guard let self, self.registrations == registration else { return }
            self.isObserved = false
        }
    }

    /// Counts an announcement.
    func announcePageScrolled(_ status: String) {
        precondition(!status.isEmpty, "an empty page status")
        announcements += 1
    }

    /// The layout's extent across the axis.
    func crossExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        check(axis)
        return layout.crossExtent(at: indexPath)
    }

    /// The part the section shows across the axis, when the script made it a carousel.
    func visibleCrossExtent(ofSection section: Int, along axis: ScrollAxis) -> Range<Double>? {
        check(axis)
        return windows[section]
    }

    /// The registered observers, or (when `late`) the last ones even after they were unregistered:
    /// a callback already on its way when the prefetcher detached.
    func observers(late: Bool) -> SurfaceEvents? {
        isObserved || late ? events : nil
    }
}

/// The script's clock: seconds that never go back and stay finite.
@MainActor
final class ScriptClock {
    /// The clock the prefetcher reads.
    let clock = ManualClock()
    /// Where the clock started, in seconds.
    private let start: Double
    /// The time now.
    private(set) var time: Double

    /// Creates a clock reading `start` (0 when not finite).
    init(start: Double) {
        self.start = start.isFinite ? start : 0
        time = self.start
    }

    /// Moves on by `seconds`; a step that would leave the finite numbers leaves the clock where it is.
    func advance(by seconds: Double) { reach(time + seconds) }

    /// Moves on to `moment` when that is later and finite, and within what a `Duration` holds
    /// from the start.
    func reach(_ moment: Double) {
        guard moment.isFinite, moment > time, moment - start < 9e18 else { return }
        time = moment
        clock.advance(to: ManualClock.Instant(offset: .seconds(moment - start)))
    }
}

/// The prefetcher's scheduled actions, run when the script says (no real sleeps).
@MainActor
final class ScheduledActions {
    /// What waits, and when it is due.
    private var pending: [(due: Double, action: @MainActor () -> Void)] = []
    /// The clock the delays count on.
    private let clock: ScriptClock

    /// Creates a queue on `clock`.
    init(clock: ScriptClock) { self.clock = clock }

    /// Queues `action`, due `delay` from now.
    func add(_ delay: Duration, _ action: @escaping @MainActor () -> Void) {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18
        pending.append((clock.time + seconds, action))
    }

    /// Runs the action due first, moving the clock to its time when that is later (or, when
    /// `early`, without moving it: a timer that fires a little before the frames' clock says so).
    /// - Returns: Whether there was one.
    func runNext(early: Bool = false) -> Bool {
        guard let index = pending.indices.min(by: { pending[$0].due < pending[$1].due }) else { return false }
        let (due, action) = pending.remove(at: index)
        if !early { clock.reach(due) }
        action()
        return true
    }
}

/// Records what the prefetcher reports through `onProblem` instead of trapping.
@MainActor
final class ProblemLog {
    /// How many problems were reported.
    private(set) var count = 0

    /// Records `problem`, which must say what went wrong.
    func record(_ problem: PrefetchError) {
        precondition(!problem.message.isEmpty, "a problem without a message: \(problem)")
        count += 1
    }
}

// MARK: Targets

/// Records what a controller asks for, checking each update; its latencies, capacity and store
/// come from the input.
final class RecordingTarget: PrefetchTarget {
    /// What is requested now, by item.
    private(set) var requested: [Int: PrefetchRequest<Int>] = [:]
    /// The latency the controller plans with (any duration, or none).
    var expectedLatency: Duration?
    /// The median latency (any duration, or none).
    var typicalLatency: Duration?
    /// How many items the target's memory holds, or `nil` for no limit.
    var prefetchCapacity: Int?
    /// Whether the target takes requests for its store only.
    var acceptsStoreDestination: Bool
    /// The items that may be requested, or `nil` when any may (a controller whose items were renamed).
    private let exists: ((Int) -> Bool)?
    /// The names now of the items the target knows, after the renames and removals the controller
    /// queued for its next update (`moveItems`, `invalidateItems`); `nil` when none wait.
    private var pendingNames: ((Int) -> Int?)?

    /// Creates a target reading its latencies, capacity and store from the input.
    init(_ input: inout FuzzInput, exists: ((Int) -> Bool)?) {
        expectedLatency = input.latency()
        typicalLatency = input.byte() % 4 == 0 ? input.latency() : expectedLatency
        prefetchCapacity = Self.capacity(&input)
        acceptsStoreDestination = input.byte() % 4 == 0
        self.exists = exists
    }

    /// Notes that the controller queued `transform` (a rename, or `nil` for a removal) for its next update.
    func expectRenames(_ transform: @escaping (Int) -> Int?) {
        if let previous = pendingNames {
            pendingNames = { previous($0).flatMap(transform) }
        } else {
            pendingNames = transform
        }
    }

    /// The name `item`, as the target knows it, has in the controller now; `nil` once it was removed.
    func currentName(of item: Int) -> Int? {
        pendingNames.map { $0(item) } ?? item
    }

    /// No limit mostly; else a small one, none at all, or the largest.
    static func capacity(_ input: inout FuzzInput) -> Int? {
        switch input.byte() % 8 {
        case 0: Int(input.byte() % 16)
        case 1: Int.max
        default: nil
        }
    }

    /// Applies the update in the documented order (removed, moved, withdrawals, requests),
    /// trapping on a request no fetcher could take: a NaN order, an unknown level, an item the
    /// list never held, a store or preview request the target did not accept, or requests not
    /// most urgent first.
    func updatePrefetching(_ update: PrefetchUpdate<Int>) {
        pendingNames = nil
        for item in update.removed { requested[item] = nil }
        let moving = update.moved.map { ($0.to, requested.removeValue(forKey: $0.from)) }
        for (to, request) in moving { requested[to] = request }
        for item in update.withdrawals { requested[item] = nil }
        for request in update.requests {
            checkPriority(request.priority, "request for \(request.item)")
            if let exists { precondition(exists(request.item), "request for \(request.item), which the list never held") }
            precondition(request.destination == .memory || acceptsStoreDestination, "a store request to a target without a store")
            precondition(request.quality == .full, "a preview request to a target that takes none")
            requested[request.item] = request
        }
        for (a, b) in zip(update.requests, update.requests.dropFirst()) {
            precondition(!(a.priority < b.priority), "requests not most urgent first: \(a) before \(b)")
        }
    }

    /// Checks that what the controller keeps is what the list held.
    func trimMemory(keeping items: [Int]) {
        guard let exists else { return }
        for item in items { precondition(exists(item), "trimMemory keeps \(item), which the list never held") }
    }
}

/// A fetcher shut down before any request: a controller whose target is its target makes the
/// prefetcher refuse every frame (the shut-down problem), with no load ever started.
let shutDownFetcher: AsyncFetcher<Int, Int>? = {
    let fetcher = try? AsyncFetcher<Int, Int>(load: { $0 })
    fetcher?.shutdown()
    return fetcher
}()

/// Traps unless the target, when it is the controller's, holds nothing the controller does not
/// (by the names the controller gives them now), and, with `everything`, unless every request the
/// controller holds is valid (its priority; an item the list held). A request the controller
/// dropped without withdrawing it would load forever.
func checkHeld(_ name: String, _ controller: PrefetchController<Int>, target: RecordingTarget, exists: ((Int) -> Bool)?,
               everything: Bool) {
    if everything {
        for request in controller.requestedItems {
            checkPriority(request.priority, "\(name): held request for \(request.item)")
            if let exists { precondition(exists(request.item), "\(name): the controller holds \(request.item), which the list never held") }
        }
    }
    guard controller.target === target else { return }
    for known in target.requested.keys {
        guard let item = target.currentName(of: known) else { continue }   // removed, and told so at the next update
        guard let priority = controller.requestedPriority(of: item) else {
            preconditionFailure("\(name): the target holds \(item), which the controller dropped without withdrawing it")
        }
        checkPriority(priority, "\(name): requestedPriority(of: \(item))")
    }
}

/// A policy from the input: the public ones, with any numbers where they take some.
func makePolicy(_ input: inout FuzzInput) -> any PrefetchPolicy {
    switch input.byte() % 6 {
    case 0: PrefetchPolicies.none
    case 1: PrefetchPolicies.uikitLike
    case 2: PrefetchPolicies.textureLike
    case 3: (try? PrefetchPolicies.UIKitLike(lead: input.double())) ?? PrefetchPolicies.uikitLike
    case 4: (try? PrefetchPolicies.Adaptive(
        margin: input.double(), minimumLead: input.double(), maximumLead: input.double(), idleLead: input.double(),
        behind: input.double(), latencyMultiplier: input.double(), reversalPrior: input.double(),
        reversalBehind: input.double(), aggressiveness: input.double())) ?? PrefetchPolicies.adaptive
    default: PrefetchPolicies.adaptive
    }
}

/// A controller with a policy and a configuration from the input, planning for `target`.
func makeController(_ input: inout FuzzInput, target: RecordingTarget) -> PrefetchController<Int> {
    let policy = makePolicy(&input)
    let configuration = (try? PrefetchController<Int>.Configuration(
        fallbackLatency: input.latency() ?? .milliseconds(300), reprioritizationTolerance: input.latency() ?? .milliseconds(50),
        withdrawalGrace: input.double(), memoryPressureDuration: input.latency() ?? .milliseconds(500))) ?? .standard
    return PrefetchController<Int>(policy: policy, target: target, configuration: configuration)
}

// MARK: The script

/// A list, its layout, a fake scroll view showing it, a prefetcher attached to the view, a second
/// controller fed raw states, and the steps that drive them.
@MainActor
struct PrefetcherScript {
    /// The list.
    let model: DataModel
    /// The scroll view the prefetcher is attached to.
    let surface: FuzzSurface
    /// The prefetcher's clock.
    let clock: ScriptClock
    /// The prefetcher's scheduled checks.
    let scheduled: ScheduledActions
    /// What the prefetcher reported.
    let problems: ProblemLog
    /// The target the prefetcher's controller was made with (the script may switch it to another).
    var target: RecordingTarget
    /// The prefetcher's controller.
    var controller: PrefetchController<Int>
    /// The prefetcher under test.
    var prefetcher: ScrollViewPrefetcher<Int>
    /// The target of `shutDownFetcher`, when it could be made.
    let shutDownTarget: (any PrefetchTarget<Int>)?
    /// The second controller, fed raw states.
    let rawController: PrefetchController<Int>
    /// The second controller's target.
    let rawTarget: RecordingTarget
    /// The latest time the second controller was given.
    var stateTime = 0.0

    /// Reads the list (up to 4,096 rows, distinct ids or repeating ones), the clock's start, the
    /// layout, the first reading, the targets and the controllers, and attaches a prefetcher.
    init(_ input: inout FuzzInput) {
        let count = Int(UInt16(input.byte()) << 8 | UInt16(input.byte())) % 4_097
        var ids = Array(0..<count)
        if input.bool() {
            let modulus = max(1, Int(input.byte()))
            ids = ids.map { $0 % modulus }
        }
        let model = DataModel(ids: ids, section: input.byte() % 8 == 0 ? input.integer() : 0)
        let clock = ScriptClock(start: input.byte() % 4 == 0 ? input.double() : Double(input.byte()))
        let scheduled = ScheduledActions(clock: clock)
        let problems = ProblemLog()
        let layout = SurfaceLayout.make(&input, model: model)
        let reading = SurfaceReading(
            offset: input.bool() ? 0 : input.double(), viewportLength: input.bool() ? 800 : input.double(),
            contentLength: input.bool() ? layout.contentLength ?? input.double() : input.double(),
            leadingInset: input.bool() ? 0 : input.double(), trailingInset: input.bool() ? 0 : input.double(),
            decelerationRate: input.bool() ? 0.998 : input.double())
        let surface = FuzzSurface(reading: reading, layout: layout)
        surface.axis = input.byte() % 4 == 0 ? .horizontal : .vertical
        let target = RecordingTarget(&input, exists: { model.everHeld.contains($0) })
        let controller = makeController(&input, target: target)
        prefetcher = Self.attach(&input, surface: surface, model: model, controller: controller, clock: clock,
                                 scheduled: scheduled, problems: problems)
        shutDownTarget = shutDownFetcher?.prefetchTarget(identifier: { (item: Int) in item })
        rawTarget = RecordingTarget(&input, exists: nil)
        rawController = makeController(&input, target: rawTarget)
        self.model = model
        self.clock = clock
        self.scheduled = scheduled
        self.problems = problems
        self.surface = surface
        self.target = target
        self.controller = controller
    }

    /// A new prefetcher on `surface` over `controller` through the public initialiser, its time
    /// read from `clock` and its checks queued on `scheduled`; it records its problems in
    /// `problems` and checks the page positions it announces.
    static func attach(_ input: inout FuzzInput, surface: FuzzSurface, model: DataModel, controller: PrefetchController<Int>,
                       clock: ScriptClock, scheduled: ScheduledActions, problems: ProblemLog) -> ScrollViewPrefetcher<Int> {
        surface.prefetchingStopped = false
        let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: model.lookup, controller: controller, axis: surface.axis,
                                              clock: clock.clock, schedule: { delay, action in scheduled.add(delay, action) })
        precondition(surface.prefetchingStopped && surface.isObserved, "the prefetcher did not attach to the view")
        prefetcher.onProblem = { problems.record($0) }
        prefetcher.pageStatus = { page, pages in
            precondition(pages >= 1 && (1...pages).contains(page), "page \(page) of \(pages)")
            return "Page \(page) of \(pages)"
        }
        if input.bool() { prefetcher.pageOverlap = input.double() }
        return prefetcher
    }

    /// Whether the list ever held `item`.
    private var exists: (Int) -> Bool {
        { [model] in model.everHeld.contains($0) }
    }

    /// The view's observers as the script calls them: the registered ones, or now and then the
    /// last ones though unregistered (a callback on its way as the prefetcher detached).
    private func observers(_ input: inout FuzzInput) -> SurfaceEvents? {
        surface.observers(late: input.byte() % 16 == 0)
    }

    /// Runs up to 256 steps, checking after each what the controllers hold.
    mutating func run(_ input: inout FuzzInput) {
        var steps = 0
        while !input.isAtEnd, steps < 256 {
            steps += 1
            switch input.byte() % 20 {
            case 0, 1, 2, 3: move(&input)
            case 4: dragBegan(&input)
            case 5: lift(&input)
            case 6: programmaticScroll(&input)
            case 7: prefetcher.didEndScrollingAnimation()
            case 8: pageScroll(&input)
            case 9: dataEvent(&input)
            case 10: askPriorities(&input)
            case 11:
                clock.advance(by: input.advance())
                observers(&input)?.memoryWarning()
            case 12: detach()
            case 13: reattach(&input)
            case 14: changeData(&input)
            case 15: changeLayout(&input)
            case 16: runScheduled(&input)
            case 17: retarget(&input)
            case 18:
                surface.isOnScreen.toggle()
                clock.advance(by: input.advance())
            default: driveRawController(&input)
            }
            // Every step: what the targets hold; every 8th, all the controllers hold (sorting it is slow).
            checkHeld("prefetcher", controller, target: target, exists: exists, everything: steps % 8 == 0)
            checkHeld("raw", rawController, target: rawTarget, exists: nil, everything: steps % 8 == 0)
        }
    }

    /// Runs what is still scheduled, then detaches: nothing may stay requested.
    mutating func finish() {
        var runs = 0
        while runs < 64, scheduled.runNext() { runs += 1 }
        checkHeld("prefetcher", controller, target: target, exists: exists, everything: true)
        checkHeld("raw", rawController, target: rawTarget, exists: nil, everything: true)
        detach()
    }

    /// The view moved, or only its lengths, insets, flags or rate changed: a new reading, then the
    /// observers' callbacks as UIKit makes them (a change, the same step again from the bounds
    /// observer, a content-size change; rows inserted above, with the offset following or not).
    mutating func move(_ input: inout FuzzInput) {
        clock.advance(by: input.advance())
        var reading = surface.reading
        switch input.byte() % 8 {
        case 0: reading.offset = input.double()
        case 1: if let target = surface.animationTarget { reading.offset = target }
        case 2: break
        case 3:
            let growth = Double(Int8(bitPattern: input.byte())) * 20
            reading.contentLength += growth
            surface.reading = reading
            observers(&input)?.changed(true)
            if input.bool() { reading.offset += growth }
        default: reading.offset = input.offset(after: reading.offset)
        }
        if input.byte() % 4 == 0 {
            reading.viewportLength = input.bool() ? 800 : input.double()
            reading.contentLength = input.bool() ? surface.layout.contentLength ?? input.double() : input.double()
            if input.bool() {
                reading.leadingInset = input.double()
                reading.trailingInset = input.double()
            }
        }
        switch input.byte() % 8 {
        case 0: (reading.isDragging, reading.isDecelerating) = (true, false)
        case 1: (reading.isDragging, reading.isDecelerating) = (false, true)
        case 2: (reading.isDragging, reading.isDecelerating) = (false, false)
        case 3: (reading.isDragging, reading.isDecelerating) = (true, true)
        case 4: reading.decelerationRate = input.bool() ? 0.99 : input.double()
        default: break
        }
        surface.reading = reading
        let layoutChanged = input.byte() % 8 == 0
        observers(&input)?.changed(layoutChanged)
        if input.bool() { observers(&input)?.changed(false) }
    }

    /// The pan gesture began (UIKit shows the view dragging by then, or not yet).
    mutating func dragBegan(_ input: inout FuzzInput) {
        clock.advance(by: input.advance())
        if input.bool() {
            surface.reading.isDragging = true
            surface.reading.isDecelerating = false
        }
        observers(&input)?.dragBegan()
    }

    /// The finger lifted: `scrollViewWillEndDragging`'s velocity (points per millisecond) and
    /// target through the public method, the pan gesture's end (points per second) through its
    /// observer, or both (the observer then hears a lift already reported); the flags change
    /// before, or not yet.
    mutating func lift(_ input: inout FuzzInput) {
        clock.advance(by: input.advance())
        if input.bool() {
            surface.reading.isDragging = false
            surface.reading.isDecelerating = input.bool()
        }
        let mode = input.byte() % 3
        if mode != 1 {
            let velocity = input.bool() ? Double(Int8(bitPattern: input.byte())) / 20 : input.double()
            let target = input.bool() ? input.offset(after: surface.reading.offset) : input.double()
            prefetcher.willEndDragging(velocityPerMillisecond: velocity, target: target)
        }
        if mode != 0 {
            let along = input.bool() ? Double(Int8(bitPattern: input.byte())) * 40 : input.double()
            let across = input.bool() ? 0 : input.double()
            let finger = surface.axis == .vertical ? CGPoint(x: CGFloat(across), y: CGFloat(along))
                                                   : CGPoint(x: CGFloat(along), y: CGFloat(across))
            observers(&input)?.dragEnded(finger)
        }
    }

    /// An index path a cell might ask with: mostly a row of the list (now and then one past its
    /// end), sometimes of another section or of another shape.
    func indexPath(_ input: inout FuzzInput) -> IndexPath {
        let row = Int(UInt16(input.byte()) << 8 | UInt16(input.byte()))
        switch input.byte() % 8 {
        case 0: return IndexPath(indexes: [input.integer(), input.integer()])
        case 1: return IndexPath(indexes: [row])
        case 2: return IndexPath()
        default: return IndexPath(indexes: [model.section, row % (model.ids.count + 1)])
        }
    }

    /// The app announces a programmatic scroll, to an offset or an index path, animated or not;
    /// the view may then move there.
    mutating func programmaticScroll(_ input: inout FuzzInput) {
        let animated = input.bool()
        if input.bool() {
            let offset = input.bool() ? input.offset(after: surface.reading.offset) : input.double()
            prefetcher.willScroll(to: offset, animated: animated)
            surface.animationTarget = offset
        } else {
            let path = indexPath(&input)
            prefetcher.willScroll(to: path, animated: animated)
            if let extent = surface.layout.extent(at: path) { surface.animationTarget = extent.lowerBound - surface.reading.leadingInset }
        }
    }

    /// A page scroll (VoiceOver, Page Up / Page Down), with any overlap: it starts an animation,
    /// or says why not (the view is gone: a problem; at a border: the position announced again).
    mutating func pageScroll(_ input: inout FuzzInput) {
        if input.byte() % 4 == 0 { prefetcher.pageOverlap = input.double() }
        let (animations, announcements, problemCount) = (surface.animations, surface.announcements, problems.count)
        if prefetcher.scrollPage(input.bool() ? .forward : .backward) {
            precondition(surface.animations == animations + 1, "a page scroll reported as started, but no animation")
        } else {
            precondition(surface.animations == animations, "a page scroll started an animation but reported none")
            precondition(surface.announcements > announcements || problems.count > problemCount,
                         "a page scroll that did not start said nothing")
        }
    }

    /// The app tells the prefetcher of a data change, a reload, a carousel's scroll, or asks it to plan again.
    mutating func dataEvent(_ input: inout FuzzInput) {
        clock.advance(by: input.advance())
        switch input.byte() % 4 {
        case 0: prefetcher.dataChanged()
        case 1: reload()
        case 2: prefetcher.orthogonalSectionScrolled()
        default: prefetcher.refresh()
        }
    }

    /// The app reloads the data (every held item is removed at the controller's next update).
    func reload() {
        if controller.target === target { target.expectRenames { _ in nil } }
        prefetcher.dataReloaded()
    }

    /// A cell asks for its priority (a stale index path is answered `visible`); the controller
    /// is asked directly about an item of the list, with its extent, none, or any.
    mutating func askPriorities(_ input: inout FuzzInput) {
        let path = indexPath(&input)
        let answer = prefetcher.priority(at: path)
        checkPriority(answer, "priority(at: \(path))")
        if model.item(at: path) == nil { precondition(answer == .visible, "the stale index path \(path) answered \(answer)") }
        guard !model.ids.isEmpty else { return }
        let item = model.ids[Int(input.byte()) % model.ids.count]
        let extent: Range<Double>?
        switch input.byte() % 3 {
        case 0: extent = nil
        case 1: extent = SurfaceItems(layout: surface.layout, model: model).extent(of: item)
        default: extent = range(input.double(), input.double())
        }
        checkPriority(controller.priority(for: item, extent: extent), "priority(for: \(item), extent: \(String(describing: extent)))")
        if let requested = controller.requestedPriority(of: item) { checkPriority(requested, "requestedPriority(of: \(item))") }
    }

    /// The view goes away: every request is withdrawn, from the controller and from its target.
    func detach() {
        prefetcher.detach()
        precondition(controller.requestedItems.isEmpty, "a detached prefetcher's controller still holds requests")
        if controller.target === target {
            precondition(target.requested.isEmpty, "a detached prefetcher's target still holds \(target.requested.keys.sorted())")
        }
    }

    /// Another prefetcher attaches to the view (the old one detached first, or dropped as it is),
    /// over the same controller or a new one with a new target, along either axis.
    mutating func reattach(_ input: inout FuzzInput) {
        if input.bool() { detach() }
        if input.bool() {
            target = RecordingTarget(&input, exists: exists)
            controller = makeController(&input, target: target)
        }
        surface.axis = input.byte() % 4 == 0 ? .horizontal : .vertical
        prefetcher = Self.attach(&input, surface: surface, model: model, controller: controller, clock: clock,
                                 scheduled: scheduled, problems: problems)
    }

    /// The data changes under the view (shuffled, rows deleted or inserted, another section), then
    /// the prefetcher is told of a change or a reload, or the layout follows, or nothing happens yet.
    mutating func changeData(_ input: inout FuzzInput) {
        var ids = model.ids
        var section = model.section
        switch input.byte() % 5 {
        case 0:
            var generator = SeededGenerator(seed: input.uint64())
            ids.shuffle(using: &generator)
        case 1: ids.removeFirst(min(ids.count, Int(input.byte())))
        case 2: ids.removeLast(min(ids.count, Int(input.byte())))
        case 3:
            let next = (model.everHeld.max() ?? -1) + 1
            let inserted = Array(next..<(next + Int(input.byte())))
            ids.insert(contentsOf: inserted, at: Int(input.byte()) % (ids.count + 1))
            if ids.count > 4_096 { ids.removeLast(ids.count - 4_096) }
        default: section = input.integer()
        }
        model.replace(ids: ids, section: section)
        switch input.byte() % 4 {
        case 0: prefetcher.dataChanged()
        case 1: reload()
        case 2:
            if case .grid(let grid) = surface.layout {
                surface.layout = .grid(Grid(count: ids.count, section: section, rowLength: grid.rowLength, columns: grid.columns,
                                            spacing: grid.spacing, padding: grid.padding, cardWidth: grid.cardWidth))
            } else {
                surface.layout = SurfaceLayout.make(&input, model: model)
            }
            observers(&input)?.changed(true)
        default: break
        }
    }

    /// The layout changes (another one, a section that becomes a carousel showing part of its
    /// cells, or no carousel any more); the view reports it, or the app says the carousel scrolled.
    mutating func changeLayout(_ input: inout FuzzInput) {
        switch input.byte() % 3 {
        case 0: surface.layout = SurfaceLayout.make(&input, model: model)
        case 1:
            let section = input.bool() ? model.section : input.integer()
            let start = input.bool() ? Double(input.byte()) * 40 : input.double()
            surface.windows[section] = range(start, input.bool() ? start + 400 : input.double())
        default: surface.windows = [:]
        }
        if input.bool() {
            observers(&input)?.changed(true)
        } else if input.bool() {
            prefetcher.orthogonalSectionScrolled()
        }
    }

    /// The prefetcher's timers fire: the next one on time or a little early, or all that wait.
    mutating func runScheduled(_ input: inout FuzzInput) {
        switch input.byte() % 3 {
        case 0: _ = scheduled.runNext(early: true)
        case 1: _ = scheduled.runNext()
        default:
            var runs = 0
            while runs < 16, scheduled.runNext() { runs += 1 }
        }
    }

    /// The controller's target becomes the shut-down fetcher's (every frame is then refused),
    /// its own again, or none; or its policy, its network conditions, or the target's capacity,
    /// store and latency change.
    mutating func retarget(_ input: inout FuzzInput) {
        switch input.byte() % 6 {
        case 0: controller.target = shutDownTarget
        case 1: controller.target = target
        case 2: controller.target = nil
        case 3: controller.policy = makePolicy(&input)
        case 4:
            let budget = input.bool() ? nil : try? PrefetchDataBudget(
                bytesPerMinute: input.bool() ? input.integer() : Int(input.byte()) << 12,
                bytesPerLoad: input.bool() ? input.integer() : Int(input.byte()) << 8)
            controller.networkConditions = NetworkConditions(isConstrained: input.bool(), isExpensive: input.bool(), prefetchBudget: budget)
        default:
            target.prefetchCapacity = RecordingTarget.capacity(&input)
            target.acceptsStoreDestination = input.bool()
            target.expectedLatency = input.latency()
        }
    }

    /// A raw `ScrollState` in any phase, at any time (a controller takes one earlier than the
    /// last as the last's), to the second controller over the view's layout; then a layout or
    /// data change, renamed items, memory pressure, or a priority question.
    mutating func driveRawController(_ input: inout FuzzInput) {
        let time = input.after(stateTime)
        if time.isFinite, time > stateTime { stateTime = time }
        let lower = input.offset(after: surface.reading.offset)
        let upper = input.bool() ? lower + input.double() : input.double()
        let phase: MotionPhase
        switch input.byte() % 4 {
        case 0: phase = .idle
        case 1: phase = .dragging
        case 2: phase = .decelerating(restingOffset: input.double(), rate: input.bool() ? 0.998 : input.double())
        default: phase = .programmatic(targetOffset: input.double(), duration: input.latency() ?? .zero)
        }
        let state = ScrollState(time: time.isFinite && abs(time) < 9e18 ? .seconds(time) : input.latency() ?? .zero,
                                viewport: range(lower, upper),
                                contentLength: input.bool() ? surface.reading.contentLength : input.double(),
                                velocity: input.double(), phase: phase)
        let geometry = SurfaceItems(layout: surface.layout, model: model)
        rawController.update(state, geometry: geometry)
        switch input.byte() % 6 {
        case 0: rawController.invalidateLayout()
        case 1:
            let rename: (Int) -> Int? = { $0 % 3 == 0 ? nil : $0 + 1 }
            rawTarget.expectRenames(rename)
            rawController.moveItems(rename)
        case 2:
            let item = model.ids.isEmpty ? 0 : model.ids[Int(input.byte()) % model.ids.count]
            let extent = input.bool() ? geometry.extent(of: item) : range(input.double(), input.double())
            checkPriority(rawController.priority(for: item, extent: extent), "raw priority(for: \(item))")
        case 3:
            rawTarget.expectRenames { _ in nil }
            rawController.invalidateItems()
        case 4: rawController.handleMemoryPressure()
        default: break
        }
    }
}

/// SplitMix64 from a seed in the input, so a crash replays.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next number.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_B9E9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
