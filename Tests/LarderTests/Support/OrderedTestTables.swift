// The ordered tables the backend tests write, declared as the document store declares its
// index tables before it reads or writes them.

@testable import Larder

/// Declares the test's ordered tables (`t.idx`, `empty.idx`, `docs.0.idx`) on `backend`.
func declareOrderedTestTables(of backend: any Backend) {
    for table in ["t.idx", "empty.idx", "docs.0.idx"] { backend.declareOrderedTable(table) }
}
