// TokyoCabinetError: Tokyo Cabinet's error codes turned into BackendError, the same way for every
// kind of database file (the codes and their messages are common to all of them).

import CTokyoCabinet

/// The mapping of Tokyo Cabinet error codes to ``BackendError``.
internal enum TokyoCabinetError {
    /// Tokyo Cabinet's message for `code`.
    static func message(_ code: Int32) -> String {
        String(cString: tcerrmsg(code))
    }

    /// A failed `operation` on the file at `path`.
    static func failure(_ operation: String, path: String, code: Int32) -> BackendError {
        .ioFailure(path: path, operation: operation, reason: message(code))
    }

    /// Why the file at `path` could not be opened: held by another process, already open in
    /// this one, not a database file, or something else.
    static func openError(code: Int32, path: String) -> BackendError {
        switch code {
        case Int32(TCELOCK): return .locked(path: path)
        case Int32(TCETHREAD): return .alreadyOpenInThisProcess(path: path)
        case Int32(TCEMETA), Int32(TCERHEAD), Int32(TCEREAD), Int32(TCEMMAP):
            return .notAStoreFile(path: path)
        default: return .cannotOpen(path: path, reason: message(code))
        }
    }
}
