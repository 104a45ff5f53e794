// Stored bytes to String (UTF8Decoding, SmallASCIIString): every length around the inline
// limit, ASCII and not, gives the standard library's string, which behaves as one in every
// use (equality, hashing, dictionary keys, appending, counting); invalid UTF-8 gives nil.

import Testing
@testable import Larder
import LarderTestSupport

@Suite struct UTF8DecodingTests {
    private func decoded(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { UTF8Decoding.string($0) }
    }

    @Test func shortASCIIStringsAreBuiltInlineOnThisPlatform() {
        #if arch(x86_64) || arch(arm64)
        #expect(SmallASCIIString.isAvailable)
        #endif
    }

    @Test func everyLengthGivesTheStandardLibrarysString() {
        var generator = SplitMix(seed: 21)
        var keyed: [String: Int] = [:]
        for length in 0 ... 40 {
            for round in 0 ..< 20 {
                let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 0x7F, using: &generator) }
                let expected = String(decoding: bytes, as: UTF8.self)
                guard let made = decoded(bytes) else {
                    Issue.record("nil for ASCII of length \(length)")
                    continue
                }
                #expect(made == expected)
                #expect(made.hashValue == expected.hashValue)
                #expect(made.count == expected.count)
                #expect(Array(made.utf8) == bytes)
                #expect(made + "!" == expected + "!")
                #expect(made.hasPrefix(String(expected.prefix(3))))
                // As a key, either string finds what the other stored.
                keyed[made] = length * 100 + round
                #expect(keyed[expected] == length * 100 + round)
            }
        }
        #expect(decoded([]) == "")
    }

    @Test func shortStringsReadAsWordsTakeOnlyTheirOwnBytes() {
        var generator = SplitMix(seed: 34)
        for count in 0 ... SmallASCIIString.capacity {
            for round in 0 ..< 40 {
                let text = (0 ..< count).map { _ in UInt8.random(in: 0 ... 0x7F, using: &generator) }
                // Around the text: other bytes, ASCII in even rounds and not in odd ones.
                let around = (0 ..< 16).map { _ in round % 2 == 0 ? UInt8(ascii: "Q") : UInt8.random(in: 0x80 ... 0xFF, using: &generator) }
                let expected = String(decoding: text, as: UTF8.self)
                let after = (text + around).withUnsafeBytes { SmallASCIIString.make(reading: $0.baseAddress!, count: count) }
                let before = (around + text).withUnsafeBytes { SmallASCIIString.make(readingBackFrom: $0.baseAddress! + 16 + count, count: count) }
                #expect(after == expected, "count \(count)")
                #expect(before == expected, "count \(count)")
                #expect(after?.hashValue == expected.hashValue && before?.hashValue == expected.hashValue)
                // A byte of the text that is not ASCII gives nil (the validating path decodes it).
                if count > 0 {
                    var wide = text
                    wide[Int.random(in: 0 ..< count, using: &generator)] = 0xC3
                    #expect((wide + around).withUnsafeBytes { SmallASCIIString.make(reading: $0.baseAddress!, count: count) } == nil)
                    #expect((around + wide).withUnsafeBytes { SmallASCIIString.make(readingBackFrom: $0.baseAddress! + 16 + count, count: count) } == nil)
                }
            }
        }
    }

    @Test func nonASCIIAndInvalidBytesTakeTheValidatingPath() {
        for text in ["é", "naïve", "日本", "a🙂b", String(repeating: "ü", count: 10)] {
            #expect(decoded(Array(text.utf8)) == text)
        }
        for invalid: [UInt8] in [[0xFF], [0x61, 0x80], [0xC0, 0x80], [0xE2, 0x98], [0x61, 0x62, 0xED, 0xA0, 0x80]] {
            #expect(decoded(invalid) == nil, "\(invalid)")
        }
    }
}
