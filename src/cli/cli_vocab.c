/*
 * cli_vocab.c — `toytrans vocab`: count a corpus's tokens and start a model file.
 *
 * The model file it writes already follows the whole contract: format meta, the
 * hyper-parameters, both vocabularies and an embedding row for every entry (Xavier
 * uniform, from --seed). Asked with --lists DIR, it also writes the human-readable
 * lists en.tsv and de.tsv; `make vocab` writes the committed ones in vocab/, so a change
 * in the vocabulary shows in review.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_shape.h"
#include "model/config.h"
#include "model/model.h"
#include "model/store.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char *train;
    const char *out;
    const char *vocab_dir; /* NULL: do not write the lists */
    char list_paths[2][4096]; /* VOCAB_DIR/en.tsv and VOCAB_DIR/de.tsv, with vocab_dir */
    long min_count;
    uint64_t seed;
    int force;
    int skip_bad;
    ModelConfig config;
} VocabOptions;

static void vocab_usage(FILE *out)
{
    fputs("Usage: toytrans vocab --train FILE --out MODEL.db [OPTIONS]\n"
          "\n"
          "Counts the tokens of each side of a parallel corpus (source TAB target, one\n"
          "pair per line), assigns ids — 0 <pad>, 1 <unk>, 2 <s>, 3 </s>, then by\n"
          "descending count, ties in byte order — and writes a new model file with both\n"
          "vocabularies and randomly initialised embeddings; with --lists, also the\n"
          "readable lists en.tsv and de.tsv (id, token, count).\n"
          "\n"
          "Options:\n"
          "  --train FILE       the corpus (required)\n"
          "  --out MODEL.db     the model file to create (required)\n"
          "  --min-count N      keep tokens seen at least N times (default 1)\n"
          "  --lists DIR        also write en.tsv and de.tsv into DIR, an existing\n"
          "                     directory (default: no lists; 'make vocab' writes the\n"
          "                     committed ones in vocab/). --vocab-dir is the older name\n"
          "  --no-lists         write no lists (the default)\n"
          "  The configuration the file records (the embeddings are d-model wide):\n",
          out);
    cli_shape_usage(out, 19);
    fputs(          "  --seed N           seed of the embedding initialisation (default 1)\n"
          "  --force            replace MODEL.db if it exists, and a symbolic link or\n"
          "                     SQLite file at DIR/en.tsv or DIR/de.tsv (never the corpus\n"
          "                     or the model)\n"
          "  --skip-bad-lines   report malformed corpus lines and go on (default: stop)\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 4 malformed corpus line (its file, line\n"
          "and byte are named), 5 a file cannot be read or written.\n",
          out);
}

static int vocab_parse(VocabOptions *o, int argc, char **argv)
{
    enum { O_TRAIN = 256, O_OUT, O_MIN, O_DIR, O_NOLISTS, O_SEED, O_FORCE, O_SKIP };
    static const struct option OWN_OPTS[] = {
        {"train", required_argument, NULL, O_TRAIN},
        {"out", required_argument, NULL, O_OUT},
        {"min-count", required_argument, NULL, O_MIN},
        {"lists", required_argument, NULL, O_DIR},
        {"vocab-dir", required_argument, NULL, O_DIR},
        {"no-lists", no_argument, NULL, O_NOLISTS},
        {"seed", required_argument, NULL, O_SEED},
        {"force", no_argument, NULL, O_FORCE},
        {"skip-bad-lines", no_argument, NULL, O_SKIP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct option opts[sizeof OWN_OPTS / sizeof OWN_OPTS[0] + CLI_SHAPE_MAX_OPTS];
    cli_shape_options(opts, sizeof opts / sizeof opts[0], OWN_OPTS);
    memset(o, 0, sizeof *o);
    o->vocab_dir = NULL;
    o->min_count = 1;
    o->seed = 1;
    config_defaults(&o->config);
    optind = 1;
    opterr = 0;
    int c, rc, heads_given = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_TRAIN:
            o->train = optarg;
            break;
        case O_OUT:
            o->out = optarg;
            break;
        case O_MIN:
            if ((rc = cli_parse_long("vocab", "--min-count", optarg, 1, 1000000000, &o->min_count)))
                return rc;
            break;
        case O_DIR:
            o->vocab_dir = optarg;
            break;
        case O_NOLISTS:
            o->vocab_dir = NULL;
            break;
        case O_SEED:
            if ((rc = cli_parse_u64("vocab", "--seed", optarg, &o->seed)))
                return rc;
            break;
        case O_FORCE:
            o->force = 1;
            break;
        case O_SKIP:
            o->skip_bad = 1;
            break;
        case 'h':
            vocab_usage(stdout);
            return -1;
        default:
            if (c == cli_shape_opt("n_heads"))
                heads_given = 1;
            if ((rc = cli_shape_parse("vocab", c, optarg, &o->config)) < 0)
                return -rc;
            if (rc == 0)
                return cli_bad_option_in("vocab", c, argv, opts);
        }
    }
    if (optind < argc)
        return cli_usage_error("vocab", "unexpected argument '%s'", argv[optind]);
    if (!o->train || !o->out)
        return cli_usage_error("vocab", "--train and --out are required");
    /* The lists' directory is checked before anything is written, so that a bad one
     * does not leave a new model behind. */
    if (o->vocab_dir) {
        struct stat st;
        const int found = stat(o->vocab_dir, &st) == 0;
        if (!found || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "toytrans vocab: --lists %s: %s\n", o->vocab_dir,
                    found ? "not a directory" : strerror(errno));
            return TT_EXIT_IO;
        }
    }
    const CliPath inputs[2] = {{"--train", o->train}, {"--out", o->out}};
    if ((rc = cli_check_output("vocab", (CliPath){"--out", o->out}, CLI_OUT_NEW_MODEL, inputs, 1,
                               o->force)))
        return rc;
    /* The lists are outputs as the model is: never over the corpus, the model (old or
     * new) or each other; a link or an SQLite file only with --force. */
    if (o->vocab_dir) {
        CliPath outs[3] = {{"--out", o->out}, {"--lists", o->list_paths[0]},
                           {"--lists", o->list_paths[1]}};
        for (int i = 0; i < 2; i++) {
            const char *file = i == 0 ? "en.tsv" : "de.tsv";
            if ((size_t)snprintf(o->list_paths[i], sizeof o->list_paths[i], "%s/%s",
                                 o->vocab_dir, file) >= sizeof o->list_paths[i])
                return cli_usage_error("vocab", "--lists %s: the path is too long",
                                       o->vocab_dir);
            if ((rc = cli_check_output("vocab", outs[i + 1], CLI_OUT_TEXT, inputs, 2,
                                       o->force)))
                return rc;
        }
        if ((rc = cli_check_distinct_outputs("vocab", outs, 3)))
            return rc;
    }
    /* Heads must divide d_model; with a custom width and the default heads, fall back
     * to one head if needed. */
    if (!heads_given && o->config.d_model % o->config.n_heads != 0)
        o->config.n_heads = 1;
    char err[512];
    if (config_check(&o->config, err, sizeof err) != TT_OK)
        return cli_usage_error("vocab", "%s", err);
    return 0;
}

/* Writes the model file: configuration, vocabularies and embeddings. Returns an exit
 * code. */
static int vocab_write_model(const VocabOptions *o, const Vocab *src, const Vocab *tgt,
                             long pairs, uint64_t checksum)
{
    char err[512] = "";
    const ModelContents contents = {.config = &o->config, .src = src, .tgt = tgt};
    const ModelProvenance prov = {
        .created_by = "toytrans " TOYTRANS_VERSION " vocab",
        .vocab_corpus = o->train,
        .vocab_corpus_pairs = (uint64_t)pairs,
        .vocab_corpus_fnv1a64 = checksum,
        .vocab_min_count = (uint64_t)o->min_count,
        .init_seed = o->seed,
    };
    Store *s = NULL;
    int rc = model_create(&s, o->out, o->force ? STORE_REPLACE : STORE_CREATE, &contents, &prov,
                          err, sizeof err);
    if (rc == TT_OK)
        rc = store_commit(s, err, sizeof err);
    int close_rc = store_close(s, rc == TT_OK ? err : NULL, sizeof err);
    if (rc == TT_OK)
        rc = close_rc;
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans vocab: %s%s\n", err[0] ? err : status_message(rc),
                rc == TT_EEXIST ? " (--force replaces it)" : "");
        return status_exit_code(rc);
    }
    return 0;
}

int cli_vocab(int argc, char **argv)
{
    VocabOptions o;
    int code = vocab_parse(&o, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;

    VocabCounter csrc, ctgt;
    vocab_counter_init(&csrc);
    vocab_counter_init(&ctgt);
    Vocab src = {0}, tgt = {0};
    CorpusCount count;
    char err[512];
    int crc = vocab_count_corpus(o.train, o.skip_bad, config_is_reverse(&o.config), &csrc,
                                 &ctgt, &count, stderr, NULL, err, sizeof err);
    if (crc != TT_OK) {
        fprintf(stderr, "toytrans vocab: %s\n", err);
        code = status_exit_code(crc);
    } else if (count.bad_lines) {
        fprintf(stderr, "toytrans vocab: skipped %ld malformed line%s\n", count.bad_lines,
                count.bad_lines == 1 ? "" : "s");
    }
    const long pairs = count.pairs;
    const uint64_t checksum = count.checksum;
    if (code == 0) {
        int rc = vocab_build(&src, &csrc, o.min_count);
        if (rc == TT_OK)
            rc = vocab_build(&tgt, &ctgt, o.min_count);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans vocab: %s\n", status_message(rc));
            code = status_exit_code(rc);
        }
    }
    if (code == 0)
        code = vocab_write_model(&o, &src, &tgt, pairs, checksum);
    if (code == 0 && o.vocab_dir) {
        const Vocab *lists[2] = {&src, &tgt};
        for (int i = 0; i < 2 && code == 0; i++) {
            if (vocab_write_tsv(lists[i], o.list_paths[i], err, sizeof err) != TT_OK) {
                fprintf(stderr, "toytrans vocab: %s\n", err);
                code = TT_EXIT_IO;
            }
        }
    }
    if (code == 0)
        printf("%s: %d source and %d target tokens (min count %ld) from %ld pairs of %s%s%s\n",
               o.out, src.size, tgt.size, o.min_count, pairs, o.train,
               o.vocab_dir ? "; lists in " : "", o.vocab_dir ? o.vocab_dir : "");
    vocab_free(&tgt);
    vocab_free(&src);
    vocab_counter_free(&ctgt);
    vocab_counter_free(&csrc);
    return code;
}
