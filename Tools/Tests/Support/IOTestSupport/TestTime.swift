import Foundation

/// One factor for every real-time limit in the real-I/O suites, so the same tests run under
/// ThreadSanitizer (5–15× slower) without skipping: `PREFETCH_TEST_TIME_SCALE=4 swift test --package-path Tools …`.
///
/// Only waits and time limits scale; what a test asserts never depends on how fast it ran.
public enum TestTime {
    /// `PREFETCH_TEST_TIME_SCALE` (a number from 1 to 100), or 1 when it is unset or not a number in that range.
    public static let scale: Double = {
        guard let raw = ProcessInfo.processInfo.environment["PREFETCH_TEST_TIME_SCALE"],
              let value = Double(raw), value.isFinite, (1...100).contains(value) else { return 1 }
        return value
    }()

    /// `duration` times ``scale``.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// `minutes` times ``scale``, rounded up: for `.timeLimit(.minutes(TestTime.minutes(1)))`.
    public static func minutes(_ minutes: Int) -> Int {
        Int((Double(minutes) * scale).rounded(.up))
    }
}
