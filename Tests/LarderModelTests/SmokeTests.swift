import Testing
import LarderModel

@Suite struct SmokeTests {
    @Test func schema() {
        #expect(Song.storedModelSchema?.fields.map(\.name) == ["title", "seconds", "album", "tags", "songs"])
    }
}
