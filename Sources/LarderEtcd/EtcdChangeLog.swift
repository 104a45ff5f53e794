// EtcdChangeLog: what an EtcdBackend's watch has seen of its prefix since the backend's pinned
// revision, kept for the backend's next refresh, and the feed of other clients' saves.
//
// The watch (its own task) hands in updates; the backend (its store's thread) asks, when it moves
// from revision `old` to `new`, which table keys changed in between. The watch follows the save
// key alone: every save rewrites it, and its record (EtcdSaveRecord) names the table keys the
// save writes or deletes, a staged commit's included (those its roll-forward copies after the
// publish). So the answer is exact once the watch has delivered the save key's last put at `new`,
// `lastSave`; until then the backend waits (up to a timeout: the watch may be down). History the
// watch lost in between, a save whose record does not name its keys, or more changed keys than
// the log keeps, make the answer "unknown".
//
// Own saves. The backend's own applies move its pinned revision past their own changes (between
// the revision it read at and the one its apply made, no other client can change a table: that
// is what the save key's comparison refuses), so they are never reported as changes. For the feed
// of other clients' saves, a save key put is the backend's own when it falls in one of its applies
// (`after ..< through`); one that arrives while an apply is in flight waits for its outcome.

import Foundation

/// The watch's record of a prefix's changes, shared by the watch's task and the backend.
final class EtcdChangeLog: @unchecked Sendable {
    // @unchecked: every mutable field is used under `condition`.

    private let layout: EtcdKeyLayout
    private let condition = NSCondition()
    private let remoteSaves: AsyncStream<Int64>.Continuation
    /// The most changed keys kept between two refreshes; past it, the changes are unknown.
    private let keyLimit: Int

    /// The backend's pinned revision: changes at or before it are known to it.
    private var floor: Int64 = 0
    /// Every change at or before this revision has been delivered by the watch (or lost).
    private var delivered: Int64 = 0
    /// Changes at or before this revision (and after `floor`) may be missing: history lost.
    private var unknownThrough: Int64 = 0
    /// Table keys changed after `floor`, with the revision of each change, in revision order.
    private var changes: [(revision: Int64, key: [UInt8])] = []
    /// The revision the backend's apply in flight read at, if one is.
    private var ownSaveReadAt: Int64?
    /// The revision ranges `(after, through]` of the backend's own finished applies whose save
    /// key puts may still come.
    private var ownSaves: [(after: Int64, through: Int64)] = []
    /// Save key puts that arrived while an apply was in flight.
    private var undecidedSaves: [Int64] = []

    init(layout: EtcdKeyLayout, keyLimit: Int = 1 << 20, remoteSaves: AsyncStream<Int64>.Continuation) {
        self.layout = layout
        self.keyLimit = keyLimit
        self.remoteSaves = remoteSaves
    }

    // MARK: From the watch

    /// Takes in an update of the watch.
    func receive(_ update: EtcdWatchUpdate) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        switch update {
        case let .events(events):
            for event in events { take(event) }
            if let last = events.last { delivered = max(delivered, last.revision) }
        case let .historyLost(_, through):
            unknownThrough = max(unknownThrough, through)
            delivered = max(delivered, through)
            // Other clients' saves may be among them too: say that something was saved.
            remoteSaves.yield(through)
        case .watching, .interrupted:
            break
        }
    }

    private func take(_ event: EtcdWatchEvent) {
        guard event.key == layout.saveKey else { return }
        guard event.kind == .put else {
            // The save key deleted (the prefix cleared): anything may have changed.
            unknownThrough = max(unknownThrough, event.revision)
            return
        }
        classifySave(at: event.revision)
        guard event.revision > floor else { return }
        guard let keys = EtcdSaveRecord(decoding: event.value ?? []).changedKeys else {
            unknownThrough = max(unknownThrough, event.revision)
            return
        }
        if changes.count + keys.count > keyLimit {
            unknownThrough = max(unknownThrough, event.revision)
            changes.removeAll()
            return
        }
        for key in keys where layout.table(ofKey: key) != nil {
            changes.append((event.revision, key))
        }
    }

    private func classifySave(at revision: Int64) {
        if ownSaves.contains(where: { $0.after < revision && revision <= $0.through }) { return }
        if let readAt = ownSaveReadAt, revision > readAt {
            undecidedSaves.append(revision)
            return
        }
        remoteSaves.yield(revision)
    }

    // MARK: From the backend

    /// The backend is about to apply a batch read at `revision`.
    func ownSaveBegins(readAt revision: Int64) {
        condition.lock()
        defer { condition.unlock() }
        ownSaveReadAt = revision
    }

    /// The backend's apply ended: it made the revisions up to `through` (nil: it failed, or its
    /// outcome is unknown; saves that came meanwhile are then taken for other clients').
    func ownSaveEnds(through: Int64?) {
        condition.lock()
        defer { condition.unlock() }
        guard let readAt = ownSaveReadAt else { return }
        ownSaveReadAt = nil
        if let through { ownSaves.append((readAt, through)) }
        let waiting = undecidedSaves
        undecidedSaves = []
        for revision in waiting { classifySave(at: revision) }
        // A range whose revisions were all delivered has classified every save in it.
        ownSaves.removeAll { $0.through <= delivered }
    }

    /// The backend pinned `revision` without asking what changed (its own save, or its cache
    /// emptied): changes up to it are no longer wanted.
    func pinned(_ revision: Int64) {
        condition.lock()
        defer { condition.unlock() }
        forget(through: revision)
    }

    /// The full keys of table records other clients changed after `old` up to `new`, whose save
    /// key's last put at `new` is at `lastSave`: waits up to `timeout` seconds for the watch to
    /// deliver them. Nil when they cannot be known (history lost, the watch late or down). Either
    /// way the backend pins `new`.
    func changedKeys(after old: Int64, through new: Int64, lastSave: Int64, timeout: Double) -> Set<[UInt8]>? {
        condition.lock()
        defer { condition.unlock() }
        defer { forget(through: new) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while delivered < lastSave {
            if unknownThrough > old { return nil }
            if !condition.wait(until: deadline) { return nil }
        }
        if unknownThrough > old { return nil }
        var keys = Set<[UInt8]>()
        for change in changes where change.revision > old && change.revision <= new {
            keys.insert(change.key)
        }
        return keys
    }

    /// Ends the feed of other clients' saves.
    func close() {
        remoteSaves.finish()
    }

    private func forget(through revision: Int64) {
        floor = max(floor, revision)
        // In revision order: the ones to forget come first.
        let kept = changes.firstIndex { $0.revision > floor } ?? changes.count
        changes.removeFirst(kept)
    }
}
