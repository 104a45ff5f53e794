// The parts of Tokyo Cabinet that Larder uses: the utility API, the hash database and the
// B+tree database.
#include <stdbool.h>
#include <stdint.h>
#include <tcutil.h>
#include <tchdb.h>
#include <tcbdb.h>
