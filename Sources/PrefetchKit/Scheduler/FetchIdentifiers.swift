/// Identifies one load (one attempt to obtain an id's value); a later load of the same id has a new one.
///
/// Also spelled `FetchScheduler<ID>.LoadID`.
@usableFromInline struct FetchLoadID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The load's number, increasing in start order.
    @usableFromInline let rawValue: UInt64
    /// Creates a load identifier.
    @inlinable
    init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders loads by start.
    @inlinable
    static func < (lhs: FetchLoadID, rhs: FetchLoadID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `L` and the number.
    @usableFromInline var description: String { "L\(rawValue)" }
}

/// Identifies one consumer: a completion handler or an awaiting task.
///
/// Also spelled `FetchScheduler<ID>.ConsumerID`.
@usableFromInline struct FetchConsumerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The consumer's number, chosen by the caller; unique among live consumers.
    @usableFromInline let rawValue: UInt64
    /// Creates a consumer identifier.
    @inlinable
    init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders consumers by number.
    @inlinable
    static func < (lhs: FetchConsumerID, rhs: FetchConsumerID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `C` and the number.
    @usableFromInline var description: String { "C\(rawValue)" }
}

/// Something that wants an id's value.
///
/// Also spelled `FetchScheduler<ID>.Interest`.
@usableFromInline enum FetchInterest: Hashable, Sendable {
    /// The prefetch interest: at most one per id, set and withdrawn by prefetch calls.
    case prefetch
    /// One consumer; withdrawn only by that consumer.
    case consumer(FetchConsumerID)
}
