// swift-tools-version: 6.1
// An app's view of PrefetchKit: depends on the library by path and uses the products an app
// takes. `Checks/consumer-check` resolves it and fails if it pins anything but swift-collections
// and GRDB.swift, then builds it with every Swift example of the documentation (`DocExamples`,
// written from README.md, the DocC catalogs and the `///` comments by `Checks/doc-examples`).
import PackageDescription

let library = ["PrefetchKit", "PrefetchTesting", "PrefetchHTTP", "PrefetchDiskCache", "PrefetchFeed"]

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "PrefetchKit", path: "../..")],
    targets: [
        .target(
            name: "Consumer",
            dependencies: [
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchUIKit", package: "PrefetchKit"),
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "DocExamples",
            dependencies: library.map { .product(name: $0, package: "PrefetchKit") },
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
