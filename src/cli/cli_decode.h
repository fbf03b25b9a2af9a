/*
 * cli_decode.h — what the commands that translate share (translate, eval, inspect,
 * trace): the decoding flags, the read-back flags and the reverse model they choose,
 * and a translator's threads. Kept apart from cli.h so that a command which never
 * translates does not take in the model stack.
 */
#ifndef TOYTRANS_CLI_DECODE_H
#define TOYTRANS_CLI_DECODE_H

#include "base/pool.h"
#include "translate/readback.h"
#include "translate/translator.h"

#include <stdio.h>

/* --batch and --threads for a translator: opens a pool of threads (*pool, NULL for one
 * thread; the caller closes it after freeing tr) and lets tr decode batch sentences at
 * once. Returns 0, or an exit code after saying why on stderr. */
int cli_batch_open(const char *cmd, Translator *tr, int batch, int threads, Pool **pool);

/* cli_batch_open in two parts, for a caller with something to say first when it fails:
 * cli_batch_try returns a status and says nothing (*pool NULL on failure);
 * cli_batch_report says why on stderr and returns the exit code. */
int cli_batch_try(Translator *tr, int batch, int threads, Pool **pool);
int cli_batch_report(const char *cmd, int batch, int threads, int rc);

/* ---------------------------------------------------------------------------------------
 * The decoding flags: --prefix, --beam, --max-len and --n-best parsed, range-checked,
 * worded and documented here, once, for every command that takes them (translate all
 * four; eval --beam and --max-len; inspect --prefix). They fill the DecodeOptions and
 * the prefix of a TranslatorOptions. A command lists the ones it takes in its
 * getopt_long table (CLI_DECODE_OPTION_*) and its help (cli_decode_help), and in its
 * loop hands their codes to cli_decode_flag, between cli_decode_begin and
 * cli_decode_end.
 */

/* The flags' getopt_long codes: clear of the codes commands give their own options. */
enum {
    CLI_DECODE_PREFIX = 0x1000, /* --prefix TEXT */
    CLI_DECODE_BEAM,            /* --beam N, 1..DECODE_MAX_BEAM */
    CLI_DECODE_MAX_LEN,         /* --max-len N, 2..CONFIG_MAX_LEN */
    CLI_DECODE_N_BEST,          /* --n-best N, 1..DECODE_MAX_BEAM, at most the beam */
};

/* Their getopt_long entries (<getopt.h>), for a command's table. */
#define CLI_DECODE_OPTION_PREFIX {"prefix", required_argument, NULL, CLI_DECODE_PREFIX}
#define CLI_DECODE_OPTION_BEAM {"beam", required_argument, NULL, CLI_DECODE_BEAM}
#define CLI_DECODE_OPTION_MAX_LEN {"max-len", required_argument, NULL, CLI_DECODE_MAX_LEN}
#define CLI_DECODE_OPTION_N_BEST {"n-best", required_argument, NULL, CLI_DECODE_N_BEST}

/* Sets *o to translator_options_default() before the flags are parsed. */
void cli_decode_begin(TranslatorOptions *o);

/* Takes the value arg of the decoding flag with getopt code code (CLI_DECODE_*) into o.
 * A bad value prints "toytrans CMD: --FLAG: ..." and a hint to stderr and returns
 * TT_EXIT_USAGE; else returns 0. */
int cli_decode_flag(const char *cmd, int code, const char *arg, TranslatorOptions *o);

/* After the last flag: --n-best N without --beam makes the beam N wide, and a beam
 * narrower than --n-best is refused (TT_EXIT_USAGE, with the message). Returns 0 or
 * TT_EXIT_USAGE. */
int cli_decode_end(const char *cmd, TranslatorOptions *o);

/* Prints the help of the decoding flag code for a command whose option descriptions
 * start at column (the flag itself at column 2). */
void cli_decode_help(FILE *out, int code, int column);

/* translator_init for command cmd with the reporting every command shares: a bad
 * --prefix (TT_EINPUT) is a usage error, "toytrans CMD: --prefix ...", exit 2; any other
 * failure is printed as "toytrans CMD: ..." with its exit code. Returns 0 or that exit
 * code; on failure tr owns nothing. */
int cli_translator_init(const char *cmd, Translator *tr, const Model *m,
                        const TranslatorOptions *o);

/* What cli_translator_init says when translator_init fails with rc and err: the exit
 * code, after the message on stderr. */
int cli_translator_report(const char *cmd, int rc, const char *err);

/* ---------------------------------------------------------------------------------------
 * The read-back flags (translate, eval, inspect): --read-back, --no-read-back,
 * --read-back-model M, --read-back-margin X, parsed and documented here once; and the
 * reverse model they choose, opened and closed here (readback.h says what the check is).
 */

enum {
    CLI_READ_BACK = 0x1100,     /* --read-back */
    CLI_NO_READ_BACK,           /* --no-read-back */
    CLI_READ_BACK_MODEL,        /* --read-back-model M */
    CLI_READ_BACK_MARGIN,       /* --read-back-margin X */
};
#define CLI_READ_BACK_OPTIONS                                                   \
    {"read-back", no_argument, NULL, CLI_READ_BACK},                            \
    {"no-read-back", no_argument, NULL, CLI_NO_READ_BACK},                      \
    {"read-back-model", required_argument, NULL, CLI_READ_BACK_MODEL},          \
    {"read-back-margin", required_argument, NULL, CLI_READ_BACK_MARGIN}

/* What the flags chose. */
typedef struct {
    int mode;         /* CLI_READ_BACK_AUTO (the default), _OFF or _ON */
    const char *path; /* --read-back-model, or NULL: the reverse model beside the model */
    double margin;    /* --read-back-margin, nats; READBACK_MARGIN by default */
} CliReadBackOptions;
enum { CLI_READ_BACK_AUTO, CLI_READ_BACK_OFF, CLI_READ_BACK_ON };

/* The reverse model and the check, when there is one (rb.model not NULL). */
typedef struct {
    Model reverse;
    ReadBack rb;
    struct CliReadBackLoad *ahead; /* the reverse model's load started ahead, or NULL */
} CliReadBack;

/* The defaults: on when the reverse model is beside the model, READBACK_MARGIN. */
void cli_read_back_begin(CliReadBackOptions *o);

/* Takes read-back flag code (CLI_READ_BACK*) with value arg into o. Returns 0, or
 * TT_EXIT_USAGE with the message printed. */
int cli_read_back_flag(const char *cmd, int code, const char *arg, CliReadBackOptions *o);

/* The flags' help, for a command whose descriptions start at column. */
void cli_read_back_help(FILE *out, int column);

/* Opens the reverse model o chooses for the model m read from model_path: by default
 * "TGT-SRC.db" beside it (de-en.db beside an en→de model), and only when that file is
 * there and reads m's output back; the one --read-back-model names (which must load and
 * fit: exit 3 or 2 otherwise); none with --no-read-back. Returns 0 with c->rb.model set
 * or NULL, or the exit code with the message printed. It reads blocks back in batches
 * of batch, on pool's threads (readback_set_batch), as the command translates them. Close
 * with cli_read_back_close, which accepts a zeroed CliReadBack. c is zeroed, or as
 * cli_read_back_load_ahead left it. */
int cli_read_back_open(const char *cmd, CliReadBack *c, const CliReadBackOptions *o,
                       const Model *m, const char *model_path, int batch, Pool *pool);

/* Starts loading, on a thread of its own, the reverse model cli_read_back_open will want
 * for the model at model_path, while the caller loads that model: --read-back-model's, or
 * "TGT-SRC.db" beside a model file named "SRC-TGT.db". A load is mostly one long chain of
 * arithmetic (the content checksum), so two of them take the time of one on two cores.
 * cli_read_back_open (c as this leaves it, not zeroed again) takes the load if it settles
 * on the same file, with the same messages as its own load would give; otherwise it, or
 * cli_read_back_close, waits for the load and drops it. Nothing starts, and nothing is
 * said, when there is no such file or no thread. */
void cli_read_back_load_ahead(CliReadBack *c, const CliReadBackOptions *o,
                              const char *model_path);

/* A block of texts (n up to translator_ahead_capacity) decoded ahead by tr, and, with a
 * read-back rb (or NULL), their translations read back ahead in batches too: the
 * translator_run and readback_run calls that follow, for the same texts in the same
 * order, take that work (translator.h, readback.h). */
void cli_decode_ahead(Translator *tr, ReadBack *rb, const char *const *texts,
                      const size_t *lens, int n);
void cli_read_back_close(CliReadBack *c);

#endif
