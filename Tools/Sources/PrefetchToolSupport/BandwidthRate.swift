import ArgumentParser
import Foundation

/// A rate of bytes per second as `--server-bandwidth` takes it: a whole number of bytes per second
/// (`125000`), or a number of bits per second with `bit`, `kbit`, `mbit` or `gbit` (`500kbit`,
/// `1mbit`, `2.5gbit`; powers of 1,000, as network links are quoted).
///
/// `prefetch-server` and `prefetch-demo --serve` parse it with the same rules, and their errors
/// name the flag, the value and the rule.
///
/// ```
/// prefetch-server --server-bandwidth 10mbit            # 1,250,000 bytes/s, "10 Mbit/s"
/// prefetch-demo --serve --server-bandwidth 500kbit
/// ```
public struct BandwidthRate: Sendable, Hashable, CustomStringConvertible {
    /// Bytes per second.
    public let bytesPerSecond: Int

    /// The accepted rates, in bytes per second: 8 kbit/s to 100 Gbit/s.
    public static let limits = 1_000...12_500_000_000

    /// The rule, for errors and help.
    public static let rule = "a whole number of bytes per second (125000) or a number of bits per second with kbit, mbit or gbit (500kbit, 1mbit, 2.5gbit), from 8kbit (1000 bytes/s) to 100gbit"

    /// A rate of `bytesPerSecond`, which must be within ``limits``.
    ///
    /// - Throws: `ValidationError` naming the value and the accepted range.
    public init(bytesPerSecond: Int, flag: String = "--server-bandwidth") throws {
        guard Self.limits.contains(bytesPerSecond) else {
            throw ValidationError("\(flag) must be from 8kbit (1000 bytes/s) to 100gbit (12500000000 bytes/s); got \(bytesPerSecond) bytes/s")
        }
        self.bytesPerSecond = bytesPerSecond
    }

    /// Parses `text` for `flag` (named in the errors).
    ///
    /// - Throws: `ValidationError` naming the flag, the text and the rule broken.
    public static func parse(_ text: String, flag: String = "--server-bandwidth") throws -> BandwidthRate {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(digits.count)
        let bitsPer: Double? = switch unit {
        case "": nil
        case "bit": 1
        case "kbit": 1e3
        case "mbit": 1e6
        case "gbit": 1e9
        default: -1
        }
        guard bitsPer != -1, let number = Double(digits), number.isFinite, bitsPer != nil || Int(digits) != nil else {
            throw ValidationError("\(flag) takes a rate: \(rule); got '\(text)'")
        }
        let bytes = bitsPer.map { number * $0 / 8 } ?? number
        guard bytes.rounded() >= Double(limits.lowerBound), bytes.rounded() <= Double(limits.upperBound) else {
            throw ValidationError("\(flag) must be from 8kbit (1000 bytes/s) to 100gbit (12500000000 bytes/s); got '\(text)' (\(LatencyOptions.format(bytes.rounded())) bytes/s)")
        }
        return try BandwidthRate(bytesPerSecond: Int(bytes.rounded()), flag: flag)
    }

    /// The rate in bits per second, with the largest unit it reaches: `1 Mbit/s`, `500 kbit/s`, `2.5 Gbit/s`.
    public var description: String {
        let bits = Double(bytesPerSecond) * 8
        let (value, unit) = bits >= 1e9 ? (bits / 1e9, "Gbit/s") : bits >= 1e6 ? (bits / 1e6, "Mbit/s") : (bits / 1e3, "kbit/s")
        let rounded = (value * 100).rounded() / 100
        return "\(LatencyOptions.format(rounded)) \(unit)"
    }
}
