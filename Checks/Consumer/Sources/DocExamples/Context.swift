// What the documentation's examples take as given: the names an app has of its own (its loader,
// its models, its cells, the scroll values of the frame at hand). `Checks/doc-examples` writes each
// example beside this file, into Generated/, inside a function of its own, so an example's own
// declarations shadow these. Nothing here runs: the examples are compiled, never called.
import Foundation
import PrefetchFeed
import PrefetchHTTP
import PrefetchKit

// MARK: The app's data

struct DisplayData: Sendable, Hashable { var color: String }
struct Photo: Identifiable, Sendable {
    let id: Int
    var title: String { "Photo \(id)" }
}
struct Model: Identifiable, Sendable {
    let id: Int
    var identifier: Int { id }
}
struct Item: Identifiable, Sendable { let id: Int }
enum Section: Hashable, Sendable { case main }
enum MyError: RetryableError { case unavailable; var isRetryable: Bool { true } }

struct API: Sendable {
    func title(for id: Int) async throws -> String { "title \(id)" }
    func displayData(for id: Int) async throws -> DisplayData { DisplayData(color: "#\(id)") }
}
let api = API()
func load(_ id: Int) async throws -> Data { Data("\(id)".utf8) }

struct Logger: Sendable { func warning(_ message: String) { print(message) } }
let logger = Logger()

let ids = Array(0..<1_000)
let models = ids.map(Model.init(id:))
let items = ids.map(Item.init(id:))
let id = 42, item = 42, row = 3, firstVisibleRow = 0, lastVisibleRow = 9
let window = [10, 11, 12], left = [3, 4]
let server = URL(string: "http://127.0.0.1:8080")!
let url = URL(string: "http://127.0.0.1:8080/thumb/1")!
let loader = try! HTTPLoader<Int> { id in URL(string: "http://127.0.0.1:8080/thumb/\(id)")! }
let httpLoader = loader
let fetcher = try! AsyncFetcher<Int, Data>(loader: loader)

/// The app's pages of photos, for a `PagedFeed<Photo>`.
struct PhotoPages: FeedPageLoader {
    func loadPage(offset: Int, limit: Int) async throws -> FeedPage<Photo> {
        let ids = offset..<max(offset, min(offset + limit, 1_000))
        return FeedPage(offset: offset, limit: limit, total: 1_000, items: ids.map(Photo.init(id:)))
    }
}
let photoPages = PhotoPages()

// MARK: The frame at hand

let t: Duration = .seconds(1), y = 640.0, h = 800.0, height = 800.0, total = 88_000.0, v = 1_200.0
let phase = MotionPhase.dragging
let state = ScrollState(time: t, viewport: y..<(y + h), contentLength: total, velocity: v, phase: phase)
@MainActor let rows = UniformRowsGeometry(items: ids, rowLength: 88, columns: 1, spacing: 0)
let context = ScrollContext(viewport: y..<(y + h), contentLength: total, velocity: v, phase: phase,
                            heading: 1, expectedLatency: .milliseconds(300), history: .none)
let indexPath: IndexPath = [0, 3]

// MARK: The app's views

/// A cell as the examples use it: the model it shows, its load, what it shows.
@MainActor final class AppCell {
    var representedIdentifier: Int?
    var fetchHandle: FetchHandle?
    var title: String?
    func configure(with data: Data) {}
    func configure(with data: DisplayData) {}
    func showPlaceholder() {}
}

@MainActor let cell = AppCell()
@MainActor let controller = PrefetchController<Int>(policy: PrefetchPolicies.adaptive)
