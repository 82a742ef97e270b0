// soak-client: a bounded fault soak of the real-I/O pieces, in a process of its own so its memory
// and file descriptors can be measured alone. It starts `prefetch-server` with injected faults on
// 127.0.0.1 (latency spikes, 503s, resets, slow bodies), scrolls a headless TableView (Apple's sample's data source, PrefetchSimulation's SampleApp) for a
// given number of seconds of real time through PagedFeed → AsyncFetcher → DiskCache → HTTPLoader,
// kills and restarts the server half-way, then settles, retries failed cells by scrolling away and
// back, checks the disk cache, and prints one JSON report on standard output.
//
// Usage: soak-client <prefetch-server path> <work directory> <seconds> [seed] [--value-bytes N] [--memory-budget-mb M]
// --value-bytes N turns each thumbnail into a decoded value of N bytes (the fetcher's cost);
// --memory-budget-mb M sets the fetcher's memory budget (issue #27). See SoakOptions.
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

let options: SoakOptions
do {
    options = try SoakOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("soak-client: \(error)\n\(SoakOptions.usage)\n".utf8))
    exit(64)
}

#if canImport(Glibc)
// Decoded values of a MiB are allocated by mmap and given back to the system when freed, as
// Apple's allocator does with large blocks (and an image decoder's bitmaps are). Without this,
// glibc raises its mmap threshold after the first such free and serves the rest from its arenas,
// which keep freed blocks resident: the soak's resident memory would measure glibc's free lists
// rather than the values the process holds.
// (`mallopt` and `M_MMAP_THRESHOLD`, -3, are in <malloc.h>, which the Glibc module leaves out.)
if let symbol = dlsym(nil, "mallopt") {
    let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    _ = mallopt(-3, 128 * 1024)
}
#endif

let report = try await Soak(options: options).run()
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
FileHandle.standardOutput.write(json + Data("\n".utf8))
