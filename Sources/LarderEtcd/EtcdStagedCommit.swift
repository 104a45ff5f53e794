// EtcdStagedCommit: a batch too big for one etcd transaction, applied all or nothing for every
// reader (docs/ARCHITECTURE.md, "The etcd backend"):
//
// 1. Stage: the batch's writes but the first transaction's worth, encoded in chunks
//    (EtcdStagedChunk), are put under <prefix>/s/<id>/, where no reader looks, one transaction
//    each; all but the last when the last fits the publishing transaction
//    (EtcdStagedCommitPlan). A client killed here leaves garbage only.
// 2. Publish: one transaction puts the commit record <prefix>/c/<id>, rewrites the save key
//    <prefix>/v, puts the chunk not staged beforehand and writes the first writes into the tables
//    (those not staged), if chunk 0 is still there when it was staged beforehand (no clean-up
//    removed the staging), no other commit is published, and no other client saved since the
//    revision this client reads at (the save key unchanged since). From this revision on the
//    batch is committed; the first writes, which every reader must see with the rest, cost no
//    staging and no copy.
// 3. Roll forward: the staged writes go into the tables in transactions that each fit the limits, each
//    on condition that the commit record still exists (so a finisher that lost a race to another
//    never writes after the commit is done).
// 4. Finish: one transaction deletes the commit record and the staging.
//
// Readers pin a revision. One at a revision before 2 sees none of the batch; whoever moves to a
// revision that holds a commit record (opening a backend, refreshing, a save whose transaction
// found one) first rolls that commit forward and finishes it, then reads at the revision after
// it: so nobody reads the tables while a published commit is half copied. Opening also removes the
// staging of commits never published (step 1's garbage) once it is older than a grace period, so
// that it does not take the staging of another client that is still writing it.

import Foundation

/// Where a staged commit stops, to simulate a client killed in the middle (tests only).
package enum StagedCommitInterruption: Sendable, Equatable {
    /// After every chunk is staged, before the publishing transaction.
    case afterStaging
    /// After the publishing transaction (which wrote the writes not staged), before any staged
    /// write reaches the tables.
    case afterPublishing
    /// After this many roll-forward transactions.
    case afterRollingForward(transactions: Int)
}

/// The error a staged commit stopped by a ``StagedCommitInterruption`` throws (tests only).
package struct StagedCommitInterrupted: Error, Equatable {
    package let id: String
}

/// The staged-commit protocol of one store's keys.
struct EtcdStagedCommit {
    let client: EtcdClient
    let layout: EtcdKeyLayout
    let limits: EtcdLimits

    /// Applies `writes` as a staged commit, unless another client saved after `readRevision`
    /// (`BackendError.conflict`), and returns the revision after it is finished.
    /// The commit's id is `id` (``newID()``), which `saveRecord`, the save key's new value, marks.
    func commit(_ writes: [EtcdWrite], id: String, saveRecord: [UInt8], readRevision: Int64,
                stoppingAt interruption: StagedCommitInterruption?, losingFirstReply: Bool = false) throws -> Int64 {
        let plan = EtcdStagedCommitPlan(writes, limits: limits, chunkKeySize: layout.chunkKey(id, index: 0).count,
                                        saveRecordSize: saveRecord.count)
        for index in 0 ..< plan.stagedBeforehand {
            _ = try client.transaction(comparing: [], success: [.put(plan.chunks[index], forKey: layout.chunkKey(id, index: index))])
        }
        if interruption == .afterStaging { throw StagedCommitInterrupted(id: id) }
        try publish(id, plan: plan, saveRecord: saveRecord, readRevision: readRevision, losingFirstReply: losingFirstReply)
        if interruption == .afterPublishing { throw StagedCommitInterrupted(id: id) }
        var stop: Int?
        if case .afterRollingForward(let count)? = interruption { stop = count }
        let finished: Int64?
        do {
            finished = try rollForward(id, writes: plan.staged, stoppingAfter: stop)
        } catch let error as StagedCommitInterrupted {
            throw error
        } catch {
            throw EtcdError.stagedCommitUnfinished(id: id, reason: "\(error)")
        }
        // Another client that opened or saved meanwhile may have finished it (and saved after
        // it): this client cannot tell which revision holds its commit and no later save, so it
        // says what it says of an unfinished one (open the store again).
        guard let finished else {
            throw EtcdError.stagedCommitUnfinished(id: id, reason: "another client finished it meanwhile")
        }
        return finished
    }

    /// Publishes commit `id` of `plan`: its record, the save key, the writes not staged and the
    /// chunks not staged beforehand, in one transaction. The save key's record is marked with the
    /// id, so that a publish whose reply was lost and whose request was sent again (EtcdClient
    /// fails over) is known for what it is.
    private func publish(_ id: String, plan: EtcdStagedCommitPlan, saveRecord: [UInt8], readRevision: Int64,
                         losingFirstReply: Bool) throws {
        let commits = layout.commitRoot
        let staging = layout.stagingPrefix(id)
        func removeStaging() {
            _ = try? client.transaction(comparing: [], success: [.deleteAll(under: staging)])
        }
        // Chunks staged beforehand must still be there (no clean-up took them for garbage).
        let compare: [TransactionComparison] = (plan.stagedBeforehand > 0 ? [.exists(layout.chunkKey(id, index: 0))] : [])
            + [.noKey(from: commits, before: EtcdKeyLayout.end(ofPrefix: commits)),
               .unchangedSince(readRevision, key: layout.saveKey)]
        let record = EtcdStagedChunk.commitRecord(chunkCount: plan.chunks.count, writeCount: plan.staged.count)
        let success: [TransactionOperation] = [.put(record, forKey: layout.commitKey(id)), .put(saveRecord, forKey: layout.saveKey)]
            + zip(plan.carriedChunks.indices, plan.carriedChunks).map { .put($1, forKey: layout.chunkKey(id, index: $0)) }
            + plan.published.map(\.operation)
        if losingFirstReply { _ = try client.transaction(comparing: compare, success: success) }
        for _ in 0 ..< 3 {
            let published = try client.transaction(comparing: compare, success: success)
            if published.succeeded { return }
            if try landedSave(marked: Array(id.utf8)) != nil { return }
            // Another commit is published (finish it first), another client saved (a conflict),
            // or a clean-up removed this one's staging.
            let finished = try finishPublishedCommits()
            if try lastSaveRevision() > readRevision {
                removeStaging()
                throw EtcdBackend.conflict(after: readRevision)
            }
            if finished == 0 { break }
        }
        removeStaging()
        throw EtcdError.stagedCommitLost(id: id)
    }

    /// The revision of the last save when the save key's record is marked `mark` (the save that
    /// put it landed, whatever its reply said), else nil.
    func landedSave(marked mark: [UInt8]) throws -> Int64? {
        guard let last = try client.range(from: layout.saveKey, before: nil, revision: nil).records.first(where: { $0.key == layout.saveKey }),
              EtcdSaveRecord(decoding: last.value).mark == mark else { return nil }
        return last.modRevision
    }

    /// The revision of the store's last save (0 before the first).
    func lastSaveRevision(at revision: Int64? = nil) throws -> Int64 {
        try client.range(from: layout.saveKey, before: nil, revision: revision, keysOnly: true)
            .records.first { $0.key == layout.saveKey }?.modRevision ?? 0
    }

    /// Copies `writes` into the tables while commit `id` is published, then removes its record and
    /// staging; returns the revision after that, or nil when another client finished it first.
    /// The last copy also removes the record and staging when its transaction has room for two
    /// more operations: one transaction fewer per staged commit.
    private func rollForward(_ id: String, writes: [EtcdWrite], stoppingAfter stop: Int?) throws -> Int64? {
        let record = layout.commitKey(id)
        let finish: [TransactionOperation] = [.delete(record), .deleteAll(under: layout.stagingPrefix(id))]
        let groups = EtcdWrite.transactions(writes, limits: limits)
        var revision: Int64 = 0
        for (number, group) in groups.enumerated() {
            if number == stop { throw StagedCommitInterrupted(id: id) }
            let finishes = number == groups.count - 1 && group.count + finish.count <= limits.maximumOperations
            let copied = try client.transaction(comparing: [.exists(record)],
                                                success: group.map(\.operation) + (finishes ? finish : []))
            if !copied.succeeded { return nil }
            if finishes { return copied.revision }
            revision = copied.revision
        }
        let finished = try client.transaction(comparing: [.exists(record)], success: finish)
        return finished.succeeded ? max(revision, finished.revision) : nil
    }

    /// Rolls forward and finishes every published commit of the store, oldest first; returns how
    /// many there were.
    @discardableResult
    func finishPublishedCommits() throws -> Int {
        let root = layout.commitRoot
        let commits = try client.range(from: root, before: EtcdKeyLayout.end(ofPrefix: root), revision: nil).records
            .sorted { $0.modRevision < $1.modRevision }
        for commit in commits {
            let name = String(decoding: commit.key, as: UTF8.self)
            guard let id = layout.commitID(of: commit.key) else { throw EtcdError.damagedCommit(key: name, reason: "no commit id") }
            let counts = try EtcdStagedChunk.counts(ofCommitRecord: commit.value, key: name)
            let writes = try stagedWrites(of: id, chunkCount: counts.chunks)
            guard writes.count == counts.writes else {
                throw EtcdError.damagedCommit(key: name, reason: "\(writes.count) staged writes, the record says \(counts.writes)")
            }
            do {
                _ = try rollForward(id, writes: writes, stoppingAfter: nil)
            } catch {
                throw EtcdError.stagedCommitUnfinished(id: id, reason: "\(error)")
            }
        }
        return commits.count
    }

    /// The writes staged for commit `id`, from its `chunkCount` chunks read a few at a time.
    private func stagedWrites(of id: String, chunkCount: Int) throws -> [EtcdWrite] {
        let staging = layout.stagingPrefix(id)
        let end = EtcdKeyLayout.end(ofPrefix: staging)
        var writes: [EtcdWrite] = []
        var next = staging
        var chunks = 0
        while true {
            let page = try client.range(from: next, before: end, revision: nil, limit: 4)
            for chunk in page.records {
                guard chunk.key == layout.chunkKey(id, index: chunks) else {
                    throw EtcdError.damagedCommit(key: String(decoding: chunk.key, as: UTF8.self), reason: "chunk \(chunks) missing")
                }
                writes += try EtcdStagedChunk.writes(in: chunk.value, key: String(decoding: chunk.key, as: UTF8.self))
                chunks += 1
            }
            guard page.more, let last = page.records.last else { break }
            next = last.key + [0]
        }
        guard chunks == chunkCount else {
            throw EtcdError.damagedCommit(key: String(decoding: layout.commitKey(id), as: UTF8.self),
                                          reason: "\(chunks) staged chunks, the record says \(chunkCount)")
        }
        return writes
    }

    /// Removes the staging of every commit that is not published and began more than
    /// `gracePeriod` seconds ago (by its id's time: a client stopped before it published, not one
    /// still staging); returns how many it removed. Each removal holds only if the commit is
    /// still unpublished then.
    @discardableResult
    func removeUnpublishedStaging(olderThan gracePeriod: Double) throws -> Int {
        let root = layout.stagingRoot
        let staged = try client.range(from: root, before: EtcdKeyLayout.end(ofPrefix: root), revision: nil, keysOnly: true)
        var ids: [String] = []
        for record in staged.records {
            if let id = layout.commitID(of: record.key), ids.last != id { ids.append(id) }
        }
        var removed = 0
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        for id in ids {
            // An id that does not begin with a time is not this client's: old, whoever made it.
            if let started = id.split(separator: "-").first.flatMap({ UInt64($0, radix: 16) }),
               Double(now &- min(now, started)) < gracePeriod * 1000 {
                continue
            }
            let staging = layout.stagingPrefix(id)
            let removal = try client.transaction(
                comparing: [.noKey(from: layout.commitKey(id), before: layout.commitKey(id) + [0])],
                success: [.deleteAll(under: staging)])
            if removal.succeeded { removed += 1 }
        }
        return removed
    }

    /// A commit id: the time (so that ids sort roughly by age) and a random suffix.
    static func newID() -> String {
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        return String(milliseconds, radix: 16) + "-" + UUID().uuidString.lowercased()
    }
}
