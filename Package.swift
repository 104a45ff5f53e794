// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Larder",
    products: [
        .library(name: "Larder", targets: ["Larder"]),
        .library(name: "LarderDocuments", targets: ["LarderDocuments"]),
        // The @StoredModel macro; re-exports Larder, so `import LarderModel` is enough.
        .library(name: "LarderModel", targets: ["LarderModel"]),
        // A Backend on an etcd cluster (its v3 JSON gateway over async-http-client): the only
        // product that brings a networking dependency.
        .library(name: "LarderEtcd", targets: ["LarderEtcd"]),
        // Only for the power-loss test: loaded into the crash worker with LD_PRELOAD.
        .library(name: "PowerCut", type: .dynamic, targets: ["PowerCut"]),
        // The seeded generator the tests and the speed-test package (SpeedTests/) share.
        .library(name: "LarderTestSupport", targets: ["LarderTestSupport"]),
        // The 3-member etcd cluster on loopback the tests start; the speed tests (SpeedTests/)
        // start one for their etcd engines.
        .library(name: "EtcdTestSupport", targets: ["EtcdTestSupport"]),
        // The command-line tool: inspect and maintain a store from the shell (docs/TOOL.md).
        .executable(name: "larder", targets: ["LarderTool"]),
    ],
    // Larder and LarderDocuments depend on no package; LarderEtcd on async-http-client (and its
    // swift-nio-ssl). The
    // `larder` tool uses swift-argument-parser, and the @StoredModel macro's implementation
    // (LarderModelMacros, a compiler plug-in) swift-syntax. A package that depends on the Larder
    // or LarderDocuments product resolves them (SwiftPM resolves every dependency of a package)
    // but builds none of them. The speed tests, with GRDB,
    // are a package of their own (SpeedTests/Package.swift).
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph through async-http-client: LarderEtcd names it for its TLS
        // configuration (trusted authorities, client certificates).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
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
        // @StoredModel: the macro's implementation (a compiler plug-in on swift-syntax) and the
        // library that declares it.
        .macro(
            name: "LarderModelMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "LarderModel",
            dependencies: ["Larder", "LarderModelMacros"]
        ),
        .testTarget(
            name: "LarderModelTests",
            dependencies: [
                "LarderModel", "LarderModelMacros", "LarderTestSupport",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "LarderDocuments",
            dependencies: ["Larder"]
        ),
        .target(
            name: "LarderEtcd",
            dependencies: ["Larder", "CZlib", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl")]
        ),
        // The 3-node etcd cluster the tests start on loopback (Debian's etcd-server): Foundation only.
        .target(name: "EtcdTestSupport", path: "Tests/EtcdSupport"),
        .testTarget(
            name: "LarderEtcdTests",
            // The worker is a dependency so that `swift test` builds it: the client-process
            // tests run it as a child process.
            dependencies: ["LarderEtcd", "EtcdTestSupport", "LarderDocuments", "LarderTestSupport", "LarderEtcdWorker"]
        ),
        .executableTarget(
            name: "LarderEtcdWorker",
            dependencies: ["Larder", "LarderEtcd"],
            path: "Tests/LarderEtcdWorker"
        ),
        .testTarget(
            name: "LarderDocumentsTests",
            // The crash worker is a dependency so that `swift test` builds it: the crash test
            // runs it as a child process.
            dependencies: ["LarderDocuments", "LarderDocumentsCrashWorker", "LarderTestSupport", "LarderEtcd", "EtcdTestSupport"]
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
        .executableTarget(
            name: "LarderTool",
            dependencies: ["Larder", "LarderDocuments",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "LarderToolTests",
            // The tool is a dependency so that `swift test` builds it: the tests run the built
            // `larder` binary as a child process, as a user would.
            dependencies: ["Larder", "LarderDocuments", "LarderModel", "LarderTool"]
        ),
        .testTarget(
            name: "LarderTests",
            // The crash worker is a dependency so that `swift test` builds it: the tests run it
            // as a child process. zlib is the reference the checksum tests compare Larder's
            // CRC-32 with.
            // The suites chosen to run on the etcd test cluster as well need LarderEtcd.
            dependencies: ["Larder", "CZlib", "LarderCrashWorker", "LarderTestSupport", "LarderEtcd", "EtcdTestSupport"]
        ),
        .target(name: "LarderTestSupport", path: "Tests/Support"),

        // Fuzzing of every decoder of untrusted bytes: the targets live in Larder and
        // LarderDocuments (Sources/*/Fuzzing); `make fuzz` runs LarderFuzz long, the FuzzTests
        // run each target briefly and replay Tests/FuzzCorpus.
        .target(
            name: "FuzzSupport",
            dependencies: ["Larder", "LarderDocuments", "LarderTestSupport"],
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
