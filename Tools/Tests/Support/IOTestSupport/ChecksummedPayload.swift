import Foundation

/// A value that carries its own length and checksum, so a reader can tell a complete value from a torn one.
///
/// Layout: 8 bytes payload length (big-endian), 8 bytes FNV-1a 64 checksum of the payload (big-endian), payload.
public enum ChecksummedPayload {
    /// FNV-1a, 64 bits.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Wraps `payload` with its length and checksum.
    public static func encode(_ payload: Data) -> Data {
        var out = Data(capacity: payload.count + 16)
        withUnsafeBytes(of: UInt64(payload.count).bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: checksum(payload).bigEndian) { out.append(contentsOf: $0) }
        out.append(payload)
        return out
    }

    /// Whether `value` is a complete encoded payload: the length and the checksum match.
    public static func isComplete(_ value: Data) -> Bool {
        let bytes = [UInt8](value)
        guard bytes.count >= 16 else { return false }
        let length = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let sum = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length == UInt64(bytes.count - 16) else { return false }
        return checksum(bytes[16...]) == sum
    }

    /// A deterministic payload of `count` bytes for `seed`.
    public static func payload(count: Int, seed: UInt64) -> Data {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var out = Data(count: count)
        for i in 0..<count {
            state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            out[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return out
    }
}
