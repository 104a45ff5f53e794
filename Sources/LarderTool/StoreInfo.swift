// StoreInfo: what `larder info` says about a store: its kind, format, encryption and last change
// sequence number, then its classes (records, rowIDs, sizes, indexes), named buffers and
// document collections (documents, sizes, indexes). Gathered from metadata and file sizes only,
// so it is quick on a store of any size.

import Foundation
import Larder
import LarderDocuments

struct StoreInfo: Encodable {
    struct Class: Encodable {
        struct Index: Encodable {
            var name: String
            var unique: Bool
        }

        var name: String
        var classID: UInt64
        var version: UInt8
        var records: Int
        var deleted: Int
        var nextRowID: UInt64
        /// The size of the class file.
        var fileBytes: Int
        /// The size of its index, full-text index and history files.
        var indexBytes: Int
        var indexes: [Index]
        var textIndex: Bool
        var historyVersions: UInt64
    }

    struct NamedBuffer: Encodable {
        var name: String
        var bytes: Int
    }

    struct Collection: Encodable {
        var name: String
        var documents: Int
        var fileBytes: Int
        var indexBytes: Int
        var indexes: [String]
        var aliases: [String: String]
    }

    var path: String
    var kind: StoreKind
    var encrypted: Bool
    /// The object store's format version (nil for a document store).
    var formatVersion: UInt64?
    /// The sequence number of the object store's last save that changed something.
    var changeSequence: UInt64?
    var totalBytes: Int
    var classes: [Class] = []
    var namedBuffers: [NamedBuffer] = []
    var collections: [Collection] = []

    /// Reads the information of the store `opener` opens.
    init(opening opener: StoreOpener) throws {
        path = opener.path
        kind = try opener.kind()
        totalBytes = opener.directorySize()
        encrypted = false
        let files = (try? FileManager.default.contentsOfDirectory(atPath: opener.path)) ?? []
        if kind.holdsObjects {
            let store = try opener.openObjects()
            defer { try? store.close() }
            encrypted = store.isEncrypted
            formatVersion = try store.storedFormatVersion()
            changeSequence = store.changeSequence
            classes = try store.storedClasses().map { stored in
                // A class's index, full-text and history files are `_<kind>.<Class>.tch` or `.tcb`.
                let indexFiles = files.filter { $0.hasPrefix("_") && ($0.hasSuffix(".\(stored.name).tch") || $0.hasSuffix(".\(stored.name).tcb")) }
                return Class(name: stored.name, classID: stored.classID, version: stored.version, records: stored.recordCount,
                             deleted: stored.deletedCount, nextRowID: stored.nextRowID, fileBytes: opener.fileSize(stored.name + ".tch"),
                             indexBytes: indexFiles.reduce(0) { $0 + opener.fileSize($1) },
                             indexes: stored.indexes.map { Class.Index(name: $0.name, unique: $0.isUnique) },
                             textIndex: stored.hasTextIndex, historyVersions: stored.historyVersionCount)
            }
            namedBuffers = try store.dataBufferNames().map { name in
                NamedBuffer(name: name, bytes: try store.dataBuffer(forName: name)?.bytes.count ?? 0)
            }
        }
        if kind.holdsDocuments {
            let store = try opener.openDocuments()
            defer { try? store.close() }
            encrypted = encrypted || store.isEncrypted
            collections = try store.storedCollectionNames().map { name in
                let collection = try store.collection(name)
                // A collection's index files are `<collection>.<id>.idx.tcb`.
                let indexFiles = files.filter { $0.hasPrefix(name + ".") && $0.hasSuffix(".idx.tcb") }
                return Collection(name: name, documents: try collection.count(), fileBytes: opener.fileSize(name + ".tch"),
                                  indexBytes: indexFiles.reduce(0) { $0 + opener.fileSize($1) },
                                  indexes: try collection.indexes.map(\.description), aliases: try collection.aliases)
            }
        }
    }

    /// The information as tables.
    var rendered: String {
        var text = "store    \(path)\n"
        text += "kind     \(kind.rawValue)\n"
        if let formatVersion { text += "format   \(formatVersion)\n" }
        text += "storage  \(encrypted ? "encrypted (AES-256-GCM)" : "plaintext"), \(ByteCount.readable(totalBytes)) on disk\n"
        if let changeSequence { text += "last change sequence number  \(changeSequence)\n" }
        if kind.holdsObjects {
            var table = TextTable(["class", "records", "deleted", "next rowID", "version", "file", "index files", "indexes",
                                   "full-text", "history"], numeric: [1, 2, 3, 4, 5, 6, 9])
            for info in classes {
                let indexes = info.indexes.map { $0.name + ($0.unique ? " (unique)" : "") }.joined(separator: ", ")
                table.append([info.name, "\(info.records)", "\(info.deleted)", "\(info.nextRowID)", "\(info.version)",
                              ByteCount.readable(info.fileBytes), ByteCount.readable(info.indexBytes),
                              indexes.isEmpty ? "-" : indexes, info.textIndex ? "yes" : "no", "\(info.historyVersions)"])
            }
            text += "\nClasses\n" + table.rendered
            var buffers = TextTable(["named buffer", "bytes"], numeric: [1])
            for buffer in namedBuffers { buffers.append([buffer.name, "\(buffer.bytes)"]) }
            text += "\nNamed buffers\n" + buffers.rendered
        }
        if kind.holdsDocuments {
            var table = TextTable(["collection", "documents", "file", "index files", "indexes", "aliases"], numeric: [1, 2, 3])
            for info in collections {
                let aliases = info.aliases.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
                table.append([info.name, "\(info.documents)", ByteCount.readable(info.fileBytes), ByteCount.readable(info.indexBytes),
                              info.indexes.isEmpty ? "-" : info.indexes.joined(separator: "; "), aliases.isEmpty ? "-" : aliases])
            }
            text += "\nCollections\n" + table.rendered
        }
        return text
    }
}
