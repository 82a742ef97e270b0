/// When and how soon a failed load is tried again.
///
/// Only errors that ``shouldRetry`` accepts are retried; by default those are errors conforming
/// to ``RetryableError`` whose ``RetryableError/isRetryable`` is `true`. The wait before attempt
/// *n + 1* is `initialDelay × multiplier^(n−1)`, capped at `maxDelay`, less a random share of up to
/// `jitter` of it (so clients that failed together do not retry together). Waits use the
/// fetcher's injected clock; a retrying load keeps its slot.
public struct RetryPolicy: Sendable {
    /// The most attempts per load, the first included; 1 means no retries.
    public var maxAttempts: Int
    /// The wait before the second attempt.
    public var initialDelay: Duration
    /// The factor by which each wait grows; at least 1.
    public var multiplier: Double
    /// The longest wait.
    public var maxDelay: Duration
    /// The largest share of a wait taken off at random, from 0 (none) to 1.
    public var jitter: Double
    /// Decides whether an error may be retried.
    public var shouldRetry: @Sendable (any Error) -> Bool

    /// Creates a retry policy.
    public init(
        maxAttempts: Int,
        initialDelay: Duration = .milliseconds(200),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(5),
        jitter: Double = 0.2,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = RetryPolicy.isMarkedRetryable
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.shouldRetry = shouldRetry
    }

    /// Never retry.
    public static let none = RetryPolicy(maxAttempts: 1)
    /// Up to 3 attempts, waiting about 0.2 s then 0.4 s.
    public static let standard = RetryPolicy(maxAttempts: 3)

    /// The default test: the error conforms to ``RetryableError`` and says it is retryable.
    /// `@usableFromInline` because it is the default argument of the public `init`, which is
    /// compiled into the caller.
    @usableFromInline static func isMarkedRetryable(_ error: any Error) -> Bool {
        (error as? any RetryableError)?.isRetryable ?? false
    }

    /// The wait after failed attempt `attempt` (1-based), given a random number in `0..<1` (the
    /// fetcher draws one per wait).
    public func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = Double(max(attempt - 1, 0))
        let base = min(seconds(initialDelay) * pow(multiplier, exponent), seconds(maxDelay))
        let jittered = base * (1 - jitter * min(max(random, 0), 1))
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }

    /// Throws when a value is out of range, naming it and the rule.
    public func validate() throws {
        func fail(_ message: String) -> PrefetchError { PrefetchError(.invalidConfiguration, "RetryPolicy \(message)") }
        guard maxAttempts >= 1 else { throw fail("maxAttempts must be at least 1, got \(maxAttempts)") }
        guard initialDelay >= .zero else { throw fail("initialDelay must not be negative, got \(initialDelay)") }
        guard maxDelay >= initialDelay else { throw fail("maxDelay (\(maxDelay)) must be at least initialDelay (\(initialDelay))") }
        guard multiplier.isFinite, multiplier >= 1 else { throw fail("multiplier must be a finite number of at least 1, got \(multiplier)") }
        guard jitter.isFinite, (0...1).contains(jitter) else { throw fail("jitter must be between 0 and 1, got \(jitter)") }
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= base }
        return result
    }
}
