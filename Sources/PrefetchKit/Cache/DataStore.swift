/// A second-level store (usually on disk) that an ``AsyncFetcher`` consults before its loader
/// and fills after a successful load.
///
/// A store is asked inside a load's slot: a hit skips the loader. Store errors are not fatal to a
/// load: a failed read falls through to the loader, a failed write is reported as an event.
public protocol DataStore<Key, Value>: Sendable {
    /// The key type.
    associatedtype Key: Hashable & Sendable
    /// The stored value type.
    associatedtype Value: Sendable

    /// Returns the stored value for `key`, or `nil` when there is none (or it expired).
    func value(for key: Key) async throws -> Value?
    /// Stores `value` for `key`, replacing any earlier value.
    func store(_ value: Value, for key: Key) async throws
    /// Removes the value for `key`, if any.
    func removeValue(for key: Key) async throws
    /// Removes every value.
    func removeAll() async throws
}

/// A ``DataStore`` that keeps values in memory, for tests and previews.
public actor InMemoryDataStore<Key: Hashable & Sendable, Value: Sendable>: DataStore {
    private var values: [Key: Value] = [:]
    /// How many writes the store has taken.
    package private(set) var writes = 0

    /// Creates a store, optionally with initial contents.
    public init(_ initial: [Key: Value] = [:]) {
        values = initial
    }

    /// Returns the value for `key`, if stored.
    public func value(for key: Key) async throws -> Value? {
        values[key]
    }

    /// Stores `value` for `key`.
    public func store(_ value: Value, for key: Key) async throws {
        writes += 1
        values[key] = value
    }

    /// Removes the value for `key`.
    public func removeValue(for key: Key) async throws {
        values[key] = nil
    }

    /// Removes every value.
    public func removeAll() async throws {
        values.removeAll()
    }
}
