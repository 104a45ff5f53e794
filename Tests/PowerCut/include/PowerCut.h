// PowerCut has no API: it is loaded with LD_PRELOAD and replaces libc's file functions.
