import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks on another process by its id, for tests that make sure no child is left behind.
public enum ProcessID {
    /// Whether `pid` is a running process: it exists and, on Linux, is not a zombie waiting for
    /// a parent that will never reap it.
    public static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
        #else
        return true
        #endif
    }

    /// Waits until `pid` is gone, checking every 20 ms for at most `timeout`; whether it went.
    public static func waitUntilGone(_ pid: Int32, timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while isAlive(pid) {
            guard clock.now < deadline else { return false }
            do { try await clock.sleep(for: .milliseconds(20)) } catch { return !isAlive(pid) }
        }
        return true
    }
}
