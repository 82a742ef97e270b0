/// Identifies one load (one attempt to obtain an id's value); a later load of the same id has a new one.
///
/// Also spelled `FetchScheduler<ID>.LoadID`.
public struct FetchLoadID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The load's number, increasing in start order.
    public let rawValue: UInt64
    /// Creates a load identifier.
    @inlinable
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders loads by start.
    @inlinable
    public static func < (lhs: FetchLoadID, rhs: FetchLoadID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `L` and the number.
    public var description: String { "L\(rawValue)" }
}

/// Identifies one consumer: a completion handler or an awaiting task.
///
/// Also spelled `FetchScheduler<ID>.ConsumerID`.
public struct FetchConsumerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The consumer's number, chosen by the caller; unique among live consumers.
    public let rawValue: UInt64
    /// Creates a consumer identifier.
    @inlinable
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders consumers by number.
    @inlinable
    public static func < (lhs: FetchConsumerID, rhs: FetchConsumerID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `C` and the number.
    public var description: String { "C\(rawValue)" }
}

/// Something that wants an id's value.
///
/// Also spelled `FetchScheduler<ID>.Interest`.
public enum FetchInterest: Hashable, Sendable {
    /// The prefetch interest: at most one per id, set and withdrawn by prefetch calls.
    case prefetch
    /// One consumer; withdrawn only by that consumer.
    case consumer(FetchConsumerID)
}
