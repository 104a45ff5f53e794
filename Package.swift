// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Larder",
    products: [
        .library(name: "Larder", targets: ["Larder"]),
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
        .target(
            name: "Larder",
            dependencies: ["CTokyoCabinet", "CZlib"]
        ),
        .executableTarget(
            name: "LarderCrashWorker",
            dependencies: ["Larder"],
            path: "Tests/LarderCrashWorker"
        ),
        .testTarget(
            name: "LarderTests",
            dependencies: ["Larder", "LarderCrashWorker"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
