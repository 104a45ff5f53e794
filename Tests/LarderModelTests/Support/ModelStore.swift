// Where a model test's store lives: a temporary directory (removed when the test ends) or
// memory (a MemoryBackend each open reopens, as a process reopening the directory would).

import Foundation
import LarderTestSupport
@testable import Larder

final class ModelStore {
    let path: String
    private let memory: MemoryBackend?

    init(_ backend: BackendKind) {
        path = NSTemporaryDirectory() + "larder-model-tests-\(UUID().uuidString)"
        memory = backend == .memory ? MemoryBackend() : nil
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The store, opened again, with `types` registered.
    func open(_ types: [StoredObject.Type], configuration: Store.Configuration = .init(durability: .noSync)) throws -> Store {
        let store = try memory.map { try Store(backend: $0.reopened(), configuration: configuration) }
            ?? Store(path: path, configuration: configuration)
        for type in types { try store.register(type) }
        return store
    }
}

extension StoredObject {
    /// What `writeContent` writes: the record's content.
    var content: [UInt8] {
        var buffer = DataBuffer()
        writeContent(to: &buffer)
        return buffer.bytes
    }
}
