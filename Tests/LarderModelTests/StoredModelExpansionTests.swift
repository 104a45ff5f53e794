// What @StoredModel expands to, and what it reports for properties it cannot store.

import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import Larder
@testable import LarderModelMacros

@Suite struct StoredModelExpansionTests {
    private let macros: [String: MacroSpec] = ["StoredModel": MacroSpec(type: StoredModelMacro.self),
                                               "NotStored": MacroSpec(type: NotStoredMacro.self)]

    /// Records a failed expansion assertion as a test failure.
    private func expand(_ source: String, into expanded: String, diagnostics: [DiagnosticSpec] = [],
                        fixedSource: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
                             applyFixIts: nil, fixedSource: fixedSource, indentationWidth: .spaces(4),
                             failureHandler: { failure in Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation) })
    }

    @Test func tagsAreTheLibrarys() {
        for name in ["title", "seconds", "", "é", "a_long_property_name_with_digits_123"] {
            #expect(FieldTag.tag(forName: name) == StoredField.tag(forName: name))
        }
        #expect(StoredField.tag(forName: "title") == 0x130c_b6a1)
    }

    @Test func expandsTheReadmeSong() {
        expand("""
            @StoredModel
            final class Song: StoredObject {
                var title = ""
                var seconds: UInt32 = 0
                var album: Album?
                var tags: [String] = []
                var songs: [Song] = []
            }
            """, into: """
            final class Song: StoredObject {
                @Stored
                var title = ""
                @Stored
                var seconds: UInt32 = 0
                @Stored
                var album: Album?
                @Stored
                var tags: [String] = []
                @Stored
                var songs: [Song] = []

                override func writeContent(to buffer: inout DataBuffer) {
                    buffer.writeField(0x9865b50d, self.title)
                    buffer.writeField(0x66b6cdea, self.seconds)
                    buffer.writeFieldKey(0x64fb286c)
                    buffer.writeReference(self.album)
                    buffer.writeFieldKey(0xf416eba7)
                    buffer.writeSequence(self.tags) {
                        $0.write($1)
                    }
                    buffer.writeFieldKey(0xbd27b027)
                    buffer.writeReferenceSequence(self.songs)
                }

                override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
                    while let key = try buffer.readFieldKey() {
                        switch key {
                        case 0x9865b50d:
                            self.title = try buffer.readString()
                        case 0x66b6cdea:
                            self.seconds = try buffer.readUInt32()
                        case 0x64fb286c:
                            self.album = try buffer.readReference(to: Album.self, in: store)
                        case 0xf416eba7:
                            self.tags = try buffer.readSequence {
                                try $0.readString()
                            }
                        case 0xbd27b027:
                            self.songs = try buffer.readReferenceSequence(to: Song.self, in: store)
                        default:
                            try buffer.skipField(key: key)
                        }
                    }
                }

                override class var storedModelSchema: StoredModelSchema? {
                    StoredModelSchema(fields: [
                        StoredField(name: "title", tag: 0x130cb6a1, type: .string),
                        StoredField(name: "seconds", tag: 0xcd6d9bd, type: .int(bits: 32, signed: false)),
                        StoredField(name: "album", tag: 0xc9f650d, type: .reference(className: Album.storageName)),
                        StoredField(name: "tags", tag: 0x1e82dd74, type: .array(.string)),
                        StoredField(name: "songs", tag: 0x17a4f604, type: .array(.reference(className: Song.storageName))),
                    ])
                }
            }
            """)
    }

    @Test func skipsWhatIsNotStoredAndWritesOptionals() {
        expand("""
            @StoredModel
            public final class Track: StoredObject {
                override class var storageName: String { "Track" }
                static var count = 0
                var minutes: Double { 1 }
                @NotStored var isPlaying = false
                @Stored var rating: Int?
                func play() {}
            }
            """, into: """
            public final class Track: StoredObject {
                override class var storageName: String { "Track" }
                static var count = 0
                var minutes: Double { 1 }
                var isPlaying = false
                @Stored var rating: Int?
                func play() {}

                public override func writeContent(to buffer: inout DataBuffer) {
                    if let value = self.rating {
                        buffer.writeField(0xf2891053, value)
                    } else {
                        buffer.writeFieldKey(0xf2891056)
                    }
                }

                public override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
                    while let key = try buffer.readFieldKey() {
                        switch key {
                        case 0xf2891053:
                            self.rating = try buffer.readInt()
                        case 0xf2891056:
                            self.rating = nil
                        default:
                            try buffer.skipField(key: key)
                        }
                    }
                }

                public override class var storedModelSchema: StoredModelSchema? {
                    StoredModelSchema(fields: [
                        StoredField(name: "rating", tag: 0x1e51220a, type: .optional(.int(bits: 64, signed: true))),
                    ])
                }
            }
            """)
    }

    // MARK: Diagnostics

    @Test func aLetIsAnErrorWithAFixIt() {
        expand("""
            @StoredModel
            final class Song: StoredObject {
                let title = ""
            }
            """, into: """
            final class Song: StoredObject {
                let title = ""
            }
            """, diagnostics: [
                DiagnosticSpec(message: "'title' is a 'let': @StoredModel stores 'var' properties (mark it @NotStored to keep it out of the records)",
                               line: 3, column: 5, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]),
            ], fixedSource: """
            @StoredModel
            final class Song: StoredObject {
                var title = ""
            }
            """)
    }

    @Test func aMissingDefaultIsAnErrorWithAFixIt() {
        expand("""
            @StoredModel
            final class Song: StoredObject {
                var title: String
                var tags: [String]
            }
            """, into: """
            final class Song: StoredObject {
                var title: String
                var tags: [String]
            }
            """, diagnostics: [
                DiagnosticSpec(message: "'title' needs a default value: a record without the field reads as the default",
                               line: 3, column: 9, fixIts: [FixItSpec(message: "Add the default value '\"\"'")]),
                DiagnosticSpec(message: "'tags' needs a default value: a record without the field reads as the default",
                               line: 4, column: 9, fixIts: [FixItSpec(message: "Add the default value '[]'")]),
            ], fixedSource: """
            @StoredModel
            final class Song: StoredObject {
                var title: String = ""
                var tags: [String] = []
            }
            """)
    }

    @Test func aNonOptionalReferenceIsAnErrorWithAFixIt() {
        expand("""
            @StoredModel
            final class Song: StoredObject {
                var album: Album = Album()
            }
            """, into: """
            final class Song: StoredObject {
                var album: Album = Album()
            }
            """, diagnostics: [
                DiagnosticSpec(message: "'album' has type 'Album': @StoredModel stores Bool, integers, Double, Float, String, Data and Date, and references to StoredObject subclasses, which must be optional",
                               line: 3, column: 16, fixIts: [FixItSpec(message: "Make it an optional reference")]),
            ], fixedSource: """
            @StoredModel
            final class Song: StoredObject {
                var album: Album? = Album()
            }
            """)
    }

    @Test func unsupportedTypesAreErrors() {
        expand("""
            @StoredModel
            final class Song: StoredObject {
                var counts: [String: Int] = [:]
                var grid: [[Int]] = []
                var made = makeValue()
                lazy var cache = 0
                var a = 1, b = 2
            }
            """, into: """
            final class Song: StoredObject {
                var counts: [String: Int] = [:]
                var grid: [[Int]] = []
                var made = makeValue()
                lazy var cache = 0
                var a = 1, b = 2
            }
            """, diagnostics: [
                DiagnosticSpec(message: "'counts' has type '[String: Int]', which @StoredModel cannot store: use Bool, an integer, Double, Float, String, Data, Date, an optional of one, an array of one, an optional reference to a StoredObject subclass or an array of them",
                               line: 3, column: 9),
                DiagnosticSpec(message: "'grid' has type '[[Int]]': @StoredModel stores optionals and arrays of scalars or of references, not nested ones",
                               line: 4, column: 9),
                DiagnosticSpec(message: "'made' needs a type annotation: @StoredModel cannot tell its type from its initial value",
                               line: 5, column: 9),
                DiagnosticSpec(message: "'cache' is 'lazy': @StoredModel cannot store a lazy property (mark it @NotStored to keep it out of the records)",
                               line: 6, column: 5),
                DiagnosticSpec(message: "@StoredModel needs one property per 'var' declaration", line: 7, column: 5),
            ])
    }

    @Test func namesWithOneTagAreAnError() {
        #expect(FieldTag.tag(forName: "f607") == FieldTag.tag(forName: "f26462"))
        expand("""
            @StoredModel
            final class Song: StoredObject {
                var f607 = 0
                var f26462 = 0
            }
            """, into: """
            final class Song: StoredObject {
                @Stored
                var f607 = 0
                @Stored
                var f26462 = 0
            }
            """, diagnostics: [
                DiagnosticSpec(message: "'f26462' and 'f607' have the same field tag (a hash of the name): rename one of them",
                               line: 4, column: 5),
            ])
    }

    @Test func onlyStoredObjectSubclassesAreModels() {
        expand("""
            @StoredModel
            struct Song {
                var title = ""
            }
            """, into: """
            struct Song {
                var title = ""
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@StoredModel applies to a class that inherits from StoredObject", line: 1, column: 1),
            ])
        expand("""
            @StoredModel
            final class Song {
                var title = ""
            }
            """, into: """
            final class Song {
                @Stored
                var title = ""
            }
            """, diagnostics: [
                DiagnosticSpec(message: "a @StoredModel class must inherit from StoredObject", line: 2, column: 13,
                               fixIts: [FixItSpec(message: "Inherit from StoredObject")]),
            ], fixedSource: """
            @StoredModel
            final class Song: StoredObject {
                var title = ""
            }
            """)
    }
}
