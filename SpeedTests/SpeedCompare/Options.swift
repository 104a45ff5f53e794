// Options: SpeedCompare's command line (see main.swift for the whole usage).

import Foundation
import SpeedSupport

struct Options {
    var scale = "1"
    var repetitions = 3
    var directory: String?
    var engines = ["Larder", "SQLite", "GRDB", "TokyoCabinet", "LarderEtcd", "Etcd"]
    /// The scale of the etcd engines' runs (etcd is far slower than a local file); nil: not run.
    var etcdScale: String? = "0.1"
    var durabilities = ["full", "nosync"]
    var out = "SpeedTests"
    var workloads = Set(Workload.allCases)
    /// A README whose speed-summary block is replaced with this run's (ReadmeSummary).
    var readme: String?
}

func usage(_ message: String? = nil) -> Never {
    if let message { FileHandle.standardError.write(Data("SpeedCompare: \(message)\n".utf8)) }
    FileHandle.standardError.write(Data("""
        usage: SpeedCompare [--scale S] [--repeat N] [--dir PATH] [--engines Larder,SQLite,GRDB,TokyoCabinet,LarderEtcd,Etcd]
                            [--durability full,nosync] [--out SpeedTests] [--workloads FullText,...] [--readme README.md]
                            [--etcd-scale S (0.1; 0: no etcd run)]

        """.utf8))
    exit(2)
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = Array(CommandLine.arguments.dropFirst())
    func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        if flag == "--help" || flag == "-h" { usage() }
        guard !arguments.isEmpty else { usage("\(flag) needs a value") }
        let value = arguments.removeFirst()
        switch flag {
        case "--scale":
            guard let scale = Double(value), scale > 0 else { usage("bad --scale \(value)") }
            _ = scale
            options.scale = value
        case "--etcd-scale":
            guard let scale = Double(value), scale >= 0 else { usage("bad --etcd-scale \(value)") }
            options.etcdScale = scale > 0 ? value : nil
        case "--repeat":
            guard let n = Int(value), n > 0 else { usage("bad --repeat \(value)") }
            options.repetitions = n
        case "--dir": options.directory = value
        case "--readme": options.readme = value
        case "--engines":
            options.engines = list(value)
            guard !options.engines.isEmpty else { usage("no engines") }
        case "--durability":
            options.durabilities = list(value)
            guard !options.durabilities.isEmpty, options.durabilities.allSatisfy({ ["full", "nosync"].contains($0) })
            else { usage("bad --durability \(value)") }
        case "--out": options.out = value
        case "--workloads":
            let names = list(value)
            options.workloads = Set(names.compactMap { Workload(rawValue: $0) })
            guard options.workloads.count == names.count, !names.isEmpty else { usage("bad --workloads \(value)") }
        default: usage("unknown option \(flag)")
        }
    }
    return options
}
