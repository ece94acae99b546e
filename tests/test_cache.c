/* test_cache.c - the on-disk program cache: a second process finds what the
   first built; corrupt, truncated and foreign entries are rebuilt; a cache
   directory we cannot trust is not used, and calls still work; symlinked,
   FIFO and directory entries are never followed or waited on.
   The test runs itself as the second process ("child" mode). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static char self[4096];
static char base[4200];

/* child mode: one reduce, the first call's time printed. */
static int child(void)
{
    gpgpu_context *c;
    if (gpgpu_context_create(&c, NULL) != GPGPU_SUCCESS)
        return 3;
    uint32_t x[1000], r = 0;
    for (int i = 0; i < 1000; i++)
        x[i] = (uint32_t)i;
    /* On an array, so that a kernel is built on every device: a host call
       this small runs on the host's cores where the plan says so (NVIDIA:
       up to 4097 elements), and nothing reached the cache there. */
    gpgpu_array *arr = NULL;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    gpgpu_status s = gpgpu_array_create(c, GPGPU_U32, 1000, &arr);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(c, arr, 0, x, 1000);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_reduce_array(c, GPGPU_SUM, arr, &r);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "first reduce call: %.1f ms\n",
            (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6);
    gpgpu_array_destroy(arr);
    gpgpu_context_destroy(c);
    return s == GPGPU_SUCCESS && r == 499500 ? 0 : 4;
}

/* Runs the child with dir as cache; returns its exit status and leaves its
   stderr in base/log. */
static int run_child(const char *dir)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "GPGPU_CACHE_DIR='%s' GPGPU_CACHE_LOG=1 '%s' child 2>'%s/log'", dir,
             self, base);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int log_has(const char *what)
{
    char path[4300], line[1024];
    snprintf(path, sizeof path, "%s/log", base);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return found;
}

/* The entries (*.bin) of dir; their paths in out[] (up to max). */
static int entries(const char *dir, char out[][4400], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".bin") && n < max)
            snprintf(out[n++], 4400, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    return n;
}

static void fresh_dir(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "%s/%s", base, name);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

TU_TEST(second_process_hits_the_disk_cache)
{
    char dir[4300], files[8][4400];
    fresh_dir(dir, sizeof dir, "hits");
    ck_assert_int_eq(run_child(dir), 0);
    ck_assert(log_has("miss"));
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0700);
    ck_assert_int_ge(entries(dir, files, 8), 1);
    ck_assert_int_eq(run_child(dir), 0);
    ck_assert(log_has("hit"));
    ck_assert(!log_has("miss"));
}
END_TEST

TU_TEST(corrupt_entries_are_rebuilt)
{
    char dir[4300], files[8][4400];
    fresh_dir(dir, sizeof dir, "corrupt");
    ck_assert_int_eq(run_child(dir), 0);
    int n = entries(dir, files, 8);
    ck_assert_int_ge(n, 1);
    for (int mode = 0; mode < 3; mode++) {
        for (int i = 0; i < n; i++) {
            struct stat st;
            stat(files[i], &st);
            FILE *f = fopen(files[i], mode == 1 ? "w" : "r+");
            ck_assert_ptr_nonnull(f);
            if (mode == 0) { /* flip bytes in the middle: the checksum fails */
                fseek(f, st.st_size / 2, SEEK_SET);
                fputs("garbage!", f);
            } else if (mode == 2) { /* a wrong header */
                fputs("NOTGPGPU", f);
            } /* mode 1: truncated to nothing */
            fclose(f);
        }
        ck_assert_int_eq(run_child(dir), 0);
        ck_assert_msg(log_has("miss"), "mode %d: the bad entry was trusted", mode);
        ck_assert_int_eq(run_child(dir), 0); /* rebuilt and stored again */
        ck_assert_msg(log_has("hit") && !log_has("miss"), "mode %d: not stored again", mode);
    }
}
END_TEST

TU_TEST(untrusted_directories_are_not_used)
{
    char dir[4300], link[4400], files[8][4400];
    fresh_dir(dir, sizeof dir, "open");
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(run_child(dir), 0);
    ck_assert_int_eq(entries(dir, files, 8), 0); /* world-writable: ignored */

    fresh_dir(dir, sizeof dir, "target");
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(link, sizeof link, "%s/link", base);
    unlink(link);
    ck_assert_int_eq(symlink(dir, link), 0);
    ck_assert_int_eq(run_child(link), 0);
    ck_assert_int_eq(entries(dir, files, 8), 0); /* a symlink: ignored */

    ck_assert_int_eq(run_child("/proc/no/such/place"), 0); /* cannot create: still works */
}
END_TEST

/* Entries replaced by what a hostile or broken tree could hold: a symlink
   to a file elsewhere (never followed, never written through), a FIFO
   (never waited on), a directory. Each is a miss, and calls work. */
TU_TEST(hostile_entries_are_not_trusted)
{
    char dir[4300], files[8][4400], outside[4400];
    fresh_dir(dir, sizeof dir, "hostile");
    ck_assert_int_eq(run_child(dir), 0);
    int n = entries(dir, files, 8);
    ck_assert_int_ge(n, 1);
    snprintf(outside, sizeof outside, "%s/outside", base);
    FILE *f = fopen(outside, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a program binary", f);
    fclose(f);
    for (int mode = 0; mode < 3; mode++) {
        for (int i = 0; i < n; i++) {
            ck_assert_int_eq(remove(files[i]), 0);
            if (mode == 0)
                ck_assert_int_eq(symlink(outside, files[i]), 0);
            else if (mode == 1)
                ck_assert_int_eq(mkfifo(files[i], 0600), 0);
            else
                ck_assert_int_eq(mkdir(files[i], 0700), 0);
        }
        ck_assert_int_eq(run_child(dir), 0);
        ck_assert_msg(log_has("miss"), "mode %d: a hostile entry was trusted", mode);
    }
    struct stat st;
    ck_assert_int_eq(stat(outside, &st), 0);
    ck_assert_int_eq(st.st_size, (off_t)strlen("not a program binary"));
}
END_TEST

/* A directory owned by someone else (only root can make one here), a path
   that is a regular file, and a path too long for the system: no cache, and
   calls work. */
TU_TEST(unusable_directories_are_not_used)
{
    char dir[4300], files[8][4400];
    if (geteuid() == 0) {
        fresh_dir(dir, sizeof dir, "theirs");
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        ck_assert_int_eq(chown(dir, 65534, 65534), 0);
        ck_assert_int_eq(run_child(dir), 0);
        ck_assert_int_eq(entries(dir, files, 8), 0);
    }
    fresh_dir(dir, sizeof dir, "a-file");
    FILE *f = fopen(dir, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(run_child(dir), 0);
    char *longpath = tu_alloc(8200);
    memset(longpath, 'd', 8199);
    longpath[0] = '/';
    longpath[8199] = '\0';
    ck_assert_int_eq(run_child(longpath), 0);
    free(longpath);
}
END_TEST

TU_TEST(cache_can_be_turned_off)
{
    char dir[4300], files[8][4400];
    fresh_dir(dir, sizeof dir, "off");
    setenv("GPGPU_CACHE", "0", 1);
    ck_assert_int_eq(run_child(dir), 0);
    setenv("GPGPU_CACHE", "1", 1);
    ck_assert_int_eq(entries(dir, files, 8), 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    if (!realpath(argv[0], self))
        return 1;
    const char *top = getenv("top_builddir");
    snprintf(base, sizeof base, "%s/tests/.cache/cache-test", top ? top : ".");
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", base);
    if (system(cmd))
        return 1;
    /* The cache matters only with a device: the host fallback compiles nothing.
       CPU devices go without it unless asked (GPGPU_CACHE=1): these tests ask. */
    setenv("GPGPU_TEST_DEVICES", "default", 0);
    setenv("GPGPU_CACHE", "1", 1);
    return tu_run("cache", 300, NULL);
}
