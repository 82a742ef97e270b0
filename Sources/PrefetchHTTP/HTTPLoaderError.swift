import Foundation
import PrefetchKit

/// An error from an ``HTTPLoader``: what went wrong, naming the URL (or value) and the rule.
///
/// Match on ``code``; show ``message`` to a person. ``isRetryable`` tells an `AsyncFetcher`'s
/// `RetryPolicy` whether to try again: server errors (5xx), timeouts and dropped or refused
/// connections are retryable; client errors (4xx), bad URLs and oversized bodies are not.
///
/// ```swift
/// do { _ = try await loader.data(from: url) }
/// catch let error as HTTPLoaderError where error.code == .clientError && error.statusCode == 404 { /* show the placeholder */ }
/// ```
public struct HTTPLoaderError: RetryableError, Sendable, CustomStringConvertible {
    /// The kind of HTTP loader error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case invalidConfiguration, invalidURL, unsupportedScheme, clientError, serverError
            case connectTimeout, totalTimeout, connectionFailed, responseTooLarge, invalidResponse, invalidated
            case insecureRedirect
        }
        fileprivate let value: Value

        /// A configuration value is out of its range.
        public static let invalidConfiguration = Code(value: .invalidConfiguration)
        /// The URL is malformed or has no host. Not retryable.
        public static let invalidURL = Code(value: .invalidURL)
        /// The URL's scheme is not `http` or `https` (also for a redirect). Not retryable.
        public static let unsupportedScheme = Code(value: .unsupportedScheme)
        /// The server answered 4xx (or another non-2xx, non-5xx status), or, on Apple platforms, the
        /// system refused a prefetch on a constrained network (Low Data Mode; no status). Not retryable.
        public static let clientError = Code(value: .clientError)
        /// The server answered 5xx. Retryable.
        public static let serverError = Code(value: .serverError)
        /// No response head arrived within the connect timeout. Retryable.
        public static let connectTimeout = Code(value: .connectTimeout)
        /// The whole exchange took longer than the total timeout. Retryable.
        public static let totalTimeout = Code(value: .totalTimeout)
        /// The connection was refused, reset or lost. Retryable.
        public static let connectionFailed = Code(value: .connectionFailed)
        /// The body was larger than the maximum response size; the download was aborted. Not retryable.
        public static let responseTooLarge = Code(value: .responseTooLarge)
        /// The response was not an HTTP response the loader understands. Retryable.
        public static let invalidResponse = Code(value: .invalidResponse)

        /// The loader was invalidated and takes no more requests. Not retryable.
        public static let invalidated = Code(value: .invalidated)
        /// An `https` request was redirected to plain `http`; the redirect was refused. Not retryable.
        public static let insecureRedirect = Code(value: .insecureRedirect)

        /// The code's name.
        public var description: String { "\(value)" }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence for people: the value (usually the URL) and the rule it broke.
    public let message: String
    /// The underlying error (for example a `URLError`), if another error caused this one.
    public let cause: (any Error)?
    /// The URL of the request, when there is one.
    public let url: URL?
    /// The HTTP status, for ``Code/clientError`` and ``Code/serverError``.
    public let statusCode: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, url: URL? = nil, statusCode: Int? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.statusCode = statusCode
        self.cause = cause
    }

    /// Whether another attempt may succeed: true for 5xx, timeouts, connection failures and invalid responses.
    public var isRetryable: Bool {
        switch code.value {
        case .serverError, .connectTimeout, .totalTimeout, .connectionFailed, .invalidResponse: true
        case .invalidConfiguration, .invalidURL, .unsupportedScheme, .clientError, .responseTooLarge, .invalidated,
             .insecureRedirect: false
        }
    }

    /// The message, with the cause when there is one.
    public var description: String {
        if let cause { return "\(message) (caused by: \(cause))" }
        return message
    }
}
