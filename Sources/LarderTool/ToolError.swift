// ToolError: what the tool itself refuses (a path that is not a store, a class or collection the
// store does not have, a passphrase it cannot get), and ExitStatus: the status each failure
// ends the process with, Larder's errors included. docs/TOOL.md lists them.

import ArgumentParser
import Foundation
import Larder
import LarderDocuments

enum ToolError: Error, CustomStringConvertible {
    case notAStore(path: String, reason: String)
    case noSuchClass(String, available: [String])
    case noSuchCollection(String, available: [String])
    case noRecord(class: String, rowID: UInt64)
    case noTextIndex(class: String)
    case passphraseUnavailable(variable: String)
    case emptyPassphrase(source: String)
    case passphrasesDiffer
    case mixedStore(operation: String)

    var description: String {
        switch self {
        case let .notAStore(path, reason): return "\(path) is not a Larder store: \(reason)"
        case let .noSuchClass(name, available):
            return "the store has no class \(name)" + Self.list(available, "classes")
        case let .noSuchCollection(name, available):
            return "the store has no collection \(name)" + Self.list(available, "collections")
        case let .noRecord(name, rowID): return "\(name) \(rowID) has no record"
        case let .noTextIndex(name): return "the store keeps no full-text index of \(name)"
        case let .passphraseUnavailable(variable):
            return "the store is encrypted: set \(variable), or run on a terminal to be asked for the passphrase"
        case let .emptyPassphrase(source): return "the passphrase from \(source) is empty"
        case .passphrasesDiffer: return "the two new passphrases differ: nothing was changed"
        case let .mixedStore(operation):
            return "the store holds both objects and documents: \(operation) them with Store and DocumentStore instead"
        }
    }

    private static func list(_ names: [String], _ what: String) -> String {
        names.isEmpty ? " (it has none)" : " (\(what): \(names.joined(separator: ", ")))"
    }
}

/// The exit statuses of `larder`, after sysexits.h where one fits.
enum ExitStatus {
    /// `verify` found problems.
    static let unhealthy: Int32 = 1
    /// A bad argument, query or search expression.
    static let usage: Int32 = 64
    /// The store is damaged (or in a format this Larder does not read).
    static let damaged: Int32 = 65
    /// No store at the path, or no such class, collection or record.
    static let notFound: Int32 = 66
    /// Anything else.
    static let failure: Int32 = 70
    /// Reading or writing a file failed.
    static let ioFailure: Int32 = 74
    /// Another process holds the store (or a save it began must be finished by a writer).
    static let locked: Int32 = 75
    /// The store is encrypted and the passphrase is missing or wrong.
    static let passphrase: Int32 = 77

    /// The status `error` ends the process with.
    static func of(_ error: any Error) -> Int32 {
        switch error {
        case let error as ToolError:
            switch error {
            case .notAStore, .noSuchClass, .noSuchCollection, .noRecord, .noTextIndex: return notFound
            case .passphraseUnavailable, .emptyPassphrase, .passphrasesDiffer: return passphrase
            case .mixedStore: return failure
            }
        case let error as BackendError:
            switch error {
            case .locked, .needsRecovery: return locked
            case .notAStoreFile: return damaged
            case .notADirectory, .cannotOpen: return notFound
            case .ioFailure: return ioFailure
            default: return failure
            }
        case let error as StoreError:
            switch error {
            case .encryptionKeyRequired, .wrongEncryptionKey: return passphrase
            case .classNotRegistered: return notFound
            case .unsupportedFormat, .corruptMetadata, .missingRecords, .missingRecord, .corruptRecord, .undecodableRecord,
                 .corruptNamedBuffer, .corruptTextIndex, .corruptIndex, .corruptChangeLog, .corruptHistory,
                 .tamperedEncryptionSettings, .unknownClassID, .rowIDsExhausted:
                return damaged
            default: return failure
            }
        case let error as DocumentError:
            switch error {
            case .corruptDocument, .corruptIndex, .corruptMetadata, .unsupportedFormat, .identifiersExhausted: return damaged
            default: return failure
            }
        case is QueryError, is SearchQueryError: return usage
        default: return failure
        }
    }

    /// The sentence `larder` writes to standard error for `error`.
    static func message(for error: any Error, path: String) -> String {
        switch error {
        case BackendError.locked:
            return "\(path) is locked: another process has it open for writing (or, for a command that writes, at all); "
                + "try again when it closes the store, or give --wait SECONDS"
        case StoreError.wrongEncryptionKey: return "wrong passphrase for \(path)"
        case StoreError.encryptionKeyRequired:
            return ToolError.passphraseUnavailable(variable: Passphrase.environmentVariable).description
        case let error as StoreError where of(error) == damaged:
            return "\(path) is damaged: \(error) (larder verify \(path) lists every problem)"
        case let error as DocumentError where of(error) == damaged:
            return "\(path) is damaged: \(error) (larder verify \(path) lists every problem)"
        case let error as BackendError where of(error) == damaged:
            return "\(path) is not a Larder store, or is damaged: \(error)"
        default: return "\(error)"
        }
    }
}

/// Runs `body`; an error it throws is written to standard error as `larder: <message>` and ends
/// the process with its ``ExitStatus``.
func reportingFailure(path: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        StandardError.write("larder: \(ExitStatus.message(for: error, path: path))\n")
        throw ExitCode(ExitStatus.of(error))
    }
}

/// Standard error, written unbuffered.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal.
    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
