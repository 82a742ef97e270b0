// swift-tools-version: 6.1
// Builds PrefetchUIKit and PrefetchSwiftUI from their real sources on Linux, against stand-in UIKit,
// SwiftUI, Network, CoreGraphics and ImageIO modules that declare exactly the Apple API the glue and
// the documentation's examples touch. The library's sources come in through the symbolic links under
// Sources/; `./run` copies the examples in and builds.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "GlueCheck",
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Stand-ins for Apple's frameworks.
        .target(name: "UIKit", dependencies: ["CoreGraphics"], swiftSettings: strict),
        .target(name: "SwiftUI", swiftSettings: strict),
        .target(name: "Network", swiftSettings: strict),
        .target(name: "CoreGraphics", swiftSettings: strict),
        .target(name: "ImageIO", dependencies: ["CoreGraphics"], swiftSettings: strict),
        // The library, from the repository's Sources/ (symbolic links).
        .target(name: "PrefetchSupport", swiftSettings: strict),
        .target(name: "PrefetchKit", dependencies: ["PrefetchSupport", .product(name: "HeapModule", package: "swift-collections")],
                swiftSettings: strict),
        .target(name: "PrefetchUIKit", dependencies: ["PrefetchKit", "UIKit", "Network"], swiftSettings: strict),
        .target(name: "PrefetchSwiftUI", dependencies: ["PrefetchKit", "SwiftUI"], swiftSettings: strict),
        // The clock and loaders apps' own tests use (the SwiftUI examples drive a list on a ManualClock).
        .target(name: "PrefetchTesting", dependencies: ["PrefetchKit"], swiftSettings: strict),
        // The I/O modules the image recipes load with.
        .target(name: "PrefetchHTTP", dependencies: ["PrefetchKit"], swiftSettings: strict),
        .target(name: "PrefetchDiskCache", dependencies: ["PrefetchKit", .product(name: "GRDB", package: "GRDB.swift")],
                swiftSettings: strict),
        // The stand-ins' ImageIO, CoreGraphics and UIImage signatures, pinned (compiled against Apple's SDK too).
        .target(name: "StandInSignatures", dependencies: ["ImageIO", "UIKit"], swiftSettings: strict),
        // The README's UIKit and SwiftUI examples, copied in verbatim by ./run.
        .target(name: "ReadmeUIKitExample", dependencies: ["PrefetchKit", "PrefetchUIKit", "UIKit"], swiftSettings: strict),
        .target(name: "ReadmeSwiftUIExample", dependencies: ["PrefetchKit", "PrefetchSwiftUI", "SwiftUI"], swiftSettings: strict),
        // The cell and view controller of the PrefetchUIKit article "Showing a preview first", copied in by ./run.
        .target(name: "PreviewCellExample", dependencies: ["PrefetchKit", "PrefetchUIKit", "UIKit"], swiftSettings: strict),
        // Every other UIKit and SwiftUI example of the documentation, written in by ./run
        // (Checks/doc-examples) beside a Context.swift of the names they take as given.
        .target(name: "DocExamplesUIKit", dependencies: ["PrefetchKit", "PrefetchUIKit", "UIKit", "ImageIO", "PrefetchHTTP",
                                                         "PrefetchDiskCache"], swiftSettings: strict),
        .target(name: "DocExamplesSwiftUI", dependencies: ["PrefetchKit", "PrefetchSwiftUI", "PrefetchTesting", "SwiftUI"], swiftSettings: strict),
        // The real bindings driven through the stand-ins' observers.
        // ...the README's UIKit view controller, shown in a stand-in window, and the preview recipe's cell.
        .testTarget(name: "GlueCheckTests", dependencies: ["PrefetchKit", "PrefetchUIKit", "UIKit", "Network", "ReadmeUIKitExample",
                                                           "PreviewCellExample"],
                    swiftSettings: strict),
    ]
)
