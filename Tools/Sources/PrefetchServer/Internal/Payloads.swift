import Foundation
import PrefetchToolSupport
import NIOCore

/// The deterministic content the server serves.
enum Payloads {
    /// The thumbnail bytes for `id`: the same for the same seed, id and size.
    static func thumbnail(id: Int, size: Int, seed: UInt64) -> ByteBuffer {
        var random = SplitMix64(seed: seed ^ (UInt64(id) &* 0x9E37_79B9_7F4A_7C15))
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        var remaining = size
        while remaining >= 8 {
            buffer.writeInteger(random.next())
            remaining -= 8
        }
        if remaining > 0 {
            let last = random.next()
            for i in 0..<remaining { buffer.writeInteger(UInt8(truncatingIfNeeded: last >> (8 * i))) }
        }
        return buffer
    }

    /// The strong entity tag of `thumbnail(id:size:seed:)`: the same bytes, in every process,
    /// always get the same tag, and different bytes (another id, size or seed) another one.
    static func thumbnailTag(id: Int, size: Int, seed: UInt64) -> String {
        "\"t\(String(stableHash("thumb \(seed) \(id) \(size)"), radix: 16))\""
    }

    static let colours = ["#E4572E", "#17BEBB", "#FFC914", "#2E282A", "#76B041", "#6A4C93", "#1982C4", "#FF595E"]

    /// One item of the feed, as JSON-ready values.
    static func item(id: Int, seed: UInt64, baseURL: String) -> ItemJSON {
        var random = SplitMix64(seed: seed ^ (UInt64(id) &* 0xC2B2_AE3D_27D4_EB4F))
        return ItemJSON(
            id: id,
            title: "Item \(id)",
            colour: colours[Int(random.next() % UInt64(colours.count))],
            thumbnailURL: "\(baseURL)/thumb/\(id)")
    }
}

/// The wire format of one item in `/items`.
struct ItemJSON: Codable, Sendable {
    var id: Int
    var title: String
    var colour: String
    var thumbnailURL: String
}

/// The wire format of `/items`.
struct PageJSON: Codable, Sendable {
    var offset: Int
    var limit: Int
    var total: Int
    var items: [ItemJSON]
}
