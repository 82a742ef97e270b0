import Dispatch
import Foundation
import PrefetchKit
import PrefetchToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal of the interactive screen: raw input, the alternate screen, and putting
/// everything back on exit and on Ctrl-C.
///
/// The saved `termios` lives in a ``PrefetchKit/Locked`` so the signal path and the normal exit
/// path can both restore it, exactly once.
package final class Terminal: Sendable {
    private struct State: Sendable {
        var original: termios?
        var isActive = false
    }

    private let state = Locked(State())
    private let interrupted = Locked(false)
    private let signalsInstalled = Locked(false)

    package init() {}

    /// Whether standard input and standard output are both terminals.
    package static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// The terminal's size, or 80×24 when it cannot be read.
    package var size: (columns: Int, rows: Int) {
        var window = winsize()
        let result = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard result == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Whether SIGINT, SIGTERM or SIGHUP arrived (or Ctrl-C was typed) since ``enter()``.
    package var wasInterrupted: Bool { interrupted.withLock { $0 } }

    /// Switches to raw, non-blocking input and the alternate screen, and hides the cursor.
    ///
    /// Signals stay enabled: Ctrl-C raises SIGINT, which a handler turns into a flag the frame
    /// loop sees, so the loop leaves through its normal path and restores the terminal.
    package func enter() {
        let original: termios? = {
            var t = termios()
            return tcgetattr(STDIN_FILENO, &t) == 0 ? t : nil
        }()
        state.withLock {
            $0.original = original
            $0.isActive = true
        }
        if var raw = original {
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
            raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved terminal mode. Safe to call twice.
    package func restore() {
        let original = state.withLock { s -> termios?? in
            guard s.isActive else { return nil }
            s.isActive = false
            return .some(s.original)
        }
        guard let original else { return }
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        if var saved = original { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }

    /// Installs handlers that turn SIGINT, SIGTERM and SIGHUP into ``wasInterrupted``.
    ///
    /// Returns the dispatch sources; keep them alive for as long as the handlers should run.
    /// Installs once per terminal: a later call returns no sources and leaves the first ones
    /// working (a second `signal(_, SIG_IGN)` would silence the first sources' handler).
    package func installSignalHandlers() -> [any DispatchSourceSignal] {
        let first = signalsInstalled.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        guard first else { return [] }
        // A queue of their own: on Linux the global queue's few threads are shared with Swift
        // concurrency's jobs, and a Ctrl-C must not wait for a busy pool (a queue made here may
        // take a thread of its own when the pool has none free).
        let queue = DispatchQueue(label: "prefetch-demo.signals")
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [interrupted] in interrupted.withLock { $0 = true } }
            source.resume()
            return source
        }
    }

    /// Reads the bytes typed since the last call, without waiting.
    package func readAvailable() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            if count < buffer.count { break }
        }
        return bytes
    }

    /// Writes `text` to standard output at once.
    package func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }
}

/// A key of the interactive screen.
package enum Key: Equatable, Sendable {
    case up, down, pageUp, pageDown, top, bottom, faster, slower, togglePrefetch, quit
    /// `c`: the next policy, none → uikitLike → textureLike → adaptive → none.
    case cyclePolicy
    /// `m`: a memory warning, as the system sends an app.
    case memoryWarning
    /// `a`: the app scrolls with animation to an item half the list away (`scrollToItem(at:at:animated: true)`),
    /// telling its prefetcher first.
    case animatedScroll
    /// `n`: new items arrive above the first, as a feed's new posts do; the rows on screen stay put.
    case newAbove

    /// The keys in `bytes`, in order; unknown bytes and sequences are skipped.
    package static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
                let code = bytes[i + 2]
                switch code {
                case UInt8(ascii: "A"): keys.append(.up); i += 3; continue
                case UInt8(ascii: "B"): keys.append(.down); i += 3; continue
                case UInt8(ascii: "H"): keys.append(.top); i += 3; continue
                case UInt8(ascii: "F"): keys.append(.bottom); i += 3; continue
                case UInt8(ascii: "5"), UInt8(ascii: "6"):
                    if i + 3 < bytes.count, bytes[i + 3] == UInt8(ascii: "~") {
                        keys.append(code == UInt8(ascii: "5") ? .pageUp : .pageDown)
                        i += 4
                        continue
                    }
                default: break
                }
                i += 3
                continue
            }
            switch b {
            case UInt8(ascii: "k"): keys.append(.up)
            case UInt8(ascii: "j"): keys.append(.down)
            case UInt8(ascii: " "): keys.append(.pageDown)
            case UInt8(ascii: "b"): keys.append(.pageUp)
            case UInt8(ascii: "g"): keys.append(.top)
            case UInt8(ascii: "G"): keys.append(.bottom)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.slower)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): keys.append(.faster)
            case UInt8(ascii: "p"), UInt8(ascii: "P"): keys.append(.togglePrefetch)
            case UInt8(ascii: "c"), UInt8(ascii: "C"): keys.append(.cyclePolicy)
            case UInt8(ascii: "m"), UInt8(ascii: "M"): keys.append(.memoryWarning)
            case UInt8(ascii: "a"), UInt8(ascii: "A"): keys.append(.animatedScroll)
            case UInt8(ascii: "n"), UInt8(ascii: "N"): keys.append(.newAbove)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03: keys.append(.quit)
            default: break
            }
            i += 1
        }
        return keys
    }
}
