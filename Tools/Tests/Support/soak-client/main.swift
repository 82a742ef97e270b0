// soak-client: a bounded fault soak of the real-I/O pieces, in a process of its own so its memory
// and file descriptors can be measured alone. It starts `prefetch-server` with injected faults on
// 127.0.0.1 (latency spikes, 503s, resets, slow bodies), scrolls a headless TableView (Apple's sample's data source, PrefetchSimulation's SampleApp) for a
// given number of seconds of real time through PagedFeed → AsyncFetcher → DiskCache → HTTPLoader,
// kills and restarts the server half-way, then settles, retries failed cells by scrolling away and
// back, checks the disk cache, and prints one JSON report on standard output.
//
// Usage: soak-client <prefetch-server path> <work directory> <seconds> [seed]
import Foundation
import IOTestSupport
import PrefetchCollectionView
import PrefetchDiskCache
import PrefetchFeed
import PrefetchHTTP
import PrefetchKit
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4, let seconds = Double(arguments[3]), seconds > 0 else {
    FileHandle.standardError.write(Data("usage: soak-client <prefetch-server> <work directory> <seconds> [seed]\n".utf8))
    exit(64)
}
let serverPath = URL(fileURLWithPath: arguments[1])
let workDirectory = URL(fileURLWithPath: arguments[2])
let seed = arguments.count >= 5 ? UInt64(arguments[4]) ?? 7 : 7

let report = try await Soak(server: serverPath, directory: workDirectory, seconds: seconds, seed: seed).run()
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
FileHandle.standardOutput.write(json + Data("\n".utf8))
