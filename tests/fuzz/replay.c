/*
 * replay.c — runs a fuzz harness over files, without libFuzzer.
 *
 * Usage: fuzz_NAME PATH...   Each PATH is a file or a directory whose files (not its
 * subdirectories or hidden files) are run in name order. This is libFuzzer's main cut
 * down to what a regression run needs: LLVMFuzzerInitialize once, then
 * LLVMFuzzerTestOneInput on the whole contents of each file. A broken property aborts
 * the process, so the exit status is 0 only when every input passed; 1 when a file
 * cannot be read.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* Reads the whole of path into *data (malloc'd, owned by the caller) and *size. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int rc = buf && !ferror(f) ? 0 : -1;
    fclose(f);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *size = n;
    return 0;
}

/* Runs the harness on one file. Returns 0, or -1 if it cannot be read. */
static int run_file(const char *path)
{
    uint8_t *data;
    size_t size;
    if (read_file(path, &data, &size) != 0) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int not_hidden(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    long inputs = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            failed = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            failed |= run_file(argv[i]) != 0;
            inputs++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, not_hidden, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            failed = 1;
            continue;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
                failed |= run_file(path) != 0;
                inputs++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("%s: %ld inputs replayed%s\n", argv[0], inputs, failed ? ", some unreadable" : "");
    return failed;
}
