import Foundation
import PrefetchFeed
import PrefetchKit

/// libFuzzer entry point: any bytes as the body of prefetch-server's `GET /items?offset=100&limit=50`,
/// through the lab's decoder (FeedItem.swift, linked from Tools/Sources/PrefetchDemoKit/Remote),
/// which checks the product's page rules (`FeedPage.validate(offset:limit:)`) and the server's own.
/// It must throw a `PrefetchError` or return a page whose every item sits at its own index.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedPage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let offset = 100, limit = 50
    do {
        let page = try FeedPage<FeedItem>.decode(data, offset: offset, limit: limit)
        precondition(page.offset == offset && page.items.count <= limit && page.total >= 0)
        precondition(page.items.isEmpty || page.total >= offset + page.items.count)
        for (index, item) in page.items.enumerated() { precondition(item.id == offset + index, "item \(index) is \(item.id)") }
    } catch is PrefetchError {
        // A clear error is the expected outcome for most inputs.
    } catch {
        fatalError("FeedPage<FeedItem>.decode threw something other than PrefetchError: \(error)")
    }
    return 0
}
