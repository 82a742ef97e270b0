import ArgumentParser

/// `prefetch-bench`: scores policies (the default `run`), or generates traces (`generate`).
@main
struct PrefetchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch-bench",
        abstract: "Score prefetch policies against clairvoyant references on simulated scrolling.",
        subcommands: [RunCommand.self, GenerateCommand.self],
        defaultSubcommand: RunCommand.self)
}
