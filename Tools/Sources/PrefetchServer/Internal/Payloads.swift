import Foundation
import PrefetchToolSupport
import NIOCore

/// The deterministic content the server serves.
enum Payloads {
    /// The thumbnail bytes for `id`, all at once: the same for the same seed, id and size. The
    /// server sends them with ``thumbnailBytes(id:size:seed:offset:length:)``, chunk by chunk; this
    /// is the reference the tests hold that to.
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

    /// Bytes `offset..<offset + length` of `thumbnail(id:size:seed:)`, made without the rest, so a
    /// body is made chunk by chunk as it is sent and a range costs only its own bytes.
    ///
    /// Word `k` of the payload is the generator's `k + 1`-th draw, and SplitMix64's state after `n`
    /// draws is the seed plus `n` times its increment, so any word is made on its own: 8 bytes
    /// big-endian, and the last `size % 8` bytes are the low bytes of one more draw, least
    /// significant first.
    static func thumbnailBytes(id: Int, size: Int, seed: UInt64, offset: Int, length: Int) -> ByteBuffer {
        precondition(offset >= 0 && length >= 0 && offset <= size && length <= size - offset,
                     "bytes \(offset)..<\(offset + length) of a \(size)-byte thumbnail")
        let increment: UInt64 = 0x9E37_79B9_7F4A_7C15
        let fullWords = size / 8
        var word = offset / 8
        var random = SplitMix64(seed: (seed ^ (UInt64(id) &* increment)) &+ UInt64(word) &* increment)
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        // Straight into the buffer's memory: a byte at a time through ByteBuffer took about a second
        // per 8 MiB in a debug build, and the bodies of stalled clients kept both cores busy.
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { out in
            var written = 0
            while written < length {
                let bits = random.next()
                let skip = offset + written - word * 8
                let take = min((word < fullWords ? 8 : size - word * 8) - skip, length - written)
                if word < fullWords, take == 8 {
                    out.storeBytes(of: bits.bigEndian, toByteOffset: written, as: UInt64.self)
                } else {
                    for byte in skip..<(skip + take) {
                        let shift = word < fullWords ? 56 - 8 * byte : 8 * byte
                        out[written + byte - skip] = UInt8(truncatingIfNeeded: bits >> UInt64(shift))
                    }
                }
                written += take
                word += 1
            }
            return length
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

/// The bytes of a response body, made a chunk at a time as they are sent: a stalled response holds
/// one chunk, not the whole body.
struct BodyPayload: Sendable {
    /// The body's length in bytes.
    let count: Int
    private let make: @Sendable (_ offset: Int, _ length: Int) -> ByteBuffer

    /// A body already in memory (a page of `/items`, a message).
    static func buffer(_ buffer: ByteBuffer) -> BodyPayload {
        BodyPayload(count: buffer.readableBytes) { offset, length in
            buffer.getSlice(at: buffer.readerIndex + offset, length: length)!
        }
    }

    /// Bytes `first...last` of a thumbnail, or all of it (`nil`), made as they are sent.
    static func thumbnail(id: Int, size: Int, seed: UInt64, range: ClosedRange<Int>? = nil) -> BodyPayload {
        let first = range?.lowerBound ?? 0
        return BodyPayload(count: range?.count ?? size) { offset, length in
            Payloads.thumbnailBytes(id: id, size: size, seed: seed, offset: first + offset, length: length)
        }
    }

    /// Bytes `offset..<offset + length` of the body.
    func bytes(at offset: Int, length: Int) -> ByteBuffer {
        make(offset, length)
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
