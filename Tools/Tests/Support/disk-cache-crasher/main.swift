import PrefetchKit
// A child process for the disk cache's crash test: writes checksummed entries to a DiskCache
// until the test kills it with SIGKILL. Prints "ready" once the first entry is committed.
//
// Usage: disk-cache-crasher <database-path> <seed> [size-limit-bytes]
import Foundation
import IOTestSupport
import PrefetchDiskCache
import PrefetchToolSupport

let arguments = CommandLine.arguments
guard arguments.count >= 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: disk-cache-crasher <database-path> <seed> [size-limit-bytes]\n".utf8))
    exit(64)
}
var configuration = DiskCacheConfiguration(fileURL: URL(fileURLWithPath: arguments[1]))
configuration.sizeLimit = arguments.count >= 4 ? Int(arguments[3]) ?? 2_000_000 : 2_000_000
let cache = try DiskCache<String>(configuration: configuration)

var random = SplitMix64(seed: seed)

var index = 0
while index < 1_000_000 {
    let size = Int(random.next() % 96_000) + 1
    let value = ChecksummedPayload.encode(ChecksummedPayload.payload(count: size, seed: random.next()))
    // Keys repeat (overwrite) a quarter of the time, so crashes also land in updates.
    let key = random.next() % 4 == 0 && index > 0 ? "s\(seed)-\(Int(random.next() % UInt64(index)))" : "s\(seed)-\(index)"
    try await cache.store(value, for: key)
    if index == 0 {
        FileHandle.standardOutput.write(Data("ready\n".utf8))
    }
    index += 1
}
