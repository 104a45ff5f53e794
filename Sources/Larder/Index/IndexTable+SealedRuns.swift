// IndexTable+SealedRuns: an index table's runs in an encrypted store, stored sealed under run
// numbers and found through the table's RunDirectory (kept by the table's owner: a document
// collection, a class's object index). The same reads and writes as the plaintext table's
// B+tree cursor, over the directory. Every sealed record is [sealedFormat][sealed bytes],
// sealed by the owner's IndexRunSealer under the table's name and the record's key.

/// The sealer and directory of an encrypted store's index table.
package struct SealedRuns: Sendable {
    /// Seals and opens the table's runs and directory.
    package let cipher: any IndexRunSealer
    /// The table's runs; a write updates it (the owner adopts it once the write is applied).
    package var directory: RunDirectory

    package init(cipher: any IndexRunSealer, directory: RunDirectory = RunDirectory()) {
        self.cipher = cipher
        self.directory = directory
    }
}

extension IndexTable {
    /// The directory stored in the table (empty when it has none yet), opened with `sealer`.
    package func readDirectory(with sealer: any IndexRunSealer) throws -> RunDirectory {
        var directory = RunDirectory()
        try storage.readValue(forKey: RunDirectory.key, in: name) { bytes in
            guard let bytes else { return }
            let content = try open(bytes, key: RunDirectory.key, with: sealer)
            directory = try checked { try RunDirectory(decoding: content) }
        }
        return directory
    }

    /// The plaintext of the sealed record `bytes` under `key`; a damaged or moved one is the
    /// owner's error (``corrupt``).
    private func open(_ bytes: UnsafeRawBufferPointer, key: [UInt8], with sealer: any IndexRunSealer) throws -> [UInt8] {
        let format = sealer.sealedFormat
        let content = key.withUnsafeBytes { key in
            bytes.first == format
                ? sealer.open(UnsafeRawBufferPointer(rebasing: bytes[1...]), format: format, scope: name, key: key)
                : nil
        }
        guard let content else { throw corrupt("sealed index record fails authentication") }
        return content
    }

    /// Adds to `batch` the put of `content` sealed under `key`.
    private func putSealed(_ content: [UInt8], forKey key: [UInt8], with sealer: any IndexRunSealer, into batch: inout WriteBatch) throws {
        let format = sealer.sealedFormat
        var value: [UInt8] = [format]
        try content.withUnsafeBytes { content in
            try key.withUnsafeBytes { key in
                try sealer.seal(content, format: format, scope: name, key: key, appendingTo: &value)
            }
        }
        batch.put(value, forKey: key, in: name)
    }

    /// Calls `body` with the first entry and plaintext value of the runs that may hold entries
    /// from `start` through `end`, in order (from the one holding `start` on), or with those
    /// starting at or before `end` in reverse order, until it returns false.
    func forEachSealedRun(_ sealed: SealedRuns, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                          _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let runs = sealed.directory.runs
        var position: Int
        if reverse {
            guard let last = end.map({ sealed.directory.lastPosition(atOrBefore: $0) }) ?? runs.indices.last else { return }
            position = last
        } else {
            position = start.flatMap { sealed.directory.lastPosition(atOrBefore: $0) } ?? 0
        }
        while runs.indices.contains(position) {
            let run = runs[position]
            if !reverse, let end, ByteOrder.less(end, run.first) { return }
            let value = try readRun(run.number, with: sealed.cipher)
            let goesOn = try run.first.withUnsafeBytes { first in try value.withUnsafeBytes { try body(first, $0) } }
            guard goesOn else { return }
            position += reverse ? -1 : 1
        }
    }

    /// The plaintext value of run `number`.
    private func readRun(_ number: UInt64, with sealer: any IndexRunSealer) throws -> [UInt8] {
        let key = RunDirectory.key(ofRun: number)
        var value: [UInt8]?
        try storage.readValue(forKey: key, in: name) { bytes in
            guard let bytes else { throw corrupt("a run of the directory is missing") }
            value = try open(bytes, key: key, with: sealer)
        }
        return value ?? []
    }

    /// The run that holds `key` when it is in the table (the last run starting at or before
    /// it, with its plaintext value), and the first entry of the run after it.
    func sealedRun(holding key: [UInt8], in sealed: SealedRuns) throws -> (key: [UInt8]?, value: [UInt8], next: [UInt8]?) {
        let runs = sealed.directory.runs
        guard let position = sealed.directory.lastPosition(atOrBefore: key) else { return (nil, [], runs.first?.first) }
        let next = position + 1 < runs.count ? runs[position + 1].first : nil
        return (runs[position].first, try readRun(runs[position].number, with: sealed.cipher), next)
    }

    /// Adds to `batch` the removal of every run (and the directory), emptying the directory.
    func removeEverySealedRun(_ sealed: inout SealedRuns, into batch: inout WriteBatch) throws {
        try storage.removeEveryRecord(in: name, into: &batch)
        sealed.directory.runs.removeAll()
    }

    /// Adds to `batch` the sealed puts (and delete) that replace the run starting at `oldKey`
    /// (nil: none, the runs go first) with `runs`, and updates the directory.
    func replaceSealedRun(startingAt oldKey: [UInt8]?, with runs: [(key: [UInt8], value: [UInt8])],
                          in sealed: inout SealedRuns, into batch: inout WriteBatch) throws {
        var position = 0
        var reusable: UInt64?
        if let oldKey, let found = sealed.directory.lastPosition(atOrBefore: oldKey), sealed.directory.runs[found].first == oldKey {
            position = found
            reusable = sealed.directory.runs.remove(at: found).number
        }
        for (offset, run) in runs.enumerated() {
            let number = offset == 0 ? reusable ?? sealed.directory.takeNumber() : sealed.directory.takeNumber()
            try putSealed(run.value, forKey: RunDirectory.key(ofRun: number), with: sealed.cipher, into: &batch)
            sealed.directory.runs.insert(RunDirectory.Run(first: run.key, number: number), at: position + offset)
        }
        if runs.isEmpty, let reusable { batch.removeValue(forKey: RunDirectory.key(ofRun: reusable), in: name) }
    }

    /// Adds to `batch` the put of the directory (its removal when it names no run).
    func writeDirectory(_ sealed: SealedRuns, into batch: inout WriteBatch) throws {
        guard !sealed.directory.runs.isEmpty else { return batch.removeValue(forKey: RunDirectory.key, in: name) }
        try putSealed(sealed.directory.encoded(), forKey: RunDirectory.key, with: sealed.cipher, into: &batch)
    }
}
