import Foundation
import PrefetchKit
import PrefetchToolSupport

/// Reads a pipe on its own thread as the bytes come, so a test can wait for a line with a
/// deadline instead of blocking on a child that may never write it.
public final class OutputReader: Sendable {
    private let buffer = Locked(Data())
    private let closed = Locked(false)

    /// Starts reading `handle` until the end of the file.
    public init(_ handle: FileHandle) {
        let buffer = buffer, closed = closed
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.withLock { $0.append(chunk) }
            }
            closed.withLock { $0 = true }
        }
    }

    /// Whether the pipe has reached its end (the writer closed it or exited).
    public var isClosed: Bool { closed.withLock { $0 } }

    /// Everything read so far, as UTF-8.
    public var text: String { String(decoding: buffer.withLock { $0 }, as: UTF8.self) }

    /// The complete lines read so far.
    public var lines: [String] {
        let text = text
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        return complete.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Waits (checking every 20 ms) until `done` holds for the lines read, or the pipe closes, or
    /// `timeout` passes; returns the lines read by then.
    public func waitForLines(timeout: Duration, until done: @Sendable ([String]) -> Bool) async -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let lines = lines
            if done(lines) || isClosed || clock.now >= deadline { return self.lines }
            do { try await clock.sleep(for: .milliseconds(20)) } catch { return self.lines }
        }
    }
}
