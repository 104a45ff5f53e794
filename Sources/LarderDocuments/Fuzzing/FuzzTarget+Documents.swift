// The fuzz targets of LarderDocuments' decoders, listed for the fuzzers (Fuzz/LarderFuzz,
// Tests/FuzzTests), which reach them through `package` access: each target lives in the module
// whose internal decoder it calls.

import Larder

extension FuzzTarget {
    /// The targets of the LarderDocuments module's decoders.
    package static let documentsTargets: [FuzzTarget] = [jsonBinary, documentQuery, jsonText]

    /// Every decoder of untrusted bytes, in both modules.
    package static let all: [FuzzTarget] = larderTargets + documentsTargets
}
