import PrefetchServer
import Testing

/// `ServerRequest.parse`: the server's path and query handling that the fuzzer drives.
@Suite("ServerRequest.parse")
struct ServerRequestTests {
    static let configuration: ServerConfiguration = {
        var configuration = ServerConfiguration()
        configuration.itemCount = 1_000
        configuration.maxPageSize = 100
        return configuration
    }()

    @Test("targets become routes, or 400/404 with a message naming the value and the rule", arguments: [
        ("/health", ServerRequest.health),
        ("/items", .items(offset: 0, limit: 50)),
        ("/items?offset=990&limit=20", .items(offset: 990, limit: 20)),
        ("/items?limit=20&junk=1&offset=5", .items(offset: 5, limit: 20)),
        ("/thumb/7", .thumbnail(id: 7, chunked: false)),
        ("/thumb/7?chunked=1", .thumbnail(id: 7, chunked: true)),
        ("/photos/7.jpg", .photo(id: 7, thumbnail: false, ranges: true)),
        ("/photos/7", .photo(id: 7, thumbnail: false, ranges: true)),
        ("/photos/7.jpg?variant=thumb&ranges=0", .photo(id: 7, thumbnail: true, ranges: false)),
        ("/photos/7.jpg?variant=huge", .badRequest("variant must be full or thumb, got huge")),
        ("/photos/7.jpg?ranges=yes", .badRequest("ranges must be 0 or 1, got yes")),
        ("/photos/1000.jpg", .notFound("no photo 1000.jpg: photos are 0.jpg..<1000.jpg")),
        ("/items?limit=0", .badRequest("limit must be an integer in 1...100, got 0")),
        ("/items?offset=-1", .badRequest("offset must be an integer in 0..., got -1")),
        ("/items?offset=99999999999999999999", .badRequest("offset must be an integer in 0..., got 99999999999999999999")),
        ("/thumb/1000", .notFound("no thumbnail 1000: ids are 0..<1000")),
        ("/thumb/x7", .notFound("no thumbnail x7: ids are 0..<1000")),
        ("/nothing", .notFound("no route for /nothing")),
    ])
    func parse(target: String, expected: ServerRequest) {
        #expect(ServerRequest.parse(target, configuration: Self.configuration) == expected)
    }

    @Test("pages near the end and past it, and offsets near Int.max, never overflow")
    func itemIDs() {
        func ids(_ target: String) -> Range<Int> { ServerRequest.parse(target, configuration: Self.configuration).itemIDs(configuration: Self.configuration) }
        #expect(ids("/items?offset=990&limit=20") == 990..<1_000)
        #expect(ids("/items?offset=5000&limit=20").isEmpty)
        #expect(ids("/items?offset=\(Int.max)&limit=100").isEmpty)
    }

    @Test("a huge target is refused before it is parsed")
    func hugeTarget() {
        let huge = "/items?x=" + String(repeating: "a", count: 10_000)
        guard case .badRequest(let message) = ServerRequest.parse(huge, configuration: Self.configuration) else {
            Issue.record("expected a 400")
            return
        }
        #expect(message.contains("at most 8192"))
    }

    @Test("faults are counted per resource, whatever the extra parameters")
    func resources() {
        let a = ServerRequest.parse("/items?offset=0&limit=50", configuration: Self.configuration)
        let b = ServerRequest.parse("/items?limit=50&offset=0&n=7", configuration: Self.configuration)
        #expect(a.resource == "/items?offset=0&limit=50")
        #expect(a.resource == b.resource)
        #expect(ServerRequest.parse("/thumb/x", configuration: Self.configuration).resource == nil)
    }
}
