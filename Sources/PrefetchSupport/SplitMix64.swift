/// A small, fast, seedable random number generator (SplitMix64), for jitter and test data that a
/// seed can repeat.
///
/// The same seed gives the same sequence on every platform and in every process, which
/// `SystemRandomNumberGenerator` cannot: retry jitter, simulated latencies, the data server's
/// payloads and the randomized tests all draw from it.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let jitter = random.nextUnitInterval()     // in 0..<1, the same for seed 42 everywhere
/// let pick = Int.random(in: 0..<10, using: &random)
/// ```
@usableFromInline
package struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    @inlinable
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inlinable
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in `0..<1`.
    @inlinable
    package mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
