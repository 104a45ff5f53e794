// IndexRunSealer: how an encrypted store's index table (IndexTable+SealedRuns) seals its runs
// and its RunDirectory, for the index engine that object indexes and document collections
// share. A sealed record is stored as
//
//   [sealedFormat][what seal appends]
//
// and seal and open bind the plaintext to sealedFormat, the scope (the index table's name) and
// the record's key (a run's number, "directory"), so a record copied under another key or into
// another table fails to open. A document store's DocumentCipher is one (sealedFormat
// DocumentRecord.encryptedFormat, 0x03); an object store wraps its RecordCipher in one.

/// Seals and opens the records of an encrypted index table.
///
/// ```swift
/// table.sealedRuns = SealedRuns(cipher: sealer, directory: try table.readDirectory(with: sealer))
/// ```
package protocol IndexRunSealer: Sendable {
    /// The byte stored before every sealed record of the table, and bound into its seal
    /// (`format` of ``seal(_:format:scope:key:appendingTo:)`` and ``open(_:format:scope:key:)``).
    var sealedFormat: UInt8 { get }

    /// Appends `plaintext` sealed to `output`, bound to `format`, `scope` and `key`.
    func seal(_ plaintext: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws

    /// The plaintext of `sealed` (the bytes after the format byte), or nil when it is damaged
    /// or was sealed with another key or for another format, scope or key.
    func open(_ sealed: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer) -> [UInt8]?
}

extension IndexRunSealer {
    /// 0x03 unless a sealer says otherwise: the encrypted format byte of Larder's record
    /// envelopes and of a document store's records.
    package var sealedFormat: UInt8 { 0x03 }
}

extension RecordCipher {
    /// Appends `plaintext` sealed (nonce, ciphertext, tag) to `output`, bound to `format`,
    /// `scope` and `key` (associated data `[format][scope, UTF-8][0x00][key]`): how both
    /// sealers of index runs (and a document store's records) seal.
    ///
    /// ```swift
    /// try cipher.seal(run, format: 0x03, scope: "_index1.Song", key: runKey, appendingTo: &value)
    /// ```
    package func seal(_ plaintext: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer,
                      appendingTo output: inout [UInt8]) throws {
        let associatedData = Self.associatedData(format: format, scope: scope, key: key)
        do {
            try associatedData.withUnsafeBytes { try seal(plaintext, authenticating: $0, appendingTo: &output) }
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    /// The plaintext of `sealed`, or nil when it is damaged or was sealed with another key or
    /// for another format, scope or key.
    ///
    /// ```swift
    /// let run = cipher.open(sealed, format: 0x03, scope: "_index1.Song", key: runKey)
    /// ```
    package func open(_ sealed: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer) -> [UInt8]? {
        let associatedData = Self.associatedData(format: format, scope: scope, key: key)
        return associatedData.withUnsafeBytes { try? open(sealed, authenticating: $0) }
    }

    private static func associatedData(format: UInt8, scope: String, key: UnsafeRawBufferPointer) -> [UInt8] {
        var data: [UInt8] = [format]
        data.reserveCapacity(2 + scope.utf8.count + key.count)
        data.append(contentsOf: scope.utf8)
        data.append(0)
        data.append(contentsOf: key)
        return data
    }
}
