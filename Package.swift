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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "PrefetchKit",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")],
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
                "PrefetchKit", "PrefetchCollectionView",
                .product(name: "HeapModule", package: "swift-collections"),
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
                "PrefetchKit", "PrefetchCollectionView", "PrefetchSimulation",
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
            dependencies: ["PrefetchDemoKit", "prefetch-demo", "PrefetchKit", "PrefetchCollectionView"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSimulationTests",
            dependencies: ["PrefetchSimulation", "PrefetchKit"],
            swiftSettings: strict
        ),
    ]
)
