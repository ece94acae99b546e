/* cache.c - program binaries on disk, in a private per-user directory.
   Nothing read from it is trusted: an entry must be a regular file owned by
   us, in a directory only we can write, with the right header, key, length
   and checksum; anything else is removed and rebuilt from source. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

static const char magic[8] = {'G', 'P', 'G', 'P', 'U', 'B', 'N', '1'};

typedef struct {
    char magic[8];
    char key[40];
    uint64_t size;
    uint64_t checksum;
} header;

uint64_t gpgpu__hash(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int gpgpu__cache_enabled(int device_default)
{
    const char *c = getenv("GPGPU_CACHE");
    if (c && !strcmp(c, "0"))
        return 0;
    return (c && !strcmp(c, "1")) || device_default;
}

/* mkdir -p with mode 0700 for what we create. */
static int make_dirs(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        int r = mkdir(path, 0700);
        *s = '/';
        if (r && errno != EEXIST)
            return -1;
    }
    return (mkdir(path, 0700) && errno != EEXIST) ? -1 : 0;
}

/* The cache directory, created if needed, or -1 if there is none we can
   trust: it must be a real directory (not a symlink), ours, and writable by
   nobody else. */
static int cache_dir(char *out, size_t size)
{
    const char *dir = getenv("GPGPU_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (dir && *dir)
        n = snprintf(out, size, "%s", dir);
    else if (xdg && *xdg)
        n = snprintf(out, size, "%s/gpgpu", xdg);
    else if (home && *home)
        n = snprintf(out, size, "%s/.cache/gpgpu", home);
    else
        return -1;
    if (n <= 0 || (size_t)n >= size || make_dirs(out))
        return -1;
    struct stat st;
    if (lstat(out, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)))
        return -1;
    return 0;
}

static int entry_path(const char *key, char *out, size_t size)
{
    char dir[4096];
    if (cache_dir(dir, sizeof dir))
        return -1;
    int n = snprintf(out, size, "%s/%s.bin", dir, key);
    return (n > 0 && (size_t)n < size) ? 0 : -1;
}

int gpgpu__cache_load(const char *key, unsigned char **bin, size_t *size)
{
    char path[4200];
    *bin = NULL;
    if (entry_path(key, path, sizeof path))
        return -1;
    /* O_NONBLOCK: a FIFO planted under the entry's name must not hang us. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    header h;
    unsigned char *data = NULL;
    int ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
             (size_t)st.st_size > sizeof h && read(fd, &h, sizeof h) == (ssize_t)sizeof h &&
             !memcmp(h.magic, magic, sizeof magic) && !strncmp(h.key, key, sizeof h.key) &&
             h.size == (uint64_t)st.st_size - sizeof h && h.size < ((uint64_t)1 << 31) &&
             (data = malloc(h.size)) != NULL &&
             read(fd, data, h.size) == (ssize_t)h.size &&
             gpgpu__hash(GPGPU__HASH_INIT, data, h.size) == h.checksum;
    close(fd);
    if (!ok) {
        free(data);
        unlink(path); /* corrupt, truncated or foreign: rebuild */
        return -1;
    }
    *bin = data;
    *size = h.size;
    return 0;
}

void gpgpu__cache_store(const char *key, const unsigned char *bin, size_t size)
{
    char path[4200], tmp[4300];
    if (entry_path(key, path, sizeof path))
        return;
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, sizeof magic);
    strncpy(h.key, key, sizeof h.key - 1);
    h.size = size;
    h.checksum = gpgpu__hash(GPGPU__HASH_INIT, bin, size);
    int ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h && write(fd, bin, size) == (ssize_t)size;
    ok = !close(fd) && ok;
    if (!ok || rename(tmp, path)) /* rename is atomic: readers see all or nothing */
        unlink(tmp);
}
