// BackendKind: the backends a test that does not look at files runs against, in the core and
// the documents suites alike (each suite's Support makes its store for a kind).

/// A backend a parameterized test runs against.
///
/// ```swift
/// @Test(arguments: BackendKind.allCases) func savesAndReads(_ backend: BackendKind) throws { ... }
/// ```
public enum BackendKind: String, CaseIterable, Sendable {
    case tokyoCabinet
    case memory
}
