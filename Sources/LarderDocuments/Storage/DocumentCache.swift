// DocumentCache: a least-recently-used cache of decoded documents by rowID, so repeated reads
// skip Tokyo Cabinet and decoding. A fixed capacity (0 turns it off), O(1) per operation
// through an index-linked list in arrays, evicting the least recently used document.

/// An LRU cache of decoded documents.
struct DocumentCache {
    private struct Node {
        var rowID: Int64
        var document: JSON
        var previous: Int
        var next: Int
    }

    private var nodes: [Node] = []
    private var slots: [Int64: Int] = [:]
    private var free: [Int] = []
    private var head = -1   // most recently used
    private var tail = -1   // least recently used

    /// The most documents kept; setting it evicts down to it.
    var capacity: Int {
        didSet {
            capacity = max(0, capacity)
            while slots.count > capacity { evictLeastRecentlyUsed() }
            if capacity == 0 { removeAll() }
        }
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { slots.count }

    /// The cached document, now the most recently used.
    mutating func document(for rowID: Int64) -> JSON? {
        guard let slot = slots[rowID] else { return nil }
        moveToFront(slot)
        return nodes[slot].document
    }

    func contains(_ rowID: Int64) -> Bool { slots[rowID] != nil }

    mutating func store(_ document: JSON, for rowID: Int64) {
        guard capacity > 0 else { return }
        if let slot = slots[rowID] {
            nodes[slot].document = document
            moveToFront(slot)
            return
        }
        if slots.count >= capacity { evictLeastRecentlyUsed() }
        let node = Node(rowID: rowID, document: document, previous: -1, next: head)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slots[rowID] = slot
    }

    mutating func remove(_ rowID: Int64) {
        guard let slot = slots.removeValue(forKey: rowID) else { return }
        unlink(slot)
        nodes[slot].document = .null
        free.append(slot)
    }

    mutating func removeAll() {
        nodes.removeAll()
        slots.removeAll()
        free.removeAll()
        head = -1
        tail = -1
    }

    private mutating func evictLeastRecentlyUsed() {
        guard tail >= 0 else { return }
        remove(nodes[tail].rowID)
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }
}
