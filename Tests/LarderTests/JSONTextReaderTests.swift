// The JSON text reader and writer the interchange stands on: values of every kind read back as
// written (numbers keeping their kind, strings with every escape), malformed text refused with
// the position of the fault, also in a file read in chunks (positions past a chunk boundary),
// and named-field values through their JSON forms ($data, $date, $ref, $double).

import Foundation
import Testing
@testable import Larder

@Suite struct JSONTextReaderTests {
    @Test func valuesReadBackAsWritten() throws {
        let value = JSONTextValue.object([
            .init(key: "int", value: .integer(-42)), .init(key: "max", value: .integer(.max)),
            .init(key: "unsigned", value: .unsignedInteger(.max)), .init(key: "double", value: .double(1)),
            .init(key: "small", value: .double(1e-5)), .init(key: "text", value: .string("\"q\" \\ \n\r\t\u{01} é 日本 🎵")),
            .init(key: "list", value: .array([.null, .bool(true), .bool(false), .array([]), .object([])])),
        ])
        var writer = JSONTextWriter()
        writer.value(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"int":-42,"max":9223372036854775807,"unsigned":18446744073709551615,"double":1.0,"small":1e-05,"text":"\"q\" \\ \n\r\t\u0001 é 日本 🎵","list":[null,true,false,[],{}]}"#)
        var reader = JSONTextReader(bytes: writer.bytes)
        #expect(try reader.readValue() == value)
        try reader.finish()
    }

    @Test func escapesAndNumbersAreRead() throws {
        var reader = JSONTextReader(bytes: Array(#" [ "\u00e9\ud83c\udfb5\/\b\f", -0, 0.5e+2, 1E2, 18446744073709551616 ] "#.utf8))
        #expect(try reader.readValue() == .array([.string("é🎵/\u{08}\u{0C}"), .integer(0), .double(50), .double(100),
                                                  .double(18446744073709551616)]))
        try reader.finish()
    }

    @Test func malformedTextIsRefusedWithItsPosition() {
        let cases: [(String, String, Int)] = [
            ("", "the text ends where a value belongs", 0),
            ("[1,]", "expected a value", 3),
            ("[1 2]", "expected ',' or ']'", 3),
            ("{\"a\" 1}", "expected ':'", 5),
            ("{1: 2}", "expected a string", 1),
            ("\"abc", "the text ends inside a string", 4),
            ("\"a\u{01}\"", "a control character inside a string", 3),
            (#""\x""#, "an invalid escape in a string", 3),
            (#""\ud800""#, "a lone surrogate in a string", 7),
            (#""\udc00""#, "a lone surrogate in a string", 7),
            ("01", "a number has a leading zero", 2),
            ("-", "a number has no digits", 1),
            ("1.", "a number has no digits after its point", 2),
            ("1e", "a number has no digits in its exponent", 2),
            ("1e999", "a number is out of range", 5),
            ("tru", "expected a value", 0),
            (String(repeating: "[", count: 200), "values nest too deeply", 129),
        ]
        for (text, reason, offset) in cases {
            var reader = JSONTextReader(bytes: Array(text.utf8))
            #expect(throws: InterchangeError.malformedJSON(reason: reason, at: TextPosition(line: 1, column: offset + 1, byteOffset: offset)),
                    "\(text)") { _ = try reader.readValue() }
        }
        var invalidUTF8 = JSONTextReader(bytes: [UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")])
        #expect(throws: InterchangeError.malformedJSON(reason: "a string is not UTF-8", at: TextPosition(line: 1, column: 4, byteOffset: 3))) {
            _ = try invalidUTF8.readValue()
        }
    }

    @Test func aFileIsReadInChunksWithPositionsAcrossThem() throws {
        // 70,000 bytes of array on 10,000 lines, then a fault past the first 64 KB chunk.
        var text = "[\n"
        for number in 0 ..< 10_000 { text += String(format: "%5d,\n", number) }
        let faultOffset = text.utf8.count
        text += "x]"
        let path = NSTemporaryDirectory() + "larder-json-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try JSONTextReader(path: path)
        #expect(throws: InterchangeError.malformedJSON(reason: "expected a value", at: TextPosition(line: 10_002, column: 1, byteOffset: faultOffset))) {
            _ = try reader.readValue()
        }
        // Without the fault, every element reads.
        try Data((text.dropLast(2) + "0]").utf8).write(to: URL(fileURLWithPath: path))
        var good = try JSONTextReader(path: path)
        guard case let .array(elements) = try good.readValue() else { Issue.record("not an array"); return }
        #expect(elements.count == 10_001 && elements[9_999] == .integer(9_999))
        try good.finish()
    }

    @Test func namedFieldValuesGoThroughTheirJSONForms() throws {
        let values: [StoredFieldValue] = [
            .bool(true), .integer(-5), .unsignedInteger(.max), .double(2.5), .double(.infinity), .double(-.infinity),
            .string("x"), .data([0, 1, 254, 255]), .date(1_700_000_000.5), .reference(className: "Song", rowID: 7),
            .array([.integer(1), .array([.null])]), .null,
        ]
        var writer = JSONTextWriter()
        StoredFieldValue.array(values).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"[true,-5,18446744073709551615,2.5,{"$double":"inf"},{"$double":"-inf"},"x",{"$data":"AAH+/w=="},{"$date":1700000000.5},{"$ref":{"class":"Song","rowID":7}},[1,[null]],null]"#)
        var reader = JSONTextReader(bytes: writer.bytes)
        #expect(StoredFieldValue(try reader.readValue()) == .array(values))
        // NaN, which is not equal to itself, by its form.
        var nan = JSONTextWriter()
        StoredFieldValue.double(.nan).write(to: &nan)
        #expect(nan.bytes == Array(#"{"$double":"nan"}"#.utf8))
        // Objects that are none of the forms.
        for text in [#"{"a":1}"#, #"{"$data":"!"}"#, #"{"$ref":{"class":"Song"}}"#, #"{"$ref":{"class":"Song","rowID":0}}"#,
                     #"{"$double":"big"}"#, #"{"$date":"today"}"#] {
            var reader = JSONTextReader(bytes: Array(text.utf8))
            #expect(StoredFieldValue(try reader.readValue()) == nil, "\(text)")
        }
    }
}
