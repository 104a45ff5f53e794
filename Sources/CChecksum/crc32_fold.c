// CRC-32 by folding: the input is taken 128 bits at a time; the running 128-bit remainder
// is multiplied (carry-less) by x^160 and x^96 modulo the polynomial, split in its two
// halves, and added to the next block. At the end, 128 bits are folded to 64, then reduced
// to 32 with Barrett's method. The polynomial is zlib's (P = 0x104C11DB7), and zlib computes
// it bit-reflected, so the constants are too (' is reflection):
//
//   fold128    (x^(128+32) mod P)' << 1 and (x^(128-32) mod P)' << 1   one block into the next
//   fold512    (x^(512+32) mod P)' << 1 and (x^(512-32) mod P)' << 1   four blocks on (4 lanes)
//   fold64     (x^64 mod P)' << 1                                      64 bits into 32
//   barrett    P' and floor(x^64 / P)', over 33 bits                   the final reduction
//
// The results are checked against zlib's crc32 for every length from 0 to 4 KiB and at
// every alignment (ChecksumAndOrderingTests).

#include "CChecksum.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int larder_crc32_can_fold(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int pclmulqdq = 1u << 1, sse41 = 1u << 19;
    return (ecx & pclmulqdq) && (ecx & sse41) ? 1 : 0;
}

// A 128-bit remainder carried over the distance the constants `fold` stand for (fold128: one
// block, fold512: four), its two halves times them, and added to the block `block`.
__attribute__((target("pclmul,sse4.1"), always_inline))
static inline __m128i larder_crc32_fold(__m128i remainder, __m128i fold, __m128i block) {
    __m128i low = _mm_clmulepi64_si128(remainder, fold, 0x00);
    __m128i high = _mm_clmulepi64_si128(remainder, fold, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), block);
}

__attribute__((target("pclmul,sse4.1")))
uint32_t larder_crc32_fold_blocks(uint32_t state, const uint8_t *bytes, size_t length) {
    const __m128i fold512 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
    const __m128i fold128 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
    const __m128i fold64 = _mm_set_epi64x(0, 0x163cd6124LL);
    const __m128i barrett = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);
    const __m128i low32s = _mm_setr_epi32(-1, 0, -1, 0);

    // The register's 32 bits go into the first block's first 32.
    __m128i remainder = _mm_xor_si128(_mm_loadu_si128((const __m128i *)bytes), _mm_cvtsi32_si128((int)state));
    size_t offset = 16;
    if (length >= 128) {
        // Four remainders side by side, each carried over the 64 bytes to its next block:
        // four independent multiplications a round, where one remainder waits for the last.
        __m128i lanes[4] = {
            remainder, _mm_loadu_si128((const __m128i *)(bytes + 16)),
            _mm_loadu_si128((const __m128i *)(bytes + 32)), _mm_loadu_si128((const __m128i *)(bytes + 48)),
        };
        for (offset = 64; length - offset >= 64; offset += 64) {
            for (int lane = 0; lane < 4; lane++) {
                __m128i block = _mm_loadu_si128((const __m128i *)(bytes + offset + 16 * lane));
                lanes[lane] = larder_crc32_fold(lanes[lane], fold512, block);
            }
        }
        // Then into one: each carried 128 bits onto the next.
        remainder = larder_crc32_fold(lanes[0], fold128, lanes[1]);
        remainder = larder_crc32_fold(remainder, fold128, lanes[2]);
        remainder = larder_crc32_fold(remainder, fold128, lanes[3]);
    }
    for (; offset < length; offset += 16) {
        remainder = larder_crc32_fold(remainder, fold128, _mm_loadu_si128((const __m128i *)(bytes + offset)));
    }

    // 128 bits to 64: the low half times x^96, added to the high half.
    __m128i folded = _mm_xor_si128(_mm_srli_si128(remainder, 8), _mm_clmulepi64_si128(remainder, fold128, 0x10));
    // 64 bits to 32: the low 32 bits times x^64, added to the rest.
    __m128i rest = _mm_srli_si128(folded, 4);
    folded = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(folded, low32s), fold64, 0x00), rest);
    // Barrett: the quotient's estimate times P, subtracted (added) from the 64-bit value.
    __m128i quotient = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(folded, low32s), barrett, 0x10), low32s);
    folded = _mm_xor_si128(folded, _mm_clmulepi64_si128(quotient, barrett, 0x00));
    return (uint32_t)_mm_extract_epi32(folded, 1);
}

#else

int larder_crc32_can_fold(void) { return 0; }

uint32_t larder_crc32_fold_blocks(uint32_t state, const uint8_t *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return state;
}

#endif
