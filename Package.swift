// swift-tools-version: 6.1
import PackageDescription

// The library an app depends on. Its products resolve swift-collections and, for
// PrefetchDiskCache only, GRDB.swift: nothing else. The demo, the bench, the data server and the
// tests that need them live in the tools package beside this one (Tools/Package.swift), so an app
// never resolves NIO, Hummingbird, swift-log or swift-argument-parser. `Checks/consumer-check`
// keeps it that way.

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "PrefetchKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "PrefetchKit", targets: ["PrefetchKit"]),
        .library(name: "PrefetchTesting", targets: ["PrefetchTesting"]),
        .library(name: "PrefetchCollectionView", targets: ["PrefetchCollectionView"]),
        .library(name: "PrefetchSimulation", targets: ["PrefetchSimulation"]),
        .library(name: "PrefetchHTTP", targets: ["PrefetchHTTP"]),
        .library(name: "PrefetchDiskCache", targets: ["PrefetchDiskCache"]),
        .library(name: "PrefetchFeed", targets: ["PrefetchFeed"]),
        // Apple glue (issue #13): compiled only where UIKit / SwiftUI exist; empty on Linux.
        .library(name: "PrefetchUIKit", targets: ["PrefetchUIKit"]),
        .library(name: "PrefetchSwiftUI", targets: ["PrefetchSwiftUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The audited lock and the seeded generator: no dependencies, `package` access only.
        .target(
            name: "PrefetchSupport",
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchKit",
            dependencies: ["PrefetchSupport", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchTesting",
            dependencies: ["PrefetchKit"],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchCollectionView",
            dependencies: ["PrefetchKit"],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchSimulation",
            dependencies: [
                "PrefetchKit", "PrefetchCollectionView", "PrefetchTesting", "PrefetchSupport",
            ],
            swiftSettings: strict
        ),
        // MARK: Apple adapters (issue #13): thin glue over PrefetchKit's ScrollAdapter.
        // Every source is wrapped in `#if canImport(UIKit)` / `#if canImport(SwiftUI)`, so on
        // Linux (and in this package's CI) they compile to nothing.
        .target(
            name: "PrefetchUIKit",
            dependencies: ["PrefetchKit"],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchSwiftUI",
            dependencies: ["PrefetchKit"],
            swiftSettings: strict
        ),

        // MARK: Real I/O (issue #5): optional modules above the core.
        .target(
            name: "PrefetchHTTP",
            dependencies: ["PrefetchKit"],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchDiskCache",
            dependencies: [
                "PrefetchKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchFeed",
            dependencies: ["PrefetchKit", "PrefetchHTTP"],
            swiftSettings: strict
        ),

        // MARK: Tests that need nothing heavy. The ones that run the server, the demo, the bench
        // or child processes are in Tools/Package.swift.
        .testTarget(
            name: "PrefetchKitTests",
            dependencies: ["PrefetchKit", "PrefetchTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchCollectionViewTests",
            dependencies: ["PrefetchCollectionView", "PrefetchKit", "PrefetchTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSimulationTests",
            dependencies: ["PrefetchSimulation", "PrefetchKit", "PrefetchCollectionView", "PrefetchTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchHTTPTests",
            dependencies: ["PrefetchHTTP"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchDiskCacheTests",
            dependencies: [
                "PrefetchDiskCache", "PrefetchKit", "PrefetchTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchGlueTests",
            dependencies: ["PrefetchUIKit", "PrefetchSwiftUI", "PrefetchKit", "PrefetchTesting"],
            swiftSettings: strict
        ),
    ]
)
