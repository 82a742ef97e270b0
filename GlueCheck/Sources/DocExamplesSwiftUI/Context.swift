// What the SwiftUI examples of the documentation take as given: the app's one fetcher. `run`
// writes each example beside this file, into Generated/ (Checks/doc-examples); nothing here runs.
import Foundation
import PrefetchKit

enum Thumbnails {
    static let fetcher = try! AsyncFetcher<Int, Data> { id in Data("\(id)".utf8) }
}
