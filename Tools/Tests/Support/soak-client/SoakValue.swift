import Foundation
import PrefetchDiskCache
import PrefetchHTTP
import PrefetchKit

/// What the soak's fetcher holds for an item: the thumbnail's bytes as the server sent them and,
/// with `--value-bytes N`, a "decoded bitmap" of N bytes made from them, as an image decoder
/// would: allocated and written in full, so the process's resident memory carries it.
///
/// The bitmap is the thumbnail repeated to N bytes: a cell can check it against the item cheaply
/// (its size and its first and last bytes), and the disk cache keeps only the thumbnail.
struct SoakValue: Sendable, Equatable {
    /// The bytes on the wire and in the disk cache.
    let thumbnail: Data
    /// The decoded value: empty without `--value-bytes`.
    let decoded: [UInt8]

    /// Decodes `thumbnail` into `decodedBytes` bytes (none when `decodedBytes` is `nil`).
    init(thumbnail: Data, decodedBytes: Int?) {
        self.thumbnail = thumbnail
        guard let count = decodedBytes, count > 0 else {
            decoded = []
            return
        }
        guard !thumbnail.isEmpty else {
            decoded = [UInt8](repeating: 0, count: count)
            return
        }
        decoded = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let target = UnsafeMutableRawBufferPointer(buffer)
            thumbnail.withUnsafeBytes { source in
                var offset = 0
                while offset < count {
                    let chunk = min(source.count, count - offset)
                    UnsafeMutableRawBufferPointer(rebasing: target[offset..<(offset + chunk)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<chunk]))
                    offset += chunk
                }
            }
            initialized = count
        }
    }

    /// The memory the value stands for, the fetcher's `cost`: the decoded bytes, or the
    /// thumbnail's when there is no decoded value.
    var cost: Int { decoded.isEmpty ? thumbnail.count : decoded.count }

    /// Whether this is the value of an item whose thumbnail is `expected`, decoded to
    /// `decodedBytes`: the thumbnail byte for byte, the decoded bytes by size and at both ends.
    func matches(_ expected: Data, decodedBytes: Int?) -> Bool {
        guard thumbnail == expected else { return false }
        guard let count = decodedBytes else { return decoded.isEmpty }
        guard count > 0, decoded.count == count, !expected.isEmpty else { return decoded.isEmpty && count <= 0 }
        let head = min(expected.count, count)
        let headMatches = decoded.withUnsafeBytes { d in expected.withUnsafeBytes { e in memcmp(d.baseAddress!, e.baseAddress!, head) == 0 } }
        return headMatches && decoded[count - 1] == expected[expected.startIndex + (count - 1) % expected.count]
    }
}

/// The soak's loader: the thumbnail over HTTP, then decoded.
struct DecodingLoader: DataLoader {
    let http: HTTPLoader<Int>
    let decodedBytes: Int?

    func load(_ id: Int) async throws -> SoakValue {
        SoakValue(thumbnail: try await http.load(id), decodedBytes: decodedBytes)
    }
}

/// The soak's second-level store: the disk cache keeps thumbnails; a hit is decoded again.
struct DecodingStore: DataStore {
    let disk: DiskCache<Int>
    let decodedBytes: Int?

    func value(for key: Int) async throws -> SoakValue? {
        try await disk.value(for: key).map { SoakValue(thumbnail: $0, decodedBytes: decodedBytes) }
    }

    func store(_ value: SoakValue, for key: Int) async throws {
        try await disk.store(value.thumbnail, for: key)
    }

    func removeValue(for key: Int) async throws {
        try await disk.removeValue(for: key)
    }

    func removeAll() async throws {
        try await disk.removeAll()
    }
}
