import Foundation
import IOTestSupport
import Testing

/// Runs the interactive demo in a real terminal (tmux), presses keys and reads the screen.
///
/// This is a real-terminal test: it waits by polling the screen with a deadline, never for a
/// fixed time. Without tmux it is skipped with a printed reason (CI installs tmux).
@Suite("Interactive mode in tmux", .serialized)
struct InteractiveTmuxTests {
    /// A tmux server of its own, so the test never touches anyone's sessions.
    final class Tmux {
        /// The server's socket: a file of the test's own in the temporary directory (`-S`), removed
        /// by ``stop()``, so no socket is left in tmux's shared `/tmp/tmux-UID` folder.
        let socket = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefetch-demo-tmux-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let session = "demo"

        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not export.
        static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

        static var path: String? {
            for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let candidate = "\(directory)/tmux"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }

        /// Runs a tmux command and returns its output.
        ///
        /// Spawned with `posix_spawn` and every descriptor above stderr closed, not with
        /// `Foundation.Process`: the server `new-session` starts outlives its client and would
        /// inherit the descriptors Foundation watches for the child's exit (and other tests' pipes).
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let outputPath = FileManager.default.temporaryDirectory
                .appendingPathComponent("\(URL(fileURLWithPath: socket).lastPathComponent)-\(UUID().uuidString).out").path
            defer { try? FileManager.default.removeItem(atPath: outputPath) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
            let path = Self.path ?? "/usr/bin/tmux"
            let argv = [path, "-S", socket, "-f", "/dev/null"] + arguments
            var cArguments = argv.map { strdup($0) }
            cArguments.append(nil)
            defer { for pointer in cArguments { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, path, &actions, nil, cArguments, environ)
            guard spawned == 0 else { throw DemoTestError("posix_spawn tmux failed: \(spawned)") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            // Foundation's Process reaps children of the test process itself, so waitpid can fail at
            // once (ECHILD) while the client still runs: then wait until it is gone (bounded).
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(5)
            while kill(pid, 0) == 0, clock.now < deadline { sched_yield() }
            return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        }

        func start(columns: Int, rows: Int) throws {
            try run(["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)",
                     "env PS1='demo-shell$ ' TERM=xterm-256color bash --norc --noprofile"])
        }

        func send(_ keys: String...) throws { try run(["send-keys", "-t", session] + keys) }
        func type(_ text: String) throws { try run(["send-keys", "-t", session, "-l", text]) }
        func screen() throws -> String { try run(["capture-pane", "-p", "-t", session]) }
        /// The screen with lines the terminal wrapped joined again (`capture-pane -J`).
        func joinedScreen() throws -> String { try run(["capture-pane", "-p", "-J", "-t", session]) }
        func alternateScreenOn() throws -> Bool {
            try run(["display-message", "-p", "-t", session, "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        /// Stops the server and removes its socket file (tmux leaves it behind when the server dies
        /// on its own).
        func stop() {
            let server = (try? run(["display-message", "-p", "#{pid}"])).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            _ = try? run(["kill-server"])
            // The server is a daemon (its parent is init): if kill-server did not reach it, end it
            // here, so no tmux server outlives the test.
            if let server, server > 0, kill(server, 0) == 0 { kill(server, SIGKILL) }
            try? FileManager.default.removeItem(atPath: socket)
        }

        /// Polls the screen until `condition` holds, or fails after `timeout` seconds (times
        /// `PREFETCH_TEST_TIME_SCALE`, see `TestTime`) with the last screen.
        func waitFor(_ what: String, timeout: Double = 30, _ condition: (String) throws -> Bool) async throws -> String {
            let clock = ContinuousClock()
            let limit = TestTime.scaled(.seconds(timeout))
            let deadline = clock.now + limit
            var last = ""
            while clock.now < deadline {
                last = try screen()
                if try condition(last) { return last }
                try await clock.sleep(for: .milliseconds(100))
            }
            throw DemoTestError("timed out after \(limit) waiting for \(what); the screen was:\n\(last)")
        }
    }

    /// The offset the status line shows (`offset 1850 pt`), or nil when it shows none.
    static func offset(on screen: String) -> Int? {
        guard let match = screen.range(of: #"offset -?[0-9]+ pt"#, options: .regularExpression) else { return nil }
        return Int(screen[match].dropFirst("offset ".count).dropLast(" pt".count))
    }

    /// Whether the shell printed its verdict on the terminal modes (a line of its own, not the typed command).
    /// The typed command spells the words with empty quotes (`re''stored`), so where it wraps at the
    /// pane's edge its text never looks like the verdict line.
    static func hasSttyVerdict(_ screen: String) -> Bool {
        screen.range(of: #"(?m)^stty=(restored|changed)$"#, options: .regularExpression) != nil
    }

    /// Whether the shell printed the demo's exit status on a line of its own (not the typed command, which holds `demo-exit=$?`).
    static func hasExitLine(_ screen: String) -> Bool {
        screen.range(of: #"(?m)^demo-exit=[0-9]+$"#, options: .regularExpression) != nil
    }

    func withTmux(columns: Int = 100, _ body: (Tmux) async throws -> Void) async throws {
        guard Tmux.path != nil else {
            print("InteractiveTmuxTests: skipped, tmux is not installed (CI installs it with apt-get install tmux)")
            return
        }
        let tmux = Tmux()
        defer { tmux.stop() }
        try tmux.start(columns: columns, rows: 40)
        _ = try await tmux.waitFor("the shell prompt") { $0.contains("demo-shell$") }
        try await body(tmux)
    }

    @Test func theGridAndStatusLineRenderAndQRestoresTheTerminal() async throws {
        try await withTmux { tmux in
            let demo = try DemoProcess.executable.path
            // Given the interactive demo on a 100×40 terminal
            try tmux.type("S=$(stty -g); '\(demo)' --latency-ms 150; echo \"demo-exit=$?\"; "
                + "[ \"$(stty -g)\" = \"$S\" ] && echo stty=re''stored || echo stty=chan''ged")
            try tmux.send("Enter")

            // Then the grid's frame, its cells and the status line appear, on the alternate screen
            let first = try await tmux.waitFor("the grid with loaded cells") { screen in
                screen.contains("┌") && screen.contains("└") && screen.contains("#1 ") && screen.contains("✓ cached")
            }
            #expect(first.contains("offset 0 pt"))
            #expect(first.contains("visible #1–#6"))
            #expect(first.contains("in flight"))
            #expect(first.contains("cached"))
            #expect(first.contains("ready"))
            #expect(first.contains("cancels"))
            #expect(first.contains("prefetching ON"))
            #expect(try tmux.alternateScreenOn())

            // When j scrolls down, the offset moves and new cells come in
            try tmux.type("jjjjjjjj")
            _ = try await tmux.waitFor("the view to scroll") { screen in
                screen.range(of: #"offset [1-9][0-9]* pt"#, options: .regularExpression) != nil
            }
            // The keys line and the legend name the policy and memory-warning keys and every mark
            let keys = try tmux.screen()
            for text in ["c next policy", "m memory warning", "┃ requested window", "◆ where the fling rests", "↷ flown past", "· not loaded"] {
                #expect(keys.contains(text), "the screen lacks \(text):\n\(keys)")
            }
            // A fling shows where it rests, in the plan line and in the margins. It coasts for about
            // three seconds of real time; a machine loaded enough that no screen captured during them
            // shows it (ThreadSanitizer with every suite at once) flings again, at most five times
            var fling = ""
            for _ in 1...5 where !fling.contains("◆ fling rests at") {
                let before = try Self.offset(on: tmux.screen())
                try tmux.type(" ")
                fling = try await tmux.waitFor("the landing zone of the fling, or its end") { screen in
                    screen.contains("◆ fling rests at")
                        || (try Self.offset(on: screen) != before && screen.contains("v +0 pt/s"))
                }
            }
            #expect(fling.contains("◆ fling rests at"), "five flings, none seen coasting:\n\(fling)")
            #expect(fling.contains("plan: window #"))
            // c moves to the next policy (adaptive → none), m sends a memory warning
            try tmux.type("c")
            _ = try await tmux.waitFor("policy none in the title") { $0.contains("· none ·") && $0.contains("policy now none") }
            try tmux.type("m")
            _ = try await tmux.waitFor("the memory warning's message") { $0.contains("memory warning sent: cache") }
            // + raises the latency for new loads
            try tmux.type("+")
            _ = try await tmux.waitFor("the new latency") { $0.contains("latency now fixed(225 ms)") }
            // p turns prefetching off
            try tmux.type("p")
            _ = try await tmux.waitFor("prefetching OFF in the title") { $0.contains("prefetching OFF") }

            // When q is pressed the demo exits and prints its summary on the normal screen
            try tmux.type("q")
            let after = try await tmux.waitFor("the demo to exit") { Self.hasSttyVerdict($0) }
            #expect(after.contains("demo-exit=0"))
            #expect(after.contains("display-ready rate"))
            // The summary tells the session as it ended: the policy, prefetching and latency the keys left
            let summary = try tmux.joinedScreen()
            #expect(summary.contains("interactive session, grid, policy none, prefetching off, latency fixed(225 ms)"), "\(summary)")
            #expect(summary.contains("(changed during the session: policy adaptive → none, prefetching on → off, latency fixed(150 ms) → fixed(225 ms))"))
            #expect(!after.contains("┌"), "the grid is gone: the alternate screen was left")
            #expect(try !tmux.alternateScreenOn())
            // And the terminal's modes are what they were before (cooked, echo on)
            #expect(after.contains("stty=restored"))
        }
    }

    @Test func aRecordedSessionSaysWhereTheTraceWentAndHowToReplayIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-demo-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("session.json")
        try await withTmux { tmux in
            let demo = try DemoProcess.executable.path
            try tmux.type("'\(demo)' --latency-ms 100 --record '\(trace.path)'; echo \"demo-exit=$?\"")
            try tmux.send("Enter")
            _ = try await tmux.waitFor("the grid") { $0.contains("┌") && $0.contains("in flight") }
            try tmux.type(" ")
            _ = try await tmux.waitFor("the fling") { $0.contains("◆ fling rests at") }
            try tmux.type("q")
            _ = try await tmux.waitFor("the demo to exit") { Self.hasExitLine($0) }
            let screen = try tmux.joinedScreen()
            #expect(screen.contains("demo-exit=0"), "\(screen)")
            // After the summary: where the trace went, the command that replays it, and why its numbers differ
            #expect(screen.contains("display-ready rate"))
            #expect(screen.contains("prefetch-demo: wrote the session's scroll trace to \(trace.path)"), "\(screen)")
            #expect(screen.contains("swift run --package-path Tools prefetch-bench run --trace \(trace.path)"))
            #expect(screen.contains("a replay's numbers differ from this session's: the bench loads over its shared 10 Mbit/s link"))
            #expect(screen.contains("--network independent --latency-ms 100"))
            #expect(FileManager.default.fileExists(atPath: trace.path))
        }
    }

    @Test func overAServersSharedLinkTheSummaryGivesTheStatusLinesLinkShare() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-demo-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTmux { tmux in
            let demo = try DemoProcess.executable.path
            try tmux.type("'\(demo)' --serve --items 2000 --server-latency-ms 20 --server-bandwidth 1mbit --cold "
                + "--disk-cache '\(directory.appendingPathComponent("cache.sqlite").path)' 2>/dev/null; echo \"demo-exit=$?\"")
            try tmux.send("Enter")
            // Given the status line's link share after a couple of seconds of bytes (at 100 columns,
            // on a line of its own: not cut)
            let pattern = #"link ([0-9]+\.[0-9])% of 1 Mbit/s"#
            _ = try await tmux.waitFor("250 KB received and the link's share in the status line", timeout: 60) { screen in
                guard screen.range(of: pattern, options: .regularExpression) != nil,
                      let range = screen.range(of: #"[0-9.]+ (KB|MB) received"#, options: .regularExpression) else { return false }
                let figure = screen[range]
                return figure.contains("MB") || (Double(figure.split(separator: " ")[0]) ?? 0) >= 250
            }
            let clock = ContinuousClock()
            let running = try tmux.screen(), readAt = clock.now
            try tmux.type("q")
            _ = try await tmux.waitFor("the demo to exit", timeout: 60) { Self.hasExitLine($0) }
            let between = (clock.now - readAt) / .seconds(1)
            let screen = try tmux.joinedScreen()
            #expect(screen.contains("demo-exit=0"), "\(screen)")
            // Then the summary gives the link's share as the status line did, not 0.0%
            let line = try #require(screen.split(separator: "\n").first { $0.contains("of the server's 1 Mbit/s") }, "\(screen)")
            #expect(!line.contains(" 0.0% of the server's"), "\(line)")
            let status = try #require(running.split(separator: "\n").first { $0.range(of: pattern, options: .regularExpression) != nil })
            let early = try #require(Self.wire(status)), late = try #require(Self.wire(line))
            // The same measure (bytes over seconds since the run started, on the same clock): the
            // seconds each reading implies (bytes over share of 125,000 B/s) are as far apart as the
            // test saw time pass between them, however slow this machine runs the demo. (The
            // status line was painted up to a frame before it was read: hence the second of slack.)
            let seconds = (early: early.bytes / (early.share * 125_000), late: late.bytes / (late.share * 125_000))
            #expect(late.bytes >= early.bytes, "status line \(status), summary \(line)")
            #expect(seconds.late >= seconds.early - 0.1 && seconds.late - seconds.early <= between + 1,
                    "status line implies \(seconds.early) s, summary \(seconds.late) s, \(between) s apart: \(status) / \(line)")
        }
    }

    /// The bytes and the link's share a status line (`412.3 KB received, link 91.6% of 1 Mbit/s`)
    /// or a summary line (`1.23 MB (thumbnails and pages), 87.0% of the server's 1 Mbit/s`) gives.
    static func wire(_ text: Substring) -> (bytes: Double, share: Double)? {
        guard let size = text.range(of: #"[0-9.]+ (B|KB|MB) "#, options: .regularExpression),
              let percent = text.range(of: #"[0-9]+\.[0-9]%"#, options: .regularExpression) else { return nil }
        let parts = text[size].split(separator: " ")
        guard let value = Double(parts[0]), let share = Double(text[percent].dropLast()), share > 0 else { return nil }
        let unit: Double = ["B": 1, "KB": 1e3, "MB": 1e6][String(parts[1])] ?? 1
        return (value * unit, share / 100)
    }

    @Test func ctrlCRestoresTheTerminalToo() async throws {
        try await withTmux { tmux in
            let demo = try DemoProcess.executable.path
            try tmux.type("S=$(stty -g); '\(demo)' --layout list --latency-ms 300; echo \"demo-exit=$?\"; "
                + "[ \"$(stty -g)\" = \"$S\" ] && echo stty=re''stored || echo stty=chan''ged")
            try tmux.send("Enter")
            let list = try await tmux.waitFor("the list") { $0.contains("Item 1 ") && $0.contains("in flight") }
            #expect(list.contains("┌"))
            try tmux.send("C-c")
            let after = try await tmux.waitFor("the demo to exit") { Self.hasSttyVerdict($0) }
            #expect(after.contains("demo-exit=130"))
            #expect(after.contains("stty=restored"))
            #expect(!after.contains("┌"))
            #expect(try !tmux.alternateScreenOn())
        }
    }
}
