// TokyoCabinetSpeedTest: the ceiling. Raw Tokyo Cabinet put/get/iterate loops on records
// serialized before the clock starts, with the tuning Larder uses (HDBTLARGE, the same bucket
// count and mmap size, one transaction around the inserts, tchdbputasync for new records). Larder's time divided by this one
// is the cost of the Swift layer. Runs SimpleInsert, SimpleFetch, SimpleFetchStreaming and
// PointRead; other workloads are not meaningful without objects and exit 0 with no result.

import CTokyoCabinetRaw
import Foundation
import SpeedSupport

let arguments = SpeedArguments.parse(engine: "TokyoCabinet")
let reporter = SpeedReporter(engine: "TokyoCabinet", arguments: arguments)
let sizes = arguments.sizes
let path = (arguments.directory as NSString).appendingPathComponent("simple.tch")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("TokyoCabinetSpeedTest: \(message)\n".utf8))
    exit(1)
}

func open(writer: Bool) -> UnsafeMutablePointer<TCHDB> {
    guard let hdb = tchdbnew() else { fail("tchdbnew") }
    _ = tchdbtune(hdb, 262_139, -1, -1, UInt8(HDBTLARGE))
    _ = tchdbsetxmsiz(hdb, 256 << 20)
    let mode = writer ? Int32(HDBOWRITER | HDBOCREAT | HDBOLCKNB) : Int32(HDBOREADER | HDBOLCKNB)
    guard tchdbopen(hdb, path, mode) else { fail("open: \(String(cString: tchdberrmsg(tchdbecode(hdb))))") }
    return hdb
}

func close(_ hdb: UnsafeMutablePointer<TCHDB>) {
    _ = tchdbclose(hdb)
    tchdbdel(hdb)
}

/// A record as Larder writes a Song: format, version, varint-prefixed title, seconds, CRC.
func record(seconds: UInt32) -> [UInt8] {
    var bytes: [UInt8] = [0x02, 0x01, 9]
    bytes.append(contentsOf: Array("Test Song".utf8))
    withUnsafeBytes(of: seconds.littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: [0, 0, 0, 0])
    return bytes
}

func key(_ rowID: UInt64) -> UInt64 { rowID.bigEndian }

switch arguments.workload {
case .simpleInsert:
    try? FileManager.default.createDirectory(atPath: arguments.directory, withIntermediateDirectories: true)
    let records = (1 ... sizes.simpleSongs).map { record(seconds: UInt32($0)) }
    reporter.measure(phase: "insert", storePath: path) {
        let hdb = open(writer: true)
        // Larder stores new records with tchdbputasync; TC_PLAIN_PUT=1 measures tchdbput instead.
        let useAsync = ProcessInfo.processInfo.environment["TC_PLAIN_PUT"] == nil
        guard tchdbtranbegin(hdb) else { fail("tranbegin") }
        for (index, value) in records.enumerated() {
            var k = key(UInt64(index + 1))
            let ok = value.withUnsafeBytes { v in
                useAsync
                    ? tchdbputasync(hdb, &k, 8, v.baseAddress, Int32(v.count))
                    : tchdbput(hdb, &k, 8, v.baseAddress, Int32(v.count))
            }
            if !ok { fail("put") }
        }
        guard tchdbtrancommit(hdb) else { fail("trancommit") }
        if arguments.durability == "full" { _ = tchdbsync(hdb) }
        let count = Int(tchdbrnum(hdb))
        close(hdb)
        return (count, "Test Song")
    }
case .simpleFetch, .simpleFetchStreaming:
    reporter.measure(phase: "fetch", storePath: path) {
        let hdb = open(writer: false)
        final class Sink { var count = 0; var bytes = 0 }
        let sink = Sink()
        _ = tchdbforeach(hdb, { _, _, _, valueSize, context in
            guard let context else { return false }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.count += 1
            sink.bytes += Int(valueSize)
            return true
        }, Unmanaged.passUnretained(sink).toOpaque())
        close(hdb)
        return (sink.count, "bytes_\(sink.bytes)")
    }
case .pointRead:
    let keys = pointReadKeys(count: sizes.pointReads, max: sizes.simpleSongs)
    for phase in ["autocommit", "transaction"] {
        reporter.measure(phase: phase, storePath: path) {
            let hdb = open(writer: false)
            var found = 0
            var buffer = [UInt8](repeating: 0, count: 256)
            for rowID in keys {
                var k = key(UInt64(rowID))
                let size = buffer.withUnsafeMutableBytes { tchdbget3(hdb, &k, 8, $0.baseAddress, 256) }
                if size > 0 { found += 1 }
            }
            close(hdb)
            return (found, "found")
        }
    }
default:
    break
}
