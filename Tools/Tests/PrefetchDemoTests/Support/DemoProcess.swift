import Foundation
import IOTestSupport
import PrefetchKit
import Testing

/// Runs the built `prefetch-demo` executable, as swift-argument-parser's example tests run theirs.
enum DemoProcess {
    /// The executable next to the test bundle (`Tools/.build/<config>/prefetch-demo`).
    static var executable: URL {
        get throws {
            var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            if let argument = CommandLine.arguments.first {
                candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
            }
            let packageRoot = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            candidates.append(packageRoot.appendingPathComponent(".build/debug"))
            for directory in candidates {
                let url = directory.appendingPathComponent("prefetch-demo")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw DemoTestError("prefetch-demo was not found next to the tests (looked in \(candidates.map(\.path)))")
        }
    }

    /// Runs the demo with `arguments`, stdin and stdout not terminals, and waits for it to exit
    /// without blocking a thread: a ``BoundedProcess`` with a generous limit (virtual-time runs
    /// take seconds), so a hung demo fails its test instead of hanging the suite.
    static func run(_ arguments: [String]) async throws -> BoundedProcess.Output {
        try await BoundedProcess.run(try executable, arguments, timeout: .seconds(300))
    }

    /// Runs the demo with `--json` and decodes the summary object.
    static func summary(_ arguments: [String]) async throws -> [String: Double] {
        let output = try await run(arguments + ["--json"])
        guard output.status == 0 else {
            throw DemoTestError("prefetch-demo \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
        }
        let lines = output.stdout.split(separator: "\n")
        guard lines.count == 1, let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any] else {
            throw DemoTestError("--json printed more or less than one JSON object: \(output.stdout)")
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
}

/// A failure of the test harness, with a message.
struct DemoTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

