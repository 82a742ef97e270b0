/// The consumers of one id, with the priority each asked for.
///
/// Most ids have no consumer or one, so the first is stored inline and only a second one
/// allocates: a load with one consumer costs no allocation here. `FetchScheduler` hands the
/// list over in `FetchScheduler.FinishAction.deliver(consumers:next:)` without copying it.
/// Order is not meaningful (removal moves the last consumer into the gap).
@usableFromInline struct FetchConsumerList: RandomAccessCollection, Hashable, Sendable {
    @usableFromInline
    struct Member: Hashable, Sendable {
        @usableFromInline var consumer: FetchConsumerID
        @usableFromInline var priority: FetchPriority
        @inlinable init(_ consumer: FetchConsumerID, _ priority: FetchPriority) {
            self.consumer = consumer
            self.priority = priority
        }
    }

    /// The first member; `nil` only when the list is empty.
    @usableFromInline var head: Member?
    /// The other members.
    @usableFromInline var tail: [Member] = []
    /// The largest consumer number ever added, so that adding a newer consumer (the usual case,
    /// numbers increase) needs no search for a duplicate.
    @usableFromInline var newest: UInt64 = 0

    /// An empty list.
    init() {}

    /// The position of the first consumer.
    @inlinable var startIndex: Int { 0 }
    /// One past the position of the last consumer.
    @inlinable var endIndex: Int { head == nil ? 0 : tail.count + 1 }
    /// The consumer at `position`.
    @inlinable
    subscript(position: Int) -> FetchConsumerID {
        position == 0 ? head!.consumer : tail[position - 1].consumer
    }

    func priority(at position: Int) -> FetchPriority {
        position == 0 ? head!.priority : tail[position - 1].priority
    }

    /// The position of `consumer`, or `nil`.
    /// - Complexity: O(1) for a consumer newer than every member, O(k) otherwise.
    @inlinable
    func position(of consumer: FetchConsumerID) -> Int? {
        guard consumer.rawValue <= newest, let head else { return nil }
        if head.consumer == consumer { return 0 }
        return tail.firstIndex { $0.consumer == consumer }.map { $0 + 1 }
    }

    /// Adds `consumer` or changes its priority; returns the priority it replaced, if any.
    @inlinable
    mutating func set(_ consumer: FetchConsumerID, _ priority: FetchPriority) -> FetchPriority? {
        if let position = position(of: consumer) {
            if position == 0 {
                defer { head!.priority = priority }
                return head!.priority
            }
            defer { tail[position - 1].priority = priority }
            return tail[position - 1].priority
        }
        newest = Swift.max(newest, consumer.rawValue)
        if head == nil { head = Member(consumer, priority) } else { tail.append(Member(consumer, priority)) }
        return nil
    }

    /// Removes `consumer`; returns its priority, or `nil` when it was not a member.
    @inlinable
    mutating func remove(_ consumer: FetchConsumerID) -> FetchPriority? {
        guard let position = position(of: consumer) else { return nil }
        if position == 0 {
            let removed = head!.priority
            head = tail.popLast()
            return removed
        }
        let removed = tail[position - 1].priority
        tail.swapAt(position - 1, tail.count - 1)
        tail.removeLast()
        return removed
    }

    /// The highest priority among the members, or `nil` when empty.
    @inlinable
    var highestPriority: FetchPriority? {
        guard var best = head?.priority else { return nil }
        for member in tail where member.priority > best { best = member.priority }
        return best
    }
}
