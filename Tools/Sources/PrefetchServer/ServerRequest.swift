import HummingbirdCore

/// What a request to a ``DataServer`` asks for, decided from its target (path and query) alone.
///
/// The server's routes use it after routing, and the fuzzer drives it with arbitrary bytes, so
/// no request target, however malformed, can crash the server: every input ends as one of these
/// cases, a bad one as ``badRequest(_:)`` or ``notFound(_:)`` with a message naming the value
/// and the rule.
///
/// ```swift
/// ServerRequest.parse("/items?offset=100&limit=20", configuration: configuration)   // .items(offset: 100, limit: 20)
/// ServerRequest.parse("/items?limit=0", configuration: configuration)               // .badRequest("limit must be …")
/// ```
public enum ServerRequest: Sendable, Hashable {
    /// `GET /health`.
    case health
    /// `GET /items?offset=O&limit=L`: `limit` items from `offset` (defaults 0 and 50).
    case items(offset: Int, limit: Int)
    /// `GET /thumb/{id}`, optionally `?chunked=1` (no `Content-Length`).
    case thumbnail(id: Int, chunked: Bool)
    /// `GET /photos/{id}.jpg`: a progressive JPEG (the fixtures, cycled over the ids);
    /// `?variant=thumb` for its 200 px variant, `?ranges=0` to ignore `Range` (a server without
    /// range support).
    case photo(id: Int, thumbnail: Bool, ranges: Bool)
    /// A 400: a query parameter out of its range.
    case badRequest(String)
    /// A 404: no such route or item.
    case notFound(String)

    /// The longest request target looked at; a longer one is a 400 without being parsed.
    public static let maxTargetLength = 8_192

    /// The urgency a request's `Priority` header signals (RFC 9218: 0, most urgent, to 7), from
    /// its field lines as received; 3 when there are none, or they are not a valid Structured
    /// Field Dictionary, or `u` is not an integer from 0 to 7. Never an error: a bad header is ignored.
    public static func urgency(priorityFieldLines lines: [String]) -> Int {
        RequestPriority(fieldLines: lines).urgency
    }

    /// Parses a request target such as `/items?offset=0&limit=50` against `configuration`.
    /// - Complexity: O(n) in the target's length.
    public static func parse(_ target: String, configuration: ServerConfiguration) -> ServerRequest {
        guard target.utf8.count <= maxTargetLength else {
            return .badRequest("the request target is \(target.utf8.count) bytes; at most \(maxTargetLength) are accepted")
        }
        let uri = URI(target)
        let components = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        switch (components.first, components.count) {
        case ("health", 1):
            return .health
        case ("items", 1):
            let query = uri.queryParameters
            switch (integer(query["offset"], "offset", default: 0, in: 0...Int.max),
                    integer(query["limit"], "limit", default: 50, in: 1...configuration.maxPageSize)) {
            case (.success(let offset), .success(let limit)): return .items(offset: offset, limit: limit)
            case (.failure(let message), _), (_, .failure(let message)): return .badRequest(message.text)
            }
        case ("thumb", 2):
            let raw = components[1]
            guard let id = Int(raw), (0..<configuration.itemCount).contains(id) else {
                return .notFound("no thumbnail \(raw.prefix(64)): ids are 0..<\(configuration.itemCount)")
            }
            return .thumbnail(id: id, chunked: uri.queryParameters["chunked"] == "1")
        case ("photos", 2):
            let raw = components[1]
            let name = raw.hasSuffix(".jpg") ? raw.dropLast(4) : raw
            guard let id = Int(name), (0..<configuration.itemCount).contains(id) else {
                return .notFound("no photo \(raw.prefix(64)): photos are 0.jpg..<\(configuration.itemCount).jpg")
            }
            let query = uri.queryParameters
            let variant = query["variant"]
            guard variant == nil || variant == "full" || variant == "thumb" else {
                return .badRequest("variant must be full or thumb, got \(variant!.prefix(64))")
            }
            let ranges = query["ranges"]
            guard ranges == nil || ranges == "0" || ranges == "1" else {
                return .badRequest("ranges must be 0 or 1, got \(ranges!.prefix(64))")
            }
            return .photo(id: id, thumbnail: variant == "thumb", ranges: ranges != "0")
        default:
            return .notFound("no route for \(uri.path.prefix(64))")
        }
    }

    /// The resource that injected faults are counted by (`/items?offset=0&limit=50`,
    /// `/thumb/7`), or `nil` for a request that is not served.
    public var resource: String? {
        switch self {
        case .items(let offset, let limit): "/items?offset=\(offset)&limit=\(limit)"
        case .thumbnail(let id, _): "/thumb/\(id)"
        case .photo(let id, let thumbnail, _): "/photos/\(id).jpg" + (thumbnail ? "?variant=thumb" : "")
        case .health, .badRequest, .notFound: nil
        }
    }

    /// The ids of the items a page holds: `offset..<min(offset + limit, itemCount)`, empty past the end.
    public func itemIDs(configuration: ServerConfiguration) -> Range<Int> {
        guard case .items(let offset, let limit) = self else { return 0..<0 }
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        let end = min(overflow ? Int.max : sum, configuration.itemCount)
        return offset < end ? offset..<end : 0..<0
    }

    private struct Message: Error { var text: String }

    private static func integer(
        _ raw: Substring?, _ name: String, default value: Int, in range: ClosedRange<Int>
    ) -> Result<Int, Message> {
        guard let raw else { return .success(value) }
        guard let parsed = Int(raw), range.contains(parsed) else {
            let upper = range.upperBound == Int.max ? "" : "\(range.upperBound)"
            return .failure(Message(text: "\(name) must be an integer in \(range.lowerBound)...\(upper), got \(raw.prefix(64))"))
        }
        return .success(parsed)
    }
}
