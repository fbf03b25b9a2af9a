/*
 * outfile.h — a new file written beside its final path and renamed over it.
 *
 * Nothing ever half-replaces an output. The text goes to PATH.PID.tmp — named for this
 * process, so two runs never share a temporary file; created with O_EXCL and
 * O_NOFOLLOW, so a link planted at that name is not followed — and is flushed and
 * synced, and only then renamed over PATH. A failed or abandoned write removes the
 * temporary file and leaves PATH as it was.
 */
#ifndef TOYTRANS_OUTFILE_H
#define TOYTRANS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;    /* the stream to write; NULL once committed or aborted */
    char *tmp;  /* PATH.PID.tmp, owned */
    char *path; /* PATH, owned */
} OutFile;

/* Creates PATH.PID.tmp for writing. A file of that name can only have been left by a
 * dead process that had this process's id, so it is replaced. Returns TT_OK, TT_ENOMEM
 * or TT_EIO (errno set, err naming the temporary file); on failure o holds nothing. */
int outfile_open(OutFile *o, const char *path, char *err, size_t errlen);

/* Flushes, syncs and closes the stream and renames the temporary file over PATH.
 * Returns TT_OK or TT_EIO (errno set, err saying which step failed; the temporary file
 * is removed and PATH is as it was). Releases o either way. */
int outfile_commit(OutFile *o, char *err, size_t errlen);

/* Closes the stream and removes the temporary file; PATH is as it was. Accepts a zeroed,
 * committed or aborted o. Keeps errno. */
void outfile_abort(OutFile *o);

#endif
