// The interchange at scale, small: the crash worker makes a store of 20,000 objects, exports it,
// imports it into an empty store and exports that again, each step in a child process reporting
// its peak memory; the exports are the same bytes and no interchange step goes over 200 MB.
// `make interchange-scale` runs the same steps on 1,000,000 objects in a release build
// (INTERCHANGE_SCALE_OBJECTS here runs another count).

import Foundation
import Testing

@Suite struct InterchangeScaleTests {
    @Test func exportAndImportKeepMemoryFlatAndTheFileExact() throws {
        let count = ProcessInfo.processInfo.environment["INTERCHANGE_SCALE_OBJECTS"].flatMap { Int($0) } ?? 20_000
        let directory = TemporaryDirectory("interchange-scale")
        let output = try Worker.run(["interchange-scale", directory.path, String(count), "200"], timeout: 1_800)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.last == "ok", "\(output)")
        for step in ["populate", "export", "import", "export again"] {
            #expect(lines.contains { $0.hasPrefix(step + ": peak ") }, "\(step) missing from \(output)")
        }
        #expect(lines.contains { $0.hasPrefix("file: ") && $0.hasSuffix("\(count) objects made, \(count / 97) deleted") }, "\(output)")
        print(output)
    }
}
