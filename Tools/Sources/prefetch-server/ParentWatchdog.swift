import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends the server when the process that started it is gone, however it went (SIGKILL, a crash),
/// so a `prefetch-demo --serve` never leaves an orphan server behind.
///
/// When the parent dies the server is re-parented (to init or a subreaper), so its parent id
/// changes; a thread checks `getppid()` ten times a second. This works on every POSIX system,
/// unlike Linux's `PR_SET_PDEATHSIG`, which fires when the parent *thread* exits (a pool thread
/// of the parent may exit while the parent lives on).
enum ParentWatchdog {
    /// How often the parent id is checked.
    static let interval: useconds_t = 100_000

    /// Checks that `parent` is this process's parent now, and exits as soon as it no longer is.
    ///
    /// - Throws: ``ParentWatchdogError`` when `parent` is not the parent already (it died
    ///   before the server started, or the flag names another process).
    static func start(parent: Int32) throws {
        guard getppid() == parent else {
            throw ParentWatchdogError(
                "--parent-pid \(parent): the parent process \(parent) is not this server's parent (it is \(getppid())); exiting")
        }
        Thread.detachNewThread {
            while getppid() == parent { usleep(interval) }
            // A plain write(2) whose failure is ignored: standard error is often a pipe to the parent
            // that just died, and FileHandle.write traps on EPIPE.
            let message = "prefetch-server: parent process \(parent) is gone; exiting\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            _exit(0)
        }
    }
}

/// The `--parent-pid` flag names a process that is not the server's parent.
struct ParentWatchdogError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
