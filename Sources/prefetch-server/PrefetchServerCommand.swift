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
            The first line on standard output is "listening on http://HOST:PORT"; logs go to standard error.
            """)

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.configuration()
        let host = configuration.host
        try await DataServer.run(configuration) { port in
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
        }
    }
}
