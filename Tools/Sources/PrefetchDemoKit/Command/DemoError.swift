/// A failure of a run that is not a bad flag: the server could not start, the source did not
/// answer, the disk cache could not be opened. The message names the value and what went wrong.
public struct DemoError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a person.
    public let message: String
    /// The underlying error, if another error caused this one.
    public let cause: (any Error)?

    /// Creates an error.
    public init(_ message: String, cause: (any Error)? = nil) {
        self.message = message
        self.cause = cause
    }

    /// The message, with the cause when there is one.
    public var description: String {
        if let cause { return "\(message): \(cause)" }
        return message
    }
}
