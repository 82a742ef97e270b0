import Testing
@testable import PrefetchKit

/// An independent model of the documented scheduling rules, the oracle of the property tests.
///
/// It shares no code with `FetchScheduler`: plain dictionaries, and the queue is the waiting ids
/// sorted afresh by the rule as the documentation states it, with its own comparison of levels
/// and orders (never `FetchPriority`'s `<`, so an error there fools only one side):
/// - a load's priority is the most urgent of its interests' priorities;
/// - more urgent means a higher level, then, within a level, a lower order;
/// - equal priorities start in request order (when the id was first requested since it last
///   had no load);
/// - at most `cap` loads run, and no slot is idle while a load waits;
/// - with pre-emption (margins given), after every event: while the most urgent waiting id
///   outranks by the margins (a level higher by at least `levelMargin`, or the same level and an
///   order lower by more than `orderMargin`) the least urgent running load that no consumer
///   holds and that was not stopped before since its id was last dropped (the latest started
///   among equals), that load stops, its id waits again, and the waiting id starts.
/// Loads are numbered 1, 2, 3… in start order, as the documentation of `FetchLoadID` says.
struct SchedulingModel {
    struct Item {
        var prefetch: FetchPriority?
        var consumers: [FetchConsumerID: FetchPriority] = [:]
        var sequence: Int
        var load: FetchLoadID?
        var preempted = false

        var hasInterest: Bool { prefetch != nil || !consumers.isEmpty }
    }

    enum Removal: Equatable {
        /// The interest was not held.
        case notHeld
        /// Other interests still hold the id.
        case stillHeld
        /// The last interest left a waiting id: dropped.
        case dropped
        /// The last interest left a running id: cancelled.
        case cancelled(FetchLoadID)
    }

    let cap: Int
    /// The pre-emption margins, or `nil` without pre-emption.
    let margins: (level: Int, order: Double)?
    private(set) var items: [Int: Item] = [:]
    private var nextSequence = 0
    private var nextLoad: UInt64 = 0

    init(cap: Int, margins: (level: Int, order: Double)? = nil) {
        self.cap = cap
        self.margins = margins
    }

    /// The model of a fetcher configured with `preemption`.
    init(cap: Int, preemption: FetchPreemption) {
        self.init(cap: cap, margins: preemption.isEnabled ? (preemption.levelMargin, preemption.orderMargin) : nil)
    }

    /// Whether `waiting` outranks `running` by the margins, written from the documentation.
    func outranksByMargins(_ waiting: FetchPriority, _ running: FetchPriority) -> Bool {
        guard let margins else { return false }
        let gap = waiting.level.rawValue - running.level.rawValue
        if gap != 0 { return gap >= margins.level }
        return running.order - waiting.order > margins.order
    }

    /// What the rule does after an event: the loads started (free slots first, in queue order)
    /// and the loads pre-empted, each numbered as the scheduler must number them.
    mutating func settle() -> (started: [(id: Int, load: FetchLoadID)], preempted: [(id: Int, load: FetchLoadID)]) {
        var started: [(id: Int, load: FetchLoadID)] = []
        var preempted: [(id: Int, load: FetchLoadID)] = []
        for id in idsToStart() { started.append((id, start(id))) }
        while let top = queue.first {
            let candidates = items.filter { $0.value.load != nil && $0.value.consumers.isEmpty && !$0.value.preempted }
            let victim = candidates.min { a, b in
                let pa = Self.effectivePriority(of: a.value)!, pb = Self.effectivePriority(of: b.value)!
                if Self.isMoreUrgent(pb, than: pa) { return true }
                if Self.isMoreUrgent(pa, than: pb) { return false }
                return a.value.load!.rawValue > b.value.load!.rawValue
            }
            guard let victim, outranksByMargins(priority(of: top)!, priority(of: victim.key)!) else { break }
            preempted.append((victim.key, victim.value.load!))
            items[victim.key]!.load = nil
            items[victim.key]!.preempted = true
            started.append((top, start(top)))
        }
        return (started, preempted)
    }

    private mutating func start(_ id: Int) -> FetchLoadID {
        nextLoad += 1
        let load = FetchLoadID(rawValue: nextLoad)
        items[id]!.load = load
        return load
    }

    /// The documented order of urgency, written out: a higher level, then a lower order.
    static func isMoreUrgent(_ a: FetchPriority, than b: FetchPriority) -> Bool {
        if a.level.rawValue != b.level.rawValue { return a.level.rawValue > b.level.rawValue }
        return a.order < b.order
    }

    /// The most urgent priority among an item's interests.
    static func effectivePriority(of item: Item) -> FetchPriority? {
        var best = item.prefetch
        for priority in item.consumers.values where best.map({ isMoreUrgent(priority, than: $0) }) ?? true {
            best = priority
        }
        return best
    }

    func priority(of id: Int) -> FetchPriority? { items[id].flatMap(Self.effectivePriority) }
    func isHeld(_ id: Int) -> Bool { items[id] != nil }
    func isPrefetched(_ id: Int) -> Bool { items[id]?.prefetch != nil }
    func consumers(of id: Int) -> Set<FetchConsumerID> { items[id].map { Set($0.consumers.keys) } ?? [] }
    func load(of id: Int) -> FetchLoadID? { items[id]?.load }
    var runningCount: Int { items.values.filter { $0.load != nil }.count }
    var waitingCount: Int { items.values.filter { $0.load == nil }.count }
    var runningIDs: [Int] { items.compactMap { $0.value.load == nil ? nil : $0.key } }

    /// The waiting ids, most urgent first: a plain list sorted by the rule.
    var queue: [Int] {
        items.filter { $0.value.load == nil }.sorted { a, b in
            let pa = Self.effectivePriority(of: a.value)!, pb = Self.effectivePriority(of: b.value)!
            if Self.isMoreUrgent(pa, than: pb) { return true }
            if Self.isMoreUrgent(pb, than: pa) { return false }
            return a.value.sequence < b.value.sequence
        }.map(\.key)
    }

    /// Adds or re-prioritises an interest; returns whether the id already had a load (joined).
    @discardableResult
    mutating func add(_ id: Int, _ interest: FetchInterest, _ priority: FetchPriority) -> Bool {
        let joined = items[id] != nil
        if !joined {
            items[id] = Item(sequence: nextSequence)
            nextSequence += 1
        }
        switch interest {
        case .prefetch: items[id]!.prefetch = priority
        case .consumer(let c): items[id]!.consumers[c] = priority
        }
        return joined
    }

    /// Whether `interest` in `id` is held.
    func holds(_ id: Int, _ interest: FetchInterest) -> Bool {
        guard let item = items[id] else { return false }
        switch interest {
        case .prefetch: return item.prefetch != nil
        case .consumer(let c): return item.consumers[c] != nil
        }
    }

    mutating func remove(_ id: Int, _ interest: FetchInterest) -> Removal {
        guard holds(id, interest) else { return .notHeld }
        switch interest {
        case .prefetch: items[id]!.prefetch = nil
        case .consumer(let c): items[id]!.consumers[c] = nil
        }
        guard !items[id]!.hasInterest else { return .stillHeld }
        let load = items.removeValue(forKey: id)!.load
        return load.map { .cancelled($0) } ?? .dropped
    }

    /// The ids that must start now, in order, to fill the free slots.
    func idsToStart() -> [Int] {
        Array(queue.prefix(Swift.max(0, cap - runningCount)))
    }


    /// A running id finished: it is gone; returns the consumers that hear.
    mutating func finish(_ id: Int) -> Set<FetchConsumerID> {
        Set(items.removeValue(forKey: id)!.consumers.keys)
    }

    mutating func removeAll() -> (running: [Int], consumers: Set<FetchConsumerID>) {
        defer { items.removeAll() }
        return (runningIDs, Set(items.values.flatMap(\.consumers.keys)))
    }

    /// Every held interest, for picking one at random (in a stable order, so a seed repeats).
    var heldInterests: [(id: Int, interest: FetchInterest)] {
        items.keys.sorted().flatMap { id -> [(id: Int, interest: FetchInterest)] in
            let item = items[id]!
            let consumers = item.consumers.keys.sorted().map { (id: id, interest: FetchInterest.consumer($0)) }
            return (item.prefetch == nil ? [] : [(id: id, interest: .prefetch)]) + consumers
        }
    }
}

extension SchedulingModel {
    /// The differences between `scheduler`'s observable state and the model's, for ids
    /// `0..<idCount` (compared plainly, so a step costs no more than it must).
    func differences(from scheduler: FetchScheduler<Int>, idCount: Int) -> [String] {
        var problems: [String] = []
        if scheduler.runningCount != runningCount || scheduler.waitingCount != waitingCount {
            problems.append("running/waiting \(scheduler.runningCount)/\(scheduler.waitingCount), model \(runningCount)/\(waitingCount)")
        }
        if waitingCount > 0 && runningCount < cap { problems.append("a slot is idle while \(waitingCount) ids wait") }
        for id in 0..<idCount {
            guard isHeld(id) else {
                if scheduler.contains(id) { problems.append("\(id) is held, the model has no interest in it") }
                continue
            }
            let phase: FetchScheduler<Int>.Phase = load(of: id).map { .running($0) } ?? .waiting
            if scheduler.priority(of: id) != priority(of: id) { problems.append("priority of \(id): \(String(describing: scheduler.priority(of: id))), model \(String(describing: priority(of: id)))") }
            if scheduler.isPrefetched(id) != isPrefetched(id) { problems.append("prefetch interest of \(id)") }
            if Set(scheduler.consumers(of: id)) != consumers(of: id) { problems.append("consumers of \(id)") }
            if scheduler.phase(of: id) != phase { problems.append("phase of \(id): \(String(describing: scheduler.phase(of: id))), model \(phase)") }
        }
        return problems
    }
}
