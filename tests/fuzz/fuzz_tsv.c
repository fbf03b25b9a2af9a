/*
 * fuzz_tsv.c — arbitrary bytes as a parallel corpus (tsv.h) and a test set (evalset.h).
 *
 * The input is split at its first 0xFF byte (which no valid line holds): the bytes
 * before it are the TSV file, the bytes after it, if there is a 0xFF, a reference file
 * for evalset_load. Both go into memory files (memfd), which the readers open by their
 * /proc/self/fd path as they would open any file, so nothing is written to disk.
 *
 * For every input:
 *   - tsv_next returns only TT_OK, TT_EINPUT (with a message naming the file and line)
 *     and finally TSV_END, within one call per line; every pair has non-blank sides of
 *     the stated lengths, without TAB or LF, valid UTF-8, on increasing lines, and a
 *     label that is absent or one or more of a-z 0-9 '-'; a reader without labels
 *     refuses every line that one with labels takes with a label;
 *   - evalset_load with skip_bad keeps exactly those pairs, counts the refused lines as
 *     bad_lines and every line in lines; without skip_bad it succeeds exactly when no
 *     line was refused;
 *   - with the reference file, evalset_load either succeeds, each pair's first reference
 *     being its target, or refuses with TT_EINPUT and a message.
 */
#define _GNU_SOURCE /* memfd_create */

#include "fuzz.h"

#include "base/status.h"
#include "eval/evalset.h"
#include "text/tokenizer.h"
#include "text/tsv.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The memory files, made once and rewritten for each input. */
static int tsv_fd = -1, ref_fd = -1;
static char tsv_path[64], ref_path[64];
static FILE *devnull;

static void cleanup(void)
{
    if (tsv_fd >= 0)
        close(tsv_fd);
    if (ref_fd >= 0)
        close(ref_fd);
    if (devnull)
        fclose(devnull);
}

static int make_file(const char *name, char *path, size_t size)
{
    int fd = memfd_create(name, 0);
    if (fd < 0) {
        perror("fuzz_tsv: memfd_create");
        abort();
    }
    snprintf(path, size, "/proc/self/fd/%d", fd);
    return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    tsv_fd = make_file("fuzz.tsv", tsv_path, sizeof tsv_path);
    ref_fd = make_file("fuzz.ref", ref_path, sizeof ref_path);
    devnull = fopen("/dev/null", "w");
    FUZZ_ASSERT(devnull);
    atexit(cleanup);
    return 0;
}

/* Replaces the contents of fd with size bytes of data. */
static void fill(int fd, const uint8_t *data, size_t size)
{
    FUZZ_ASSERT(ftruncate(fd, 0) == 0);
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        FUZZ_ASSERT(n > 0);
        done += (size_t)n;
    }
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

static void check_pair(const TsvPair *p)
{
    FUZZ_ASSERT(p->src && p->tgt);
    FUZZ_ASSERT(strlen(p->src) == p->src_len && strlen(p->tgt) == p->tgt_len);
    FUZZ_ASSERT(!blank(p->src, p->src_len) && !blank(p->tgt, p->tgt_len));
    FUZZ_ASSERT(!strpbrk(p->src, "\t\n") && !strpbrk(p->tgt, "\t\n"));
    FUZZ_ASSERT(tokenizer_validate(p->src, p->src_len, NULL) == TT_OK);
    FUZZ_ASSERT(tokenizer_validate(p->tgt, p->tgt_len, NULL) == TT_OK);
    if (p->label) {
        FUZZ_ASSERT(p->label_len > 0 && strlen(p->label) == p->label_len);
        FUZZ_ASSERT(strspn(p->label, "abcdefghijklmnopqrstuvwxyz0123456789-") == p->label_len);
    } else {
        FUZZ_ASSERT(p->label_len == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0xFF, size);
    const size_t tsv_size = sep ? (size_t)(sep - data) : size;
    fill(tsv_fd, data, tsv_size);
    if (sep)
        fill(ref_fd, sep + 1, size - tsv_size - 1);

    /* The reader on its own. */
    TsvReader r;
    char err[512];
    FUZZ_ASSERT(tsv_open(&r, tsv_path, err, sizeof err) == TT_OK);
    TsvReader plain; /* the same file without labels */
    FUZZ_ASSERT(tsv_open(&plain, tsv_path, err, sizeof err) == TT_OK);
    r.labels = 1;
    /* Comment lines skipped, as evalset reads a test set (compared below). */
    r.comments = plain.comments = 1;
    long ok = 0, bad = 0, last_line = 0, calls = 0;
    int rc;
    TsvPair pair, plain_pair;
    char plain_err[512];
    while ((rc = tsv_next(&r, &pair, err, sizeof err)) != TSV_END) {
        const int plain_rc = tsv_next(&plain, &plain_pair, plain_err, sizeof plain_err);
        FUZZ_ASSERT(plain.line_no == r.line_no);
        if (rc == TT_OK)
            FUZZ_ASSERT(plain_rc == (pair.label ? TT_EINPUT : TT_OK));
        else
            FUZZ_ASSERT(plain_rc == TT_EINPUT);
        FUZZ_ASSERT(++calls <= (long)tsv_size + 1);
        FUZZ_ASSERT(rc == TT_OK || rc == TT_EINPUT);
        FUZZ_ASSERT(r.line_no > last_line);
        last_line = r.line_no;
        FUZZ_ASSERT(r.offset >= 0 && r.offset < r.in.next &&
                    r.in.next <= (long)tsv_size);
        if (rc == TT_OK) {
            FUZZ_ASSERT(pair.line_no == r.line_no);
            FUZZ_ASSERT(!tsv_is_comment(pair.src, pair.src_len));
            check_pair(&pair);
            ok++;
        } else {
            FUZZ_ASSERT(strncmp(err, tsv_path, strlen(tsv_path)) == 0);
            bad++;
        }
    }
    FUZZ_ASSERT(r.in.next == (long)tsv_size);
    FUZZ_ASSERT(tsv_next(&plain, &plain_pair, plain_err, sizeof plain_err) == TSV_END);
    tsv_close(&plain);
    const long lines = r.line_no;
    tsv_close(&r);

    /* The test set, skipping bad lines: the same pairs, in the same order. */
    EvalSet s;
    rc = evalset_load(&s, tsv_path, NULL, 0, 1, devnull, err, sizeof err);
    if (rc == TT_ENOMEM)
        return 0;
    FUZZ_ASSERT(rc == TT_OK);
    FUZZ_ASSERT(s.n == (size_t)ok && s.bad_lines == bad && s.lines == lines && s.n_refs == 1);
    FUZZ_ASSERT(tsv_open(&r, tsv_path, err, sizeof err) == TT_OK);
    r.labels = 1;
    r.comments = 1;
    size_t i = 0;
    while ((rc = tsv_next(&r, &pair, err, sizeof err)) != TSV_END) {
        if (rc != TT_OK)
            continue;
        FUZZ_ASSERT(i < s.n);
        FUZZ_ASSERT(strcmp(s.src[i], pair.src) == 0 && strcmp(s.tgt[i], pair.tgt) == 0);
        FUZZ_ASSERT(s.line_no[i] == pair.line_no && s.refs[i] == s.tgt[i]);
        if (pair.label)
            FUZZ_ASSERT(s.label_of[i] >= 0 && (size_t)s.label_of[i] < s.n_labels &&
                        strcmp(s.labels[s.label_of[i]], pair.label) == 0);
        else
            FUZZ_ASSERT(s.label_of[i] == -1);
        i++;
    }
    FUZZ_ASSERT(i == s.n);
    tsv_close(&r);
    evalset_free(&s);

    /* Without skipping: all or nothing. */
    rc = evalset_load(&s, tsv_path, NULL, 0, 0, NULL, err, sizeof err);
    FUZZ_ASSERT(rc == (bad ? TT_EINPUT : TT_OK) || rc == TT_ENOMEM);
    if (rc == TT_OK)
        FUZZ_ASSERT(s.n == (size_t)ok && s.bad_lines == 0);
    else
        FUZZ_ASSERT(s.n == 0 && !s.src && !s.refs);
    evalset_free(&s);

    /* With the reference file. */
    if (sep) {
        const char *refs[] = {ref_path};
        err[0] = '\0';
        rc = evalset_load(&s, tsv_path, refs, 1, 1, NULL, err, sizeof err);
        FUZZ_ASSERT(rc == TT_OK || rc == TT_EINPUT || rc == TT_ENOMEM);
        if (rc == TT_OK) {
            FUZZ_ASSERT(s.n == (size_t)ok && s.n_refs == 2);
            for (size_t k = 0; k < s.n; k++) {
                FUZZ_ASSERT(s.refs[2 * k] == s.tgt[k] && s.refs[2 * k + 1]);
                const char *ref = s.refs[2 * k + 1];
                FUZZ_ASSERT(!strchr(ref, '\n'));
                FUZZ_ASSERT(tokenizer_validate(ref, strlen(ref), NULL) == TT_OK);
            }
        } else if (rc == TT_EINPUT) {
            FUZZ_ASSERT(err[0] != '\0');
        }
        evalset_free(&s);
    }
    return 0;
}
