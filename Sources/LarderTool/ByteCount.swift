// ByteCount: sizes for people, in decimal units, as `ls -h --si` prints them.

/// Sizes for people: 1 234 bytes as "1.2 KB".
enum ByteCount {
    static func readable(_ bytes: Int) -> String {
        guard bytes >= 1_000 else { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1_000
        var unit = 0
        while value >= 1_000 && unit < units.count - 1 {
            value /= 1_000
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded) \(units[unit])"
    }
}
