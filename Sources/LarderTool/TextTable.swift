// TextTable: the readable output of a command: a header row and rows of cells, each column as
// wide as its widest cell (numbers right-aligned), as `sqlite3 -column` prints.

struct TextTable {
    let columns: [String]
    private(set) var rows: [[String]] = []
    /// Columns whose cells are right-aligned.
    var numericColumns: Set<Int> = []

    init(_ columns: [String], numeric: Set<Int> = []) {
        self.columns = columns
        self.numericColumns = numeric
    }

    mutating func append(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table as lines of text, ending with a newline; "(none)" under the header for no row.
    var rendered: String {
        let all = [columns] + rows
        let widths = columns.indices.map { column in
            all.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            columns.indices.map { column in
                let cell = column < cells.count ? cells[column] : ""
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == columns.count - 1 && !numericColumns.contains(column) { return cell }
                return numericColumns.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
        var text = line(columns) + "\n"
        if rows.isEmpty { return text + "(none)\n" }
        for row in rows { text += line(row) + "\n" }
        return text
    }
}
