import Foundation
import PrefetchDiskCache
import PrefetchKit
import PrefetchUIKit

/// What an app writes: a fetcher with a disk cache in front of its loader.
public func makeThumbnailFetcher(directory: URL) throws -> AsyncFetcher<Int, Data> {
    let disk = try DiskCache<Int>(configuration: DiskCacheConfiguration(fileURL: directory.appendingPathComponent("thumbnails.sqlite")))
    return try AsyncFetcher<Int, Data>(store: disk) { id in Data("thumbnail #\(id)".utf8) }
}
