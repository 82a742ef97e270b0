import PrefetchDemoKit
import PrefetchTesting
import PrefetchToolSupport
import Testing

/// The shared latency flags, in process: the demo's network and the arguments `--serve` passes on.
@Suite struct LatencyOptionsTests {
    @Test func theDemoStartsFromItsFixed300MsAndReadsEveryLatencyFlag() throws {
        func latency(_ arguments: [String]) throws -> LatencyModel { try DemoOptions.parse(arguments).settings().latency }
        #expect(try latency([]) == LatencyModel(.fixed(.milliseconds(300))))
        #expect(try latency(["--latency-ms", "80"]) == LatencyModel(.fixed(.milliseconds(80))))
        #expect(try latency(["--latency-ms", "150", "--latency-p99-ms", "900"]) == LatencyModel(.logNormal(median: .milliseconds(150), p99: .milliseconds(900))))
        #expect(try latency(["--latency-p99-ms", "900"]) == LatencyModel(.logNormal(median: .milliseconds(300), p99: .milliseconds(900))))
        #expect(try latency(["--latency-profile", "emerging"]) == LatencyProfile.emerging.model)
        #expect(try latency(["--latency-profile", "wifi", "--latency-p99-ms", "800", "--failure-rate", "0.1"])
                == LatencyModel(.logNormal(median: .milliseconds(40), p99: .milliseconds(800)), failureRate: 0.1))
        #expect(try latency(["--latency-fixed-ms", "0.5"]) == LatencyModel(.fixed(.microseconds(500))))
    }

    @Test func serveHandsTheServerItsLatencyAsTheServerReadsIt() throws {
        func arguments(_ arguments: [String]) throws -> [String] { try DemoOptions.parse(["--serve"] + arguments).serverArguments }
        #expect(try arguments([]) == ["--items", "100000"])
        #expect(try arguments(["--server-latency-ms", "150", "--server-latency-p99-ms", "900"]) == ["--items", "100000", "--latency-ms", "150", "--latency-p99-ms", "900"])
        #expect(try arguments(["--server-faults"]) == ["--items", "100000"] + FaultSoak.serverArguments)
        #expect(try arguments(["--server-faults", "--server-latency-ms", "20"]) == ["--items", "100000", "--latency-ms", "20"] + FaultSoak.serverArguments.dropFirst(4))
        #expect(try arguments(["--server-bandwidth", "1mbit"]) == ["--items", "100000", "--server-bandwidth", "125000"])
        #expect(try arguments(["--server-bandwidth", "1mbit", "--server-ignore-priority"])
            == ["--items", "100000", "--server-bandwidth", "125000", "--ignore-priority"])
    }

    @Test func serverIgnorePriorityNeedsTheServersLink() {
        for (arguments, message) in [
            (["--server-ignore-priority"], "--server-ignore-priority only applies with --serve (it configures the server --serve starts)"),
            (["--serve", "--server-ignore-priority"],
             "--server-ignore-priority only applies with --server-bandwidth (priority orders the bodies sharing the server's link)"),
        ] {
            do {
                _ = try DemoOptions.parse(arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(DemoOptions.message(for: error) == message)
            }
        }
    }
}
