import Foundation

/// The command line of `soak-client`: three positional arguments, an optional seed, and the
/// options of issue #27's memory budget, checked with an error that names the value and the rule.
///
///     soak-client <prefetch-server> <work directory> <seconds> [seed] [--value-bytes N] [--memory-budget-mb M]
struct SoakOptions: Equatable {
    /// The usage line printed with every error.
    static let usage = "usage: soak-client <prefetch-server> <work directory> <seconds> [seed] [--value-bytes N] [--memory-budget-mb M]"
    /// The largest decoded value `--value-bytes` accepts (16 MiB: a 2048 × 2048 RGBA bitmap).
    static let maxValueBytes = 16 << 20
    /// The largest budget `--memory-budget-mb` accepts.
    static let maxBudgetMiB = 4_096

    var server: URL
    var directory: URL
    var seconds: Double
    var seed: UInt64 = 7
    /// The bytes of the decoded value each loaded thumbnail becomes, or `nil` to keep the thumbnail
    /// itself as the value (the soak before issue #27).
    var valueBytes: Int?
    /// `FetcherConfiguration.memoryBudget` in MiB, or `nil` for no budget.
    var memoryBudgetMiB: Int?

    /// The budget in bytes, as `FetcherConfiguration.memoryBudget` takes it.
    var memoryBudgetBytes: Int? { memoryBudgetMiB.map { $0 << 20 } }

    /// Parses `arguments` (without the program's name).
    /// - Throws: ``SoakError`` naming the bad argument and the rule it breaks.
    init(arguments: [String]) throws {
        var positional: [String] = []
        var valueBytes: Int?, budget: Int?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            guard let value = rest.popFirst() else { throw SoakError("\(argument) needs a value") }
            switch argument {
            case "--value-bytes":
                guard let n = Int(value), (1...Self.maxValueBytes).contains(n) else {
                    throw SoakError("--value-bytes must be a whole number of bytes from 1 to \(Self.maxValueBytes), got \"\(value)\"")
                }
                valueBytes = n
            case "--memory-budget-mb":
                guard let n = Int(value), (1...Self.maxBudgetMiB).contains(n) else {
                    throw SoakError("--memory-budget-mb must be a whole number of MiB from 1 to \(Self.maxBudgetMiB), got \"\(value)\"")
                }
                budget = n
            default:
                throw SoakError("unknown option \(argument) (known: --value-bytes, --memory-budget-mb)")
            }
        }
        guard (3...4).contains(positional.count) else {
            throw SoakError("expected 3 or 4 arguments before the options, got \(positional.count)")
        }
        guard let seconds = Double(positional[2]), seconds.isFinite, seconds > 0 else {
            throw SoakError("<seconds> must be a number above 0, got \"\(positional[2])\"")
        }
        server = URL(fileURLWithPath: positional[0])
        directory = URL(fileURLWithPath: positional[1])
        self.seconds = seconds
        if positional.count == 4 {
            guard let seed = UInt64(positional[3]) else {
                throw SoakError("[seed] must be a whole number from 0 to \(UInt64.max), got \"\(positional[3])\"")
            }
            self.seed = seed
        }
        self.valueBytes = valueBytes
        self.memoryBudgetMiB = budget
    }
}
