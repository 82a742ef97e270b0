// swift-tools-version: 6.1
import PackageDescription

// The product: the libraries an app depends on. They resolve swift-collections and, for
// PrefetchDiskCache only, GRDB.swift: nothing else. Everything we build, measure and show them with
// (the headless collection and table views, the simulator and its peers, the bench, the demo, the
// data server and their tests) is the lab, the package in Tools/ beside this one, which sees only
// this package's public API. `Checks/consumer-check` keeps an app's graph this small.

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
            dependencies: ["PrefetchKit"],
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
