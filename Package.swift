// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "PrefetchKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "PrefetchKit", targets: ["PrefetchKit"]),
        .library(name: "PrefetchTesting", targets: ["PrefetchTesting"]),
        .library(name: "PrefetchCollectionView", targets: ["PrefetchCollectionView"]),
        .library(name: "PrefetchSimulation", targets: ["PrefetchSimulation"]),
        .executable(name: "prefetch-demo", targets: ["prefetch-demo"]),
        .executable(name: "prefetch-bench", targets: ["prefetch-bench"]),
        .library(name: "PrefetchHTTP", targets: ["PrefetchHTTP"]),
        .library(name: "PrefetchDiskCache", targets: ["PrefetchDiskCache"]),
        .library(name: "PrefetchFeed", targets: ["PrefetchFeed"]),
        .library(name: "PrefetchServer", targets: ["PrefetchServer"]),
        .executable(name: "prefetch-server", targets: ["prefetch-server"]),
        // Apple glue (issue #13): compiled only where UIKit / SwiftUI exist; empty on Linux.
        .library(name: "PrefetchUIKit", targets: ["PrefetchUIKit"]),
        .library(name: "PrefetchSwiftUI", targets: ["PrefetchSwiftUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
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
                "PrefetchKit", "PrefetchCollectionView", "PrefetchTesting",
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-bench",
            dependencies: [
                "PrefetchSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchDemoKit",
            dependencies: [
                "PrefetchKit", "PrefetchCollectionView", "PrefetchSimulation", "PrefetchTesting",
                // Real I/O for --source/--serve: URLSession and SQLite, never NIO or Hummingbird
                // (the server runs as a child process, `prefetch-server`).
                "PrefetchHTTP", "PrefetchDiskCache", "PrefetchFeed",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-demo",
            dependencies: [
                "PrefetchDemoKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
            name: "PrefetchDemoTests",
            dependencies: [
                "PrefetchDemoKit", "prefetch-demo", "PrefetchKit", "PrefetchCollectionView",
                // Built first so `prefetch-demo --serve` finds it next to itself.
                "prefetch-server", "IOTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSimulationTests",
            dependencies: ["PrefetchSimulation", "PrefetchKit", "PrefetchCollectionView", "PrefetchTesting", "prefetch-bench"],
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
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchFeed",
            dependencies: ["PrefetchKit", "PrefetchHTTP"],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchServer",
            dependencies: [
                "PrefetchSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-server",
            dependencies: [
                "PrefetchServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "IOTestSupport",
            dependencies: ["PrefetchKit"],
            path: "Tests/Support/IOTestSupport",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "disk-cache-crasher",
            dependencies: ["PrefetchDiskCache", "PrefetchKit", "IOTestSupport"],
            path: "Tests/Support/disk-cache-crasher",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "soak-client",
            dependencies: [
                "PrefetchCollectionView", "PrefetchDiskCache", "PrefetchFeed", "PrefetchHTTP", "PrefetchKit", "IOTestSupport",
                "PrefetchDemoKit",
            ],
            path: "Tests/Support/soak-client",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSoakTests",
            dependencies: ["IOTestSupport", "soak-client", "prefetch-server"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchHTTPTests",
            dependencies: [
                "PrefetchHTTP", "PrefetchServer", "PrefetchKit", "PrefetchTesting", "IOTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchDiskCacheTests",
            dependencies: [
                "PrefetchDiskCache", "PrefetchKit", "PrefetchTesting", "IOTestSupport", "disk-cache-crasher",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchFeedTests",
            dependencies: ["PrefetchFeed", "PrefetchServer", "PrefetchKit", "PrefetchTesting", "IOTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchServerTests",
            dependencies: ["PrefetchServer", "IOTestSupport", "prefetch-server"],
            swiftSettings: strict
        ),
    ]
)
