// CChecksum: CRC-32 (zlib's polynomial) folded with carry-less multiplication where the
// processor has it (x86-64 PCLMULQDQ with SSE4.1). Larder's Checksum calls it for the whole
// 16-byte blocks of an input and finishes the rest with its tables.

#ifndef LARDER_CCHECKSUM_H
#define LARDER_CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this processor can run larder_crc32_fold_blocks, else 0.
int larder_crc32_can_fold(void);

/// Advances the CRC-32 register `state` (the running value, already complemented as CRC-32
/// keeps it between bytes) over `length` bytes at `bytes`. `length` must be a positive
/// multiple of 16, and larder_crc32_can_fold() must have returned 1.
uint32_t larder_crc32_fold_blocks(uint32_t state, const uint8_t *bytes, size_t length);

#endif
