import Foundation
import PrefetchSimulation

/// libFuzzer entry point: any bytes as a trace file, through the public reader only (the format
/// may grow; the target keeps working as long as `TraceFile.parse` exists). It must either
/// return a scenario or throw a `SimulationError`: a crash or a trap is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        _ = try TraceFile.parse(data, fileName: "fuzz.json")
    } catch is SimulationError {
        // A clear error is the expected outcome for most inputs.
    } catch {
        fatalError("TraceFile.parse threw something other than SimulationError: \(error)")
    }
    return 0
}
