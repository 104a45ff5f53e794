// swift-tools-version:6.0
// The speed tests: Larder against SQLite (through its C API), GRDB and raw Tokyo Cabinet on the
// same workloads, each engine an executable, SpeedCompare running them all (`make speed`).
// A package of its own, so that Larder's package depends on nothing: this one brings GRDB and
// SQLite, and depends on Larder by path.
import PackageDescription

let package = Package(
    name: "LarderSpeedTests",
    dependencies: [
        .package(name: "Larder", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The raw etcd client of the etcd engines (EtcdRawClient), on the HTTP client LarderEtcd uses.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .target(
            name: "SpeedSupport",
            dependencies: [.product(name: "LarderTestSupport", package: "Larder")],
            path: "SpeedSupport"
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CTokyoCabinetRaw",
            path: "CTokyoCabinetRaw",
            pkgConfig: "tokyocabinet",
            providers: [.apt(["libtokyocabinet-dev"])]
        ),
        .executableTarget(
            name: "LarderSpeedTest",
            dependencies: [.product(name: "Larder", package: "Larder"), .product(name: "LarderDocuments", package: "Larder"),
                           .product(name: "LarderModel", package: "Larder"), .product(name: "LarderEtcd", package: "Larder"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"), "SpeedSupport"],
            path: "LarderSpeedTest"
        ),
        .executableTarget(
            name: "SQLiteSpeedTest",
            dependencies: ["CSQLite", "SpeedSupport"],
            path: "SQLiteSpeedTest"
        ),
        .executableTarget(
            name: "GRDBSpeedTest",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "SpeedSupport"],
            path: "GRDBSpeedTest"
        ),
        .executableTarget(
            name: "TokyoCabinetSpeedTest",
            dependencies: ["CTokyoCabinetRaw", "SpeedSupport"],
            path: "TokyoCabinetSpeedTest"
        ),
        .executableTarget(
            name: "SpeedCompare",
            dependencies: ["SpeedSupport", .product(name: "EtcdTestSupport", package: "Larder")],
            path: "SpeedCompare"
        ),
        // Runs every engine's executable at a tiny scale (`make test` runs it too): a broken
        // benchmark is caught by CI, not by the next `make speed`.
        .testTarget(
            name: "SpeedSmokeTests",
            dependencies: ["LarderSpeedTest", "SQLiteSpeedTest", "GRDBSpeedTest", "TokyoCabinetSpeedTest", "SpeedCompare",
                           // The interchange round trips over the stores the Larder workloads make.
                           .product(name: "Larder", package: "Larder"), .product(name: "LarderDocuments", package: "Larder"),
                           // The etcd engines run on the test cluster.
                           .product(name: "EtcdTestSupport", package: "Larder")],
            path: "Tests/SpeedSmokeTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
