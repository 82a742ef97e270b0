import PrefetchKit

/// The lab's names for the library's policies: what `--policy` takes, what reports and help texts
/// list. An app chooses its policy in code (``PrefetchPolicies``), so the registry lives here.
extension PrefetchPolicies {
    /// The built-in policies with their defaults, by the names users type: `none`, `uikitLike`,
    /// `textureLike`, `adaptive`, in that order.
    ///
    /// Command-line parsers, help texts and reports read this list, so a policy added here shows
    /// up everywhere.
    public static let all: [any PrefetchPolicy] = [none, uikitLike, textureLike, adaptive]

    /// The names of the built-in policies, in order: `none`, `uikitLike`, `textureLike`, `adaptive`.
    public static var names: [String] { all.map(\.name) }

    /// The built-in policy called `name`, with its defaults.
    ///
    /// ```swift
    /// let policy = try PrefetchPolicies.named("adaptive")
    /// ```
    /// - Throws: `PrefetchError` with code `invalidArgument` naming the
    ///   unknown name and the known ones.
    public static func named(_ name: String) throws -> any PrefetchPolicy {
        guard let policy = all.first(where: { $0.name == name }) else {
            throw PrefetchError(
                .invalidArgument,
                "unknown prefetch policy '\(name)'; expected one of \(names.joined(separator: ", "))")
        }
        return policy
    }
}
