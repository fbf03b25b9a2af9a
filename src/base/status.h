/*
 * status.h — the one result-code convention of toytrans.
 *
 * The folder base/ is the ground floor and knows nothing of translation: result codes
 * (here), allocation, buffers from a table, random numbers, checksums, threads, the
 * numerical kernels, files written whole, JSON, XML, bounded line reading and "did you
 * mean". It includes no other folder. docs/design.md lists the folders and their
 * modules.
 *
 * Every library function that can fail returns an int: TT_OK (0) on success or one of
 * the negative codes below. Callers that want a sentence for a person call
 * status_message(); the command-line front end turns a code into a process exit code
 * with status_exit_code(). Only main() ever calls exit().
 */
#ifndef TOYTRANS_STATUS_H
#define TOYTRANS_STATUS_H

#include <stdarg.h>
#include <stddef.h>

enum {
    TT_OK = 0,        /* success */
    TT_ENOMEM = -1,   /* an allocation failed */
    TT_EINVAL = -2,   /* the caller broke a contract: zero dimension, shapes that disagree */
    TT_EINPUT = -3,   /* input text or a matrix file is malformed */
    TT_EIO = -4,      /* reading or writing a file failed, or the disk is full */
    TT_EMODEL = -5,   /* a model file is missing, damaged or of the wrong format */
    TT_EDIVERGED = -6, /* training met a NaN or Inf; the last good checkpoint is kept */
    TT_EINTR = -7,    /* stopped by a signal after a clean save */
    TT_EEXIST = -8,   /* a new output file would replace an existing one (--force) */
};

/* Process exit codes: one table for every command (`toytrans help exit-codes`). */
enum {
    TT_EXIT_OK = 0,            /* success */
    TT_EXIT_FAILED = 1,        /* a check or comparison failed */
    TT_EXIT_USAGE = 2,         /* bad command line */
    TT_EXIT_MODEL = 3,         /* model file unusable */
    TT_EXIT_INPUT = 4,         /* invalid input text */
    TT_EXIT_IO = 5,            /* I/O error or disk full */
    TT_EXIT_DIVERGED = 6,      /* training diverged */
    TT_EXIT_INTERRUPTED = 130, /* interrupted after a clean save */
};

/* A static, never-NULL sentence for rc (an unknown code gets a generic one). */
const char *status_message(int rc);

/* The exit code a command should end with after failing with rc. */
int status_exit_code(int rc);

/* Writes a message for a person into err, printf-style, truncated to errlen bytes: the
 * one writer for the library's (char *err, size_t errlen) parameters. Does nothing when
 * err is NULL or errlen is 0. tt_verrf is the same with a va_list, for a formatter of
 * its own (one that names a file and line first, or appends a line); it returns the
 * bytes written, the NUL left out. */
void tt_errf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
size_t tt_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

#endif
