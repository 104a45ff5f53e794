// ExitStatus: the status each failure ends `larder` with (sysexits.h where one fits), Larder's
// errors included, and the one-line message it writes for it. docs/TOOL.md lists them.

import ArgumentParser
import Larder
import LarderDocuments

/// The exit statuses of `larder`, after sysexits.h where one fits.
enum ExitStatus {
    /// `verify` found problems.
    static let unhealthy: Int32 = 1
    /// A bad argument, query or search expression.
    static let usage: Int32 = 64
    /// The store is damaged (or in a format this Larder does not read).
    static let damaged: Int32 = 65
    /// The file to import is not valid interchange text (EX_DATAERR, as a damaged store: bad
    /// data, where 64 is a bad command line).
    static let invalidInput: Int32 = 65
    /// No store at the path, or no such class, collection or record; no file to import.
    static let notFound: Int32 = 66
    /// Anything else.
    static let failure: Int32 = 70
    /// The import target is not empty (EX_CANTCREAT: the output cannot be made there).
    static let targetNotEmpty: Int32 = 73
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
            case .notAStore, .noSuchClass, .noSuchCollection, .noRecord, .noTextIndex, .unreadableFile: return notFound
            case .passphraseUnavailable, .emptyPassphrase, .passphrasesDiffer: return passphrase
            case .collectionRequired, .encryptingExistingStore: return usage
            case .mixedStore: return failure
            }
        case let error as InterchangeInputError: return of(error.error)
        case let error as InterchangeError:
            switch error {
            case .targetNotEmpty: return targetNotEmpty
            case .fileFailure: return ioFailure
            default: return invalidInput
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
            case .invalidCollectionName: return usage
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
        case let InterchangeError.targetNotEmpty(reason):
            return "cannot import into \(path): it is not empty (\(reason)); import into a new path or an empty store"
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
