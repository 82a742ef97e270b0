// What the examples of the tools' documentation take as given: a loader and a server
// configuration. `Checks/doc-examples --tools` writes each example beside this file, into
// Generated/; .ci/run builds them. Nothing here runs.
import Foundation
import PrefetchHTTP
import PrefetchServer

let loader = try! HTTPLoader<Int> { id in URL(string: "http://127.0.0.1:8080/thumb/\(id)")! }
let configuration = ServerConfiguration()
