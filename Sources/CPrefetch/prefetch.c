// CPrefetch is header-only (static inline functions); SwiftPM wants a source file per target.
#include "CPrefetch.h"
