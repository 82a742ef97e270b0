/// An error from a ``DiskCache``: what went wrong, naming the value and the rule it broke.
///
/// Match on ``code``; show ``message`` to a person; ``cause`` holds the underlying
/// (usually GRDB `DatabaseError`) error, if any.
public struct DiskCacheError: Error, Sendable, CustomStringConvertible {
    /// The kind of disk-cache error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case invalidConfiguration, entryTooLarge, openFailed, database, closed
        }
        fileprivate let value: Value

        /// A configuration value is out of its range.
        public static let invalidConfiguration = Code(value: .invalidConfiguration)
        /// A value is larger than the whole cache may hold, so it was not stored.
        public static let entryTooLarge = Code(value: .entryTooLarge)
        /// The database could not be opened or created. The file is left as it is, unless it was
        /// corrupt and moving it aside did not help either.
        public static let openFailed = Code(value: .openFailed)
        /// A read or write failed in SQLite.
        public static let database = Code(value: .database)
        /// The cache was closed.
        public static let closed = Code(value: .closed)

        /// The code's name.
        public var description: String { "\(value)" }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence for people: the value and the rule it broke.
    public let message: String
    /// The underlying error, if another error caused this one.
    public let cause: (any Error)?

    /// Creates an error.
    package init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message, with the cause when there is one.
    public var description: String {
        if let cause { return "\(message) (caused by: \(cause))" }
        return message
    }
}
