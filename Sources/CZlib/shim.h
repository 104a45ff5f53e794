// zlib's crc32, used for Larder's record and journal checksums.
#include <zlib.h>
