/// An error from PrefetchKit: what went wrong, in words that name the value and the rule it broke.
///
/// Match on ``code`` to handle a kind of error; show ``message`` to a person.
///
/// ```swift
/// do { _ = try FetcherConfiguration(maxConcurrentLoads: 0) }
/// catch let error as PrefetchError where error.code == .invalidConfiguration { print(error) }
/// ```
public struct PrefetchError: Error, Sendable, CustomStringConvertible {
    /// The kind of error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case invalidConfiguration, invalidArgument, shutdown, invalidCost
        }
        fileprivate let value: Value

        /// A configuration value is out of its allowed range.
        public static let invalidConfiguration = Code(value: .invalidConfiguration)
        /// An argument to a call broke a rule of that call.
        public static let invalidArgument = Code(value: .invalidArgument)
        /// The object was shut down and takes no more requests.
        public static let shutdown = Code(value: .shutdown)
        /// A cost function returned a negative or non-finite cost.
        public static let invalidCost = Code(value: .invalidCost)

        /// The code's name.
        public var description: String { "\(value)" }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence for people: the value and the rule it broke.
    public let message: String
    /// The underlying error, if another error caused this one.
    public let cause: (any Error)?

    /// Creates an error: its kind, and a message that names the value and the rule it broke (a
    /// custom loader, target or scroll surface reports its problems in the same terms).
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
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
