import PrefetchServer

/// libFuzzer entry point: any bytes as a request target (path and query) for the data server, and
/// after a first line break, `Priority` header field lines (one a line). Every target must end as
/// a route or a 400/404 with a message, every header as an urgency from 0 to 7, and the
/// invariants below hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerRequest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let target = lines.count > 1 ? lines[0] : input
    let urgency = ServerRequest.urgency(priorityFieldLines: Array(lines.dropFirst()))
    precondition((0...7).contains(urgency), "urgency \(urgency) from \(lines.dropFirst())")
    var configuration = ServerConfiguration()
    configuration.itemCount = 1_000
    configuration.maxPageSize = 100
    let request = ServerRequest.parse(target, configuration: configuration)
    switch request {
    case .items(let offset, let limit):
        precondition(offset >= 0 && (1...configuration.maxPageSize).contains(limit), "\(request) out of range")
        let ids = request.itemIDs(configuration: configuration)
        precondition(ids.count <= limit && ids.allSatisfy { (0..<configuration.itemCount).contains($0) }, "\(request): \(ids)")
        precondition(request.resource != nil)
    case .thumbnail(let id, _):
        precondition((0..<configuration.itemCount).contains(id), "\(request) out of range")
        precondition(request.resource == "/thumb/\(id)")
    case .photo(let id, let thumbnail, _):
        precondition((0..<configuration.itemCount).contains(id), "\(request) out of range")
        precondition(request.resource == "/photos/\(id).jpg" + (thumbnail ? "?variant=thumb" : ""))
    case .health:
        precondition(request.resource == nil)
    case .badRequest(let message), .notFound(let message):
        precondition(!message.isEmpty && message.utf8.count < 1_024, "an unbounded message: \(message.utf8.count) bytes")
        precondition(request.resource == nil)
    }
    return 0
}
