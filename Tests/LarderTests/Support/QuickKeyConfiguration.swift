// QuickKeyConfiguration: the configuration encryption tests open stores with: few PBKDF2
// iterations (the default, 210,000, is checked on its own), so that each open takes no time.

@testable import Larder

extension Store.Configuration {
    /// A configuration with `key` and 1,000 key-derivation iterations (read-only with `readOnly`).
    static func quickKey(_ key: String?, readOnly: Bool = false) -> Store.Configuration {
        var configuration = Store.Configuration(encryptionKey: key)
        configuration.keyDerivationIterations = 1_000
        configuration.readOnly = readOnly
        return configuration
    }
}
