// The Tokyo Cabinet hash database API the raw Tokyo Cabinet speed test calls directly (Larder's
// own CTokyoCabinet module is internal to the Larder package).
#include <stdbool.h>
#include <stdint.h>
#include <tcutil.h>
#include <tchdb.h>
