// PowerCut: an LD_PRELOAD interposer for the power-loss test. In a process started with
// POWERCUT_DIR (a store directory), POWERCUT_SHADOW (an empty directory for its records) and
// POWERCUT_AT (an operation number), it counts every write-like operation on a file of the store
// directory (open with O_CREAT, write, pwrite, writev, ftruncate, fsync, fdatasync, msync,
// rename, link, unlink) and, at operation POWERCUT_AT, ends the process with _exit(86) before
// doing it, or after doing the first 512-byte sectors of a write (a torn write).
// Meanwhile it records what a power cut would keep: at each fsync, fdatasync or msync(MS_SYNC)
// of a file, the file's synced bytes go to SHADOW/<inode>; at each fsync of the store
// directory, its names and inodes go to SHADOW/namespace (the durable namespace); before an
// unlink or a rename over a file, that file's bytes go to SHADOW/gone-<inode>.
// The test (Tests/LarderTests/PowerLossTests.swift) rebuilds the directory from these.

#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CUT_STATUS 86
#define MAX_FDS 4096
#define MAX_MAPS 256

static char storeDirectory[4096];
static char shadowDirectory[4096];
static long cutAt;
static long operations;
static unsigned long long randomState;
static int active;
static char tracked[MAX_FDS];          // 1 if the fd is a file of the store directory, 2 if the directory
static struct { char *address; size_t length; off_t offset; ino_t inode; int fd; } maps[MAX_MAPS];

#define REAL(name, type) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

static unsigned long long nextRandom(void) {
    randomState += 0x9E3779B97F4A7C15ULL;
    unsigned long long z = randomState;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef int (*open_t)(const char *, int, ...);
typedef ssize_t (*pwrite_t)(int, const void *, size_t, off_t);
typedef ssize_t (*write_t)(int, const void *, size_t);
typedef int (*close_t)(int);

static int rawOpen(const char *path, int flags, mode_t mode) {
    REAL(open, open_t);
    return real_open(path, flags, mode);
}

static void rawWriteAll(int fd, const char *bytes, size_t count, off_t offset) {
    REAL(pwrite, pwrite_t);
    while (count > 0) {
        ssize_t done = real_pwrite(fd, bytes, count, offset);
        if (done <= 0) return;
        bytes += done; count -= (size_t)done; offset += done;
    }
}

static void rawClose(int fd) {
    REAL(close, close_t);
    real_close(fd);
}

/// The full path of `path` if it names an entry of the store directory, else NULL.
static int inStore(int dirfd, const char *path) {
    if (!active || !path) return 0;
    char full[8192];
    if (path[0] == '/') snprintf(full, sizeof full, "%s", path);
    else if (dirfd == AT_FDCWD) {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) return 0;
        snprintf(full, sizeof full, "%s/%s", cwd, path);
    } else return 0;
    size_t length = strlen(storeDirectory);
    if (strncmp(full, storeDirectory, length) != 0) return 0;
    if (full[length] == 0) return 2;
    return full[length] == '/' && strchr(full + length + 1, '/') == NULL ? 1 : 0;
}

/// Copies `length` bytes at `offset` of the open file `fd` to `destination` (whole file if length < 0).
static void copyBytes(int fd, const char *destination, off_t offset, off_t length) {
    struct stat status;
    if (fstat(fd, &status) != 0) return;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (length < 0 ? O_TRUNC : 0);
    int out = rawOpen(destination, flags, 0600);
    if (out < 0) return;
    if (length < 0) { offset = 0; length = status.st_size; }
    if (offset + length > status.st_size) length = status.st_size - offset;
    // Read through a descriptor of our own: `fd` may be open for writing only (the commit
    // journal is), and a pread on it would fail and leave an empty shadow.
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int in = rawOpen(self, O_RDONLY | O_CLOEXEC, 0);
    if (in < 0) { rawClose(out); return; }
    char buffer[65536];
    while (length > 0) {
        ssize_t got = pread(in, buffer, length < (off_t)sizeof buffer ? (size_t)length : sizeof buffer, offset);
        if (got <= 0) break;
        rawWriteAll(out, buffer, (size_t)got, offset);
        offset += got; length -= got;
    }
    rawClose(in);
    rawClose(out);
}

static void shadowPath(char *out, size_t size, const char *prefix, ino_t inode) {
    snprintf(out, size, "%s/%s%llu", shadowDirectory, prefix, (unsigned long long)inode);
}

/// Records the file's bytes as synced (a range of them for msync).
static void recordSync(int fd, off_t offset, off_t length) {
    struct stat status;
    if (fstat(fd, &status) != 0) return;
    char destination[8192];
    shadowPath(destination, sizeof destination, "", status.st_ino);
    // A range of a file never synced whole says nothing of its length or its other bytes:
    // writing it alone would make a shadow as long as the range, a length the file never had.
    if (length >= 0 && access(destination, F_OK) != 0) return;
    copyBytes(fd, destination, offset, length);
}

/// Records the directory's names and inodes as the durable namespace.
static void recordNamespace(void) {
    char path[8192], temporary[8192];
    snprintf(path, sizeof path, "%s/namespace", shadowDirectory);
    snprintf(temporary, sizeof temporary, "%s/namespace.new", shadowDirectory);
    int out = rawOpen(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) return;
    DIR *directory = opendir(storeDirectory);
    off_t offset = 0;
    struct dirent *entry;
    while (directory && (entry = readdir(directory))) {
        if (entry->d_name[0] == '.' && (!entry->d_name[1] || (entry->d_name[1] == '.' && !entry->d_name[2]))) continue;
        char line[1024];
        int count = snprintf(line, sizeof line, "%llu %s\n", (unsigned long long)entry->d_ino, entry->d_name);
        rawWriteAll(out, line, (size_t)count, offset);
        offset += count;
    }
    if (directory) closedir(directory);
    rawClose(out);
    rename(temporary, path);
}

/// Keeps the bytes of the file at `path` before it is unlinked or renamed over.
static void recordGone(const char *path) {
    int fd = rawOpen(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return;
    struct stat status;
    if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
        char destination[8192];
        shadowPath(destination, sizeof destination, "gone-", status.st_ino);
        copyBytes(fd, destination, 0, -1);
        // Keep the inode allocated: a file system does not hand an inode whose unlink is not
        // durable to a new file, but this one would, and then the shadow of the new file would
        // stand for the old one under a durable name.
        shadowPath(destination, sizeof destination, "keep-", status.st_ino);
        link(path, destination);
    }
    rawClose(fd);
}

/// Counts one operation; at the chosen one, ends the process (after `torn` for a write).
static void step(int fd, const void *bytes, size_t count, off_t offset, int isWrite) {
    if (++operations != cutAt) return;
    if (isWrite && count > 512 && nextRandom() % 2 == 0) {
        size_t sectors = (size_t)(nextRandom() % (count / 512));
        if (offset < 0) offset = lseek(fd, 0, SEEK_CUR);
        rawWriteAll(fd, bytes, sectors * 512, offset);
    }
    _exit(CUT_STATUS);
}

__attribute__((constructor)) static void start(void) {
    const char *directory = getenv("POWERCUT_DIR"), *shadow = getenv("POWERCUT_SHADOW"), *at = getenv("POWERCUT_AT");
    if (!directory || !shadow || !at) return;
    if (!realpath(directory, storeDirectory)) return;
    snprintf(shadowDirectory, sizeof shadowDirectory, "%s", shadow);
    cutAt = atol(at);
    const char *seed = getenv("POWERCUT_SEED");
    randomState = seed ? strtoull(seed, NULL, 10) : 1;
    active = 1;
    recordNamespace();
    // Every file there at the start counts as synced.
    DIR *listing = opendir(storeDirectory);
    struct dirent *entry;
    while (listing && (entry = readdir(listing))) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", storeDirectory, entry->d_name);
        int fd = rawOpen(path, O_RDONLY | O_CLOEXEC, 0);
        struct stat status;
        if (fd >= 0 && fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) recordSync(fd, 0, -1);
        if (fd >= 0) rawClose(fd);
    }
    if (listing) closedir(listing);
}

static int isTracked(int fd) { return active && fd >= 0 && fd < MAX_FDS && tracked[fd]; }

static int afterOpen(int fd, int kind) {
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = (char)kind;
    return fd;
}

static int openCommon(int dirfd, const char *path, int flags, mode_t mode) {
    int kind = inStore(dirfd, path);
    if (kind == 1 && (flags & (O_CREAT | O_TRUNC))) step(-1, NULL, 0, 0, 0);
    typedef int (*openat_t)(int, const char *, int, ...);
    REAL(openat, openat_t);
    return afterOpen(real_openat(dirfd, path, flags, mode), kind);
}

#define MODE_ARGUMENT(flags) mode_t mode = 0; \
    if ((flags) & (O_CREAT | O_TMPFILE)) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); }

int open(const char *path, int flags, ...) { MODE_ARGUMENT(flags); return openCommon(AT_FDCWD, path, flags, mode); }
int open64(const char *path, int flags, ...) { MODE_ARGUMENT(flags); return openCommon(AT_FDCWD, path, flags, mode); }
int openat(int dirfd, const char *path, int flags, ...) { MODE_ARGUMENT(flags); return openCommon(dirfd, path, flags, mode); }
int openat64(int dirfd, const char *path, int flags, ...) { MODE_ARGUMENT(flags); return openCommon(dirfd, path, flags, mode); }
int creat(const char *path, mode_t mode) { return openCommon(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return openCommon(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = 0;
    REAL(close, close_t);
    return real_close(fd);
}

ssize_t write(int fd, const void *bytes, size_t count) {
    if (isTracked(fd)) step(fd, bytes, count, -1, 1);
    REAL(write, write_t);
    return real_write(fd, bytes, count);
}

ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    if (isTracked(fd)) step(fd, bytes, count, offset, 1);
    REAL(pwrite, pwrite_t);
    return real_pwrite(fd, bytes, count, offset);
}

ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) { return pwrite(fd, bytes, count, offset); }

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    if (isTracked(fd)) step(fd, NULL, 0, -1, 0);
    typedef ssize_t (*writev_t)(int, const struct iovec *, int);
    REAL(writev, writev_t);
    return real_writev(fd, vectors, count);
}

int ftruncate(int fd, off_t length) {
    if (isTracked(fd)) step(fd, NULL, 0, 0, 0);
    typedef int (*ftruncate_t)(int, off_t);
    REAL(ftruncate, ftruncate_t);
    return real_ftruncate(fd, length);
}

int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

static int syncCommon(int fd, const char *name) {
    if (isTracked(fd)) step(fd, NULL, 0, 0, 0);
    typedef int (*sync_t)(int);
    static sync_t real_fsync, real_fdatasync;
    if (!real_fsync) { real_fsync = (sync_t)dlsym(RTLD_NEXT, "fsync"); real_fdatasync = (sync_t)dlsym(RTLD_NEXT, "fdatasync"); }
    int result = (strcmp(name, "fsync") == 0 ? real_fsync : real_fdatasync)(fd);
    if (result == 0 && isTracked(fd)) {
        if (tracked[fd] == 2) recordNamespace(); else recordSync(fd, 0, -1);
    }
    return result;
}

int fsync(int fd) { return syncCommon(fd, "fsync"); }
int fdatasync(int fd) { return syncCommon(fd, "fdatasync"); }

void *mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    typedef void *(*mmap_t)(void *, size_t, int, int, int, off_t);
    REAL(mmap, mmap_t);
    void *result = real_mmap(address, length, protection, flags, fd, offset);
    struct stat status;
    if (result != MAP_FAILED && isTracked(fd) && (flags & MAP_SHARED) && fstat(fd, &status) == 0) {
        for (int i = 0; i < MAX_MAPS; i++) {
            if (maps[i].address) continue;
            maps[i].address = result; maps[i].length = length; maps[i].offset = offset;
            maps[i].inode = status.st_ino; maps[i].fd = fd;
            break;
        }
    }
    return result;
}

void *mmap64(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    return mmap(address, length, protection, flags, fd, offset);
}

int munmap(void *address, size_t length) {
    for (int i = 0; i < MAX_MAPS; i++) if (maps[i].address == address) maps[i].address = NULL;
    typedef int (*munmap_t)(void *, size_t);
    REAL(munmap, munmap_t);
    return real_munmap(address, length);
}

int msync(void *address, size_t length, int flags) {
    int found = -1;
    for (int i = 0; i < MAX_MAPS; i++) {
        char *base = maps[i].address;
        if (base && (char *)address >= base && (char *)address < base + maps[i].length) { found = i; break; }
    }
    if (found >= 0) step(-1, NULL, 0, 0, 0);
    typedef int (*msync_t)(void *, size_t, int);
    REAL(msync, msync_t);
    int result = real_msync(address, length, flags);
    if (result == 0 && found >= 0 && (flags & MS_SYNC) && isTracked(maps[found].fd)) {
        off_t offset = maps[found].offset + ((char *)address - maps[found].address);
        recordSync(maps[found].fd, offset, (off_t)length);
    }
    return result;
}

static int nameStep(int dirfd, const char *path, int gone) {
    if (inStore(dirfd, path) != 1) return 0;
    step(-1, NULL, 0, 0, 0);
    if (gone) recordGone(path);
    return 1;
}

int unlink(const char *path) {
    nameStep(AT_FDCWD, path, 1);
    typedef int (*unlink_t)(const char *);
    REAL(unlink, unlink_t);
    return real_unlink(path);
}

int unlinkat(int dirfd, const char *path, int flags) {
    nameStep(dirfd, path, 1);
    typedef int (*unlinkat_t)(int, const char *, int);
    REAL(unlinkat, unlinkat_t);
    return real_unlinkat(dirfd, path, flags);
}

int rename(const char *from, const char *to) {
    if (!nameStep(AT_FDCWD, to, 1)) nameStep(AT_FDCWD, from, 0);
    typedef int (*rename_t)(const char *, const char *);
    REAL(rename, rename_t);
    return real_rename(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    if (!nameStep(tofd, to, 1)) nameStep(fromfd, from, 0);
    typedef int (*renameat_t)(int, const char *, int, const char *);
    REAL(renameat, renameat_t);
    return real_renameat(fromfd, from, tofd, to);
}

int link(const char *from, const char *to) {
    nameStep(AT_FDCWD, to, 0);
    typedef int (*link_t)(const char *, const char *);
    REAL(link, link_t);
    return real_link(from, to);
}
