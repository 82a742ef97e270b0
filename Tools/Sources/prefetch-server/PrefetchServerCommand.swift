import ArgumentParser
import Foundation
import PrefetchServer

/// `prefetch-server`: the local data server for the demo and the I/O tests.
@main
struct PrefetchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch-server",
        abstract: "Serves a feed of items and thumbnails on loopback, with seeded latency and faults.",
        discussion: """
            Routes: GET /items?offset=&limit=, GET /thumb/{id}, GET /health.
            The first line on standard output is "listening on http://HOST:PORT" (an IPv6 HOST in brackets); logs go to standard error.
            It binds 127.0.0.1 unless --host says otherwise, and warns when that address is not loopback.
            No client can pin it: it holds at most --max-connections connections, reads request bodies of at most 1 KiB that arrive within --idle-timeout-ms of their head, closes a response unread for --write-timeout-ms, and exits within about a second of SIGTERM or SIGINT, whatever its clients do.
            """)

    @OptionGroup var options: ServerOptions

    /// The process whose death ends the server (`prefetch-demo --serve` passes its own pid).
    @Option(name: .customLong("parent-pid"),
            help: "Exit as soon as the process with this id is no longer this server's parent (it died or was killed).")
    var parentPID: Int32?

    func run() async throws {
        let configuration = try options.configuration()
        if let parentPID {
            do { try ParentWatchdog.start(parent: parentPID) } catch { throw ValidationError("\(error)") }
        }
        let host = configuration.host
        if !ServerConfiguration.isLoopback(host: host) {
            FileHandle.standardError.write(Data("""
                prefetch-server: warning: --host \(host) is not a loopback address: anyone who can reach it can read \
                the feed and trigger the injected faults, with no authentication. Use 127.0.0.1 unless you mean it.

                """.utf8))
        }
        try await DataServer.run(configuration) { port in
            FileHandle.standardOutput.write(Data("listening on http://\(ServerConfiguration.urlHost(host)):\(port)\n".utf8))
        }
    }
}
