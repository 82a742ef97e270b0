/// An error from the simulator: a bad scenario, trace or parameter, named with the rule it broke.
public struct SimulationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Where in the input the problem is, such as `trace.json: samples[3][1]`; empty when not from a file.
    public let path: String
    /// What is wrong, naming the value and the rule.
    public let message: String

    /// Creates an error.
    init(path: String = "", _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or the message alone.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
