/*
 * status.c — messages and exit codes for the result codes of status.h.
 */
#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>

const char *status_message(int rc)
{
    switch (rc) {
    case TT_OK:
        return "success";
    case TT_ENOMEM:
        return "out of memory";
    case TT_EINVAL:
        return "invalid argument (a zero dimension or shapes that disagree)";
    case TT_EINPUT:
        return "malformed input";
    case TT_EIO:
        return "input/output error";
    case TT_EMODEL:
        return "model file unusable";
    case TT_EDIVERGED:
        return "training diverged (NaN or Inf)";
    case TT_EINTR:
        return "interrupted after a clean save";
    case TT_EEXIST:
        return "the output file already exists";
    default:
        return "unknown error";
    }
}

int status_exit_code(int rc)
{
    switch (rc) {
    case TT_OK:
        return TT_EXIT_OK;
    case TT_EINVAL:
    case TT_EEXIST: /* a usage matter: --force says to replace it */
        return TT_EXIT_USAGE;
    case TT_EINPUT:
        return TT_EXIT_INPUT;
    case TT_EMODEL:
        return TT_EXIT_MODEL;
    case TT_EDIVERGED:
        return TT_EXIT_DIVERGED;
    case TT_EINTR:
        return TT_EXIT_INTERRUPTED;
    case TT_ENOMEM: /* fall through: the run could not finish its I/O */
    case TT_EIO:
    default:
        return TT_EXIT_IO;
    }
}

size_t tt_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (!err || errlen == 0)
        return 0;
    const int n = vsnprintf(err, errlen, fmt, ap);
    if (n < 0) {
        err[0] = '\0';
        return 0;
    }
    return (size_t)n < errlen ? (size_t)n : errlen - 1;
}

void tt_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tt_verrf(err, errlen, fmt, ap);
    va_end(ap);
}
