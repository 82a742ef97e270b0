import Foundation
import PrefetchKit
import PrefetchToolSupport

/// One item of the demo: the model of Apple's sample, an identifier per cell.
package struct Model: Hashable, Sendable {
    /// The item's position in the list.
    package let index: Int
    /// The identifier the fetcher loads by, as in Apple's sample.
    package let identifier: UUID
    /// The row title of the list layout (the tutorial's `Item.title`).
    package let title: String

    /// Creates a model titled "Item <index + 1>" unless `title` is given.
    package init(index: Int, identifier: UUID, title: String? = nil) {
        self.index = index
        self.identifier = identifier
        self.title = title ?? "Item \(index + 1)"
    }

    /// The model of a feed item at `index`: its identifier comes from the feed's item id (see
    /// ``feedIdentifier(_:)``), its title from the feed.
    package init(index: Int, feedItemID: Int, title: String) {
        self.init(index: index, identifier: Self.feedIdentifier(feedItemID), title: title)
    }

    /// The identifier the fetcher and the disk cache use for the feed item `id`: the id in the
    /// last 12 hex digits of a version-4 UUID, so it can be computed before the item's page
    /// arrives and does not depend on the server's address.
    ///
    /// ```swift
    /// Model.feedIdentifier(42)   // 00000000-0000-4000-8000-00000000002A
    /// ```
    package static func feedIdentifier(_ id: Int) -> UUID {
        let raw = UInt64(truncatingIfNeeded: id)
        var b = [UInt8](repeating: 0, count: 16)
        b[6] = 0x40  // version 4
        b[8] = 0x80  // RFC 4122 variant
        for i in 0..<6 { b[15 - i] = UInt8(truncatingIfNeeded: raw >> (8 * UInt64(i))) }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// `count` models whose identifiers depend only on `seed`: the same seed gives the same UUIDs.
    package static func make(count: Int, seed: UInt64) -> [Model] {
        var random = SplitMix64(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        return (0..<count).map { index in
            Model(index: index, identifier: UUID.random(using: &random))
        }
    }
}

extension UUID {
    /// A version-4 UUID whose bits come from `random`.
    static func random(using random: inout some RandomNumberGenerator) -> UUID {
        let high = random.next(), low = random.next()
        var b = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            b[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            b[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        b[6] = (b[6] & 0x0F) | 0x40  // version 4
        b[8] = (b[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

/// A colour with 8-bit channels.
package struct RGB: Hashable, Sendable {
    /// The red channel.
    package var r: UInt8
    /// The green channel.
    package var g: UInt8
    /// The blue channel.
    package var b: UInt8

    /// Creates a colour.
    package init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// A saturated colour of `hue` (0..<1), for cell backgrounds.
    package init(hue: Double, saturation: Double = 0.65, value: Double = 0.92) {
        let h = (hue - hue.rounded(.down)) * 6
        let sector = Int(h) % 6
        let f = h - Double(Int(h))
        let p = value * (1 - saturation), q = value * (1 - saturation * f), t = value * (1 - saturation * (1 - f))
        let (r, g, b): (Double, Double, Double)
        switch sector {
        case 0: (r, g, b) = (value, t, p)
        case 1: (r, g, b) = (q, value, p)
        case 2: (r, g, b) = (p, value, t)
        case 3: (r, g, b) = (p, q, value)
        case 4: (r, g, b) = (t, p, value)
        default: (r, g, b) = (value, p, q)
        }
        self.init(r: UInt8(r * 255), g: UInt8(g * 255), b: UInt8(b * 255))
    }

    /// This colour mixed with black: `fraction` 0 keeps it, 1 gives black.
    package func darkened(_ fraction: Double) -> RGB {
        let keep = 1 - min(max(fraction, 0), 1)
        return RGB(r: UInt8(Double(r) * keep), g: UInt8(Double(g) * keep), b: UInt8(Double(b) * keep))
    }
}

/// What a cell shows once its data has loaded: the `DisplayData` of Apple's sample.
///
/// The grid shows ``color``; the list (the tutorial's table view) shows a title from the model
/// and ``thumbnail``, a small image payload.
package struct DisplayData: Hashable, Sendable {
    /// The identifier the data was loaded for.
    package let identifier: UUID
    /// The cell's background colour.
    package let color: RGB
    /// The list row's thumbnail: a strip of pixels.
    package let thumbnail: [RGB]
    /// The thumbnail as the server sent it (empty for the simulated network): what the disk
    /// cache keeps, and what ``init(identifier:payload:)`` decodes the colours from.
    package let payload: Data

    /// The data the simulated server sends for `identifier`; always the same for the same identifier.
    package init(identifier: UUID) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        withUnsafeBytes(of: identifier.uuid) { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x1000_0000_01B3
            }
        }
        self.init(identifier: identifier, hash: hash, payload: Data())
    }

    /// Decodes a thumbnail downloaded for `identifier`: the colours come from the bytes, so
    /// the same payload always looks the same, whichever cache it came from.
    ///
    /// - Complexity: O(n) in the payload's size.
    package init(identifier: UUID, payload: Data) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        payload.withUnsafeBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x1000_0000_01B3
            }
        }
        self.init(identifier: identifier, hash: hash, payload: payload)
    }

    private init(identifier: UUID, hash: UInt64, payload: Data) {
        self.identifier = identifier
        self.payload = payload
        let hue = Double(hash % 3600) / 3600
        color = RGB(hue: hue)
        thumbnail = (0..<8).map { RGB(hue: hue + Double($0) * 0.04, saturation: 0.5 + Double($0 % 3) * 0.15) }
    }
}
