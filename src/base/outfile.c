/*
 * outfile.c — a new file written beside its final path and renamed over it.
 */
#include "base/outfile.h"

#include "base/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(OutFile *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int outfile_open(OutFile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    const size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    o->path = malloc(strlen(path) + 1);
    if (!o->tmp || !o->path) {
        release(o);
        if (err && errlen)
            snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
        errno = ENOMEM;
        return TT_ENOMEM;
    }
    strcpy(o->path, path);
    snprintf(o->tmp, n, "%s.%ld.tmp", path, (long)getpid());
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 2; attempt++) {
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || unlink(o->tmp) != 0))
            break;
    }
    if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
        const int saved = errno;
        close(fd);
        remove(o->tmp);
        errno = saved;
    }
    if (!o->f) {
        const int saved = errno;
        if (err && errlen)
            snprintf(err, errlen, "cannot create %s beside %s: %s", o->tmp, path,
                     strerror(saved));
        release(o);
        errno = saved;
        return TT_EIO;
    }
    return TT_OK;
}

int outfile_commit(OutFile *o, char *err, size_t errlen)
{
    const char *step = NULL;
    int saved = 0;
    if (ferror(o->f)) {
        step = "cannot write";
        saved = EIO;
    } else if (fflush(o->f) != 0) {
        step = "cannot write";
        saved = errno;
    } else if (fsync(fileno(o->f)) != 0) {
        step = "cannot sync";
        saved = errno;
    }
    if (fclose(o->f) != 0 && !step) {
        step = "cannot write";
        saved = errno;
    }
    o->f = NULL;
    if (!step && rename(o->tmp, o->path) != 0) {
        step = "cannot move the new file into place";
        saved = errno;
    }
    if (step) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s: %s", o->path, step, strerror(saved));
        remove(o->tmp);
    }
    release(o);
    errno = saved;
    return step ? TT_EIO : TT_OK;
}

void outfile_abort(OutFile *o)
{
    if (!o || !o->tmp)
        return;
    const int saved = errno;
    if (o->f)
        fclose(o->f);
    remove(o->tmp);
    release(o);
    errno = saved;
}
