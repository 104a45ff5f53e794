// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Larder",
    products: [
        .library(name: "Larder", targets: ["Larder"]),
        .library(name: "LarderDocuments", targets: ["LarderDocuments"]),
        // Only for the power-loss test: loaded into the crash worker with LD_PRELOAD.
        .library(name: "PowerCut", type: .dynamic, targets: ["PowerCut"]),
    ],
    dependencies: [
        // Only for GRDBSpeedTest: the Larder library itself has no package dependency.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CTokyoCabinet",
            pkgConfig: "tokyocabinet",
            providers: [.apt(["libtokyocabinet-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Larder's own C: CRC-32 folded with carry-less multiplication.
        .target(name: "CChecksum"),
        .target(name: "CPrefetch"),
        .target(
            name: "Larder",
            dependencies: ["CTokyoCabinet", "COpenSSL", "CChecksum", "CPrefetch"]
        ),
        .target(
            name: "LarderDocuments",
            dependencies: ["Larder"]
        ),
        .testTarget(
            name: "LarderDocumentsTests",
            // The crash worker is a dependency so that `swift test` builds it: the crash test
            // runs it as a child process.
            dependencies: ["LarderDocuments", "LarderDocumentsCrashWorker", "SpeedSupport"]
        ),
        .executableTarget(
            name: "LarderDocumentsCrashWorker",
            dependencies: ["LarderDocuments"],
            path: "Tests/LarderDocumentsCrashWorker"
        ),
        .executableTarget(
            name: "LarderCrashWorker",
            dependencies: ["Larder"],
            path: "Tests/LarderCrashWorker"
        ),
        // The power-loss test's interposer of libc's file functions (Tests/PowerCut/PowerCut.c).
        .target(
            name: "PowerCut",
            path: "Tests/PowerCut",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .testTarget(
            name: "LarderTests",
            // The executables are dependencies so that `swift test` builds them: the tests run
            // them as child processes.
            // zlib is the reference the checksum tests compare Larder's CRC-32 with.
            dependencies: ["Larder", "CZlib", "LarderCrashWorker", "LarderSpeedTest", "SQLiteSpeedTest", "GRDBSpeedTest",
                           "TokyoCabinetSpeedTest", "SpeedCompare", "SpeedSupport"]
        ),

        // Speed tests: Larder against SQLite (C API) and GRDB on the same workloads.
        .target(name: "SpeedSupport", path: "SpeedTests/SpeedSupport"),
        .systemLibrary(
            name: "CSQLite",
            path: "SpeedTests/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "LarderSpeedTest",
            dependencies: ["Larder", "LarderDocuments", "SpeedSupport"],
            path: "SpeedTests/LarderSpeedTest"
        ),
        .executableTarget(
            name: "SQLiteSpeedTest",
            dependencies: ["CSQLite", "SpeedSupport"],
            path: "SpeedTests/SQLiteSpeedTest"
        ),
        .executableTarget(
            name: "GRDBSpeedTest",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "SpeedSupport"],
            path: "SpeedTests/GRDBSpeedTest"
        ),
        .executableTarget(
            name: "TokyoCabinetSpeedTest",
            dependencies: ["CTokyoCabinet", "SpeedSupport"],
            path: "SpeedTests/TokyoCabinetSpeedTest"
        ),
        .executableTarget(
            name: "SpeedCompare",
            dependencies: ["SpeedSupport"],
            path: "SpeedTests/SpeedCompare"
        ),

        // Fuzzing of every decoder of untrusted bytes: the targets live in Larder and
        // LarderDocuments (Sources/*/Fuzzing); `make fuzz` runs LarderFuzz long, the FuzzTests
        // run each target briefly and replay Tests/FuzzCorpus.
        .target(
            name: "FuzzSupport",
            dependencies: ["Larder", "LarderDocuments", "SpeedSupport"],
            path: "Fuzz/FuzzSupport"
        ),
        .executableTarget(
            name: "LarderFuzz",
            dependencies: ["FuzzSupport", "Larder", "LarderDocuments"],
            path: "Fuzz/LarderFuzz"
        ),
        .testTarget(
            name: "FuzzTests",
            dependencies: ["FuzzSupport", "Larder", "LarderDocuments"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
