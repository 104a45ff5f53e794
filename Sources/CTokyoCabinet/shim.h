// The parts of Tokyo Cabinet that Larder uses: the utility API and the hash database.
#include <stdbool.h>
#include <stdint.h>
#include <tcutil.h>
#include <tchdb.h>
