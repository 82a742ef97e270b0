import Foundation

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
struct TempDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("PrefetchDiskCacheCrashTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var database: URL { url.appendingPathComponent("cache.sqlite") }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}
