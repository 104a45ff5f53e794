// BackendRefresh: what Backend.refreshToNewestState() found when it moved a shared backend's
// reads to the newest state of its storage: nothing new, or other clients' saves (with the keys
// they wrote or deleted, when the backend knows them).

/// What moving a backend's reads to the newest state of its storage changed.
///
/// ```swift
/// switch try backend.refreshToNewestState() {
/// case .unchanged: break
/// case .changed(let keys): print(keys?["Song"]?.count ?? "some keys of any table")
/// }
/// ```
public enum BackendRefresh: Equatable, Sendable {
    /// Nobody else saved since the backend's reads were last moved.
    case unchanged
    /// Other clients saved. `keys`: the keys written or deleted, by table, when the backend
    /// knows them; nil when it does not (any record may have changed).
    case changed(keys: [String: Set<[UInt8]>]?)
}
