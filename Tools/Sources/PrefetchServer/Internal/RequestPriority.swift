/// A request's priority as RFC 9218 signals it in the `Priority` request header: an urgency from 0
/// (most urgent) to 7, and whether the response is useful piece by piece (incremental).
///
/// The header is a Structured Field Dictionary (RFC 8941), such as `u=1, i`. Reading it is
/// lenient, as RFC 9218 asks: a missing header, one that is not a valid dictionary, a `u` that is
/// not an integer from 0 to 7 or an `i` that is not a boolean leave the default in its place
/// (urgency 3, not incremental), and other members and parameters are ignored. A bad header is
/// never an error to the client.
struct RequestPriority: Sendable, Hashable {
    /// The urgencies RFC 9218 defines: 0 (most urgent) to 7.
    static let urgencies = 0...7
    /// The urgency of a request that signals none.
    static let defaultUrgency = 3
    /// The priority of a request that signals none: urgency 3, not incremental.
    static let `default` = RequestPriority(urgency: defaultUrgency, incremental: false)

    /// From 0 (most urgent) to 7.
    let urgency: Int
    /// Whether the client can use the response as it arrives (RFC 9218's `i`); the server's shaper
    /// does not use it.
    let incremental: Bool

    /// A priority; an urgency outside 0...7 becomes the default, 3.
    init(urgency: Int, incremental: Bool = false) {
        self.urgency = Self.urgencies.contains(urgency) ? urgency : Self.defaultUrgency
        self.incremental = incremental
    }

    /// The priority that the `Priority` header's field lines signal (several lines are one
    /// dictionary, joined by commas, as HTTP combines them); ``default`` when there are none or
    /// they are not a valid dictionary.
    init(fieldLines: [String]) {
        guard !fieldLines.isEmpty, let members = StructuredDictionary.parse(fieldLines.joined(separator: ", ")) else {
            self = .default
            return
        }
        var urgency = Self.defaultUrgency
        if case .integer(let u) = members["u"], Self.urgencies.contains(u) { urgency = u }
        var incremental = false
        if case .boolean(let i) = members["i"] { incremental = i }
        self.init(urgency: urgency, incremental: incremental)
    }

    /// The priority of one `Priority` header value, or ``default`` for `nil`.
    init(field: String?) {
        self.init(fieldLines: field.map { [$0] } ?? [])
    }
}

/// RFC 8941's parser of a Dictionary field, keeping of each member only what RFC 9218 reads: an
/// integer or a boolean value (members without a value are `true`); parameters are checked and dropped.
enum StructuredDictionary {
    /// A member's value, as far as the priority needs it.
    enum Value: Hashable {
        case integer(Int)
        case boolean(Bool)
        /// A decimal, string, token, byte sequence or inner list.
        case other
    }

    /// The members of `field` by key (a repeated key keeps its last value), or nil when `field` is
    /// not a valid dictionary.
    static func parse(_ field: String) -> [String: Value]? {
        var parser = Parser(Array(field.utf8))
        return parser.dictionary()
    }

    /// A cursor over the field's bytes; every method returns nil (or false) where the field breaks the grammar.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard next == byte else { return false }
            index += 1
            return true
        }

        mutating func skip(_ allowed: Set<UInt8>) {
            while let byte = next, allowed.contains(byte) { index += 1 }
        }

        static let space: UInt8 = 0x20
        static let ows: Set<UInt8> = [0x20, 0x09]

        /// RFC 8941 §4.2 and §4.2.2: surrounding spaces allowed, members separated by commas with
        /// optional whitespace, no trailing comma.
        mutating func dictionary() -> [String: Value]? {
            skip([Self.space])
            var members: [String: Value] = [:]
            while next != nil {
                guard let key = key() else { return nil }
                if consume(UInt8(ascii: "=")) {
                    guard let value = itemOrInnerList() else { return nil }
                    members[key] = value
                } else {
                    guard parameters() else { return nil }
                    members[key] = .boolean(true)
                }
                skip(Self.ows)
                if next == nil { break }
                guard consume(UInt8(ascii: ",")) else { return nil }
                skip(Self.ows)
                if next == nil { return nil }   // a trailing comma
            }
            return members
        }

        /// `lcalpha / "*"`, then `lcalpha / DIGIT / "_" / "-" / "." / "*"`.
        mutating func key() -> String? {
            guard let first = next, Self.isLowercase(first) || first == UInt8(ascii: "*") else { return nil }
            let start = index
            while let byte = next, Self.isLowercase(byte) || Self.isDigit(byte) || "_-.*".utf8.contains(byte) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func itemOrInnerList() -> Value? {
            guard consume(UInt8(ascii: "(")) else {
                guard let value = bareItem(), parameters() else { return nil }
                return value
            }
            while true {
                skip([Self.space])
                if consume(UInt8(ascii: ")")) { return parameters() ? .other : nil }
                guard bareItem() != nil, parameters() else { return nil }
                guard next == Self.space || next == UInt8(ascii: ")") else { return nil }
            }
        }

        /// `*( ";" *SP key [ "=" bare-item ] )`.
        mutating func parameters() -> Bool {
            while consume(UInt8(ascii: ";")) {
                skip([Self.space])
                guard key() != nil else { return false }
                if consume(UInt8(ascii: "=")), bareItem() == nil { return false }
            }
            return true
        }

        mutating func bareItem() -> Value? {
            guard let first = next else { return nil }
            switch first {
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "\""): return string() ? .other : nil
            case UInt8(ascii: ":"): return byteSequence() ? .other : nil
            case UInt8(ascii: "?"):
                index += 1
                if consume(UInt8(ascii: "1")) { return .boolean(true) }
                if consume(UInt8(ascii: "0")) { return .boolean(false) }
                return nil
            case _ where Self.isAlpha(first) || first == UInt8(ascii: "*"):
                while let byte = next, Self.isTokenCharacter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") { index += 1 }
                return .other
            default: return nil
            }
        }

        /// An integer of at most 15 digits, or a decimal of at most 12 digits, a point and 1 to 3 digits.
        mutating func number() -> Value? {
            let negative = consume(UInt8(ascii: "-"))
            var integer = 0
            var digits = 0
            while let byte = next, Self.isDigit(byte) {
                digits += 1
                guard digits <= 15 else { return nil }
                integer = integer * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            guard digits > 0 else { return nil }
            guard consume(UInt8(ascii: ".")) else { return .integer(negative ? -integer : integer) }
            guard digits <= 12 else { return nil }
            var fraction = 0
            while let byte = next, Self.isDigit(byte) {
                fraction += 1
                index += 1
            }
            return (1...3).contains(fraction) ? .other : nil
        }

        /// `DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE`, printable ASCII only.
        mutating func string() -> Bool {
            index += 1
            while let byte = next {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let escaped = next, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else { return false }
                    index += 1
                case 0x20...0x7E: continue
                default: return false
                }
            }
            return false
        }

        /// `":" *(base64) ":"`.
        mutating func byteSequence() -> Bool {
            index += 1
            while let byte = next, Self.isAlpha(byte) || Self.isDigit(byte) || "+/=".utf8.contains(byte) { index += 1 }
            return consume(UInt8(ascii: ":"))
        }

        static func isLowercase(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        static func isAlpha(_ byte: UInt8) -> Bool { isLowercase(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        /// RFC 9110's `tchar`.
        static func isTokenCharacter(_ byte: UInt8) -> Bool {
            isAlpha(byte) || isDigit(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
