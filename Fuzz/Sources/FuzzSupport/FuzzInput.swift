/// Reads a fuzzer's bytes as a script's values; past the end every read is 0. Each fuzz target
/// adds the readings its script needs (numbers at the edges, times that move on) in an extension.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    /// Copies the fuzzer's input.
    public init(_ buffer: UnsafeRawBufferPointer) { bytes = Array(buffer) }

    /// Whether every byte was read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next eight bytes, big-endian.
    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    /// The next byte's lowest bit.
    public mutating func bool() -> Bool { byte() & 1 == 1 }
}
