// SQLite's C API, for the speed-test engine that uses it directly.
#include <sqlite3.h>
