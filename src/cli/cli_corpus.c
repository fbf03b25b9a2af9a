/*
 * cli_corpus.c — `toytrans corpus`: write the English→German corpus of docs/corpus.md.
 *
 * The command only parses, calls corpus_write and prints a summary; the grammar, the
 * sampling and the all-or-nothing file writing live in corpus.c.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "corpus/corpus.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *out_dir; /* --out-dir, default "data"; points into argv */
    const char *lexicon; /* --lexicon, default CORPUS_DEFAULT_LEXICON; points into argv */
    const char *phrasebook; /* --phrasebook, or NULL: no phrase construction; into argv */
    uint64_t seed;       /* --seed, default CORPUS_DEFAULT_SEED */
    long n_train;        /* --train, 1..CORPUS_MAX_PAIRS */
    long n_valid;        /* --valid, 0..CORPUS_MAX_PAIRS */
    long n_test;         /* --test, 0..CORPUS_MAX_PAIRS; the three sum to <= CORPUS_MAX_PAIRS */
    int force;           /* --force: replace a symbolic link or an SQLite file at an output */
} CorpusOptions;

static void corpus_usage(FILE *out)
{
    fprintf(out,
            "Usage: toytrans corpus [OPTIONS]\n"
            "\n"
            "Writes the English→German corpus of docs/corpus.md from the words of a\n"
            "lexicon file: DIR/train.tsv, DIR/valid.tsv and DIR/test.tsv, one\n"
            "\"English<TAB>German\" pair per line; test.tsv has a third column naming each\n"
            "sentence's construction (coord-clause, do-question, ...), which 'toytrans\n"
            "eval' reports on. The sentences are distinct across the three files (compared\n"
            "lower-cased, contractions expanded, without commas and final punctuation),\n"
            "train.tsv starts with the pair\n"
            "    %s<TAB>%s\n"
            "and the same options always write byte-identical files.\n"
            "\n"
            "Options:\n"
            "  --out-dir DIR   where to write (default: data; created if missing)\n"
            "  --lexicon FILE  the words (default: %s)\n"
            "  --phrasebook FILE\n"
            "                  also write the phrase construction: the fixed expressions\n"
            "                  of FILE (lines phrase<TAB>English<TAB>German, e.g.\n"
            "                  data/phrasebook.tsv), in the forms a user types;\n"
            "                  without it, no phrases (as make corpus writes today)\n"
            "  --seed N        seed of the MT19937 generator (default %u)\n"
            "  --train N       pairs in train.tsv, the seed pair included (default %d)\n"
            "  --valid N       pairs in valid.tsv (default %d)\n"
            "  --test N        pairs in test.tsv (default %d)\n"
            "                  (at most %d pairs in all)\n"
            "  --force         replace a symbolic link or an SQLite file at DIR/train.tsv,\n"
            "                  DIR/valid.tsv or DIR/test.tsv (the lexicon and the\n"
            "                  phrasebook never)\n"
            "  -h, --help      show this help\n"
            "\n"
            "Exit status: 0 on success, 2 for a bad command line (an output that is the\n"
            "lexicon, a link or an SQLite file without --force), 4 for a malformed\n"
            "lexicon (file and line named) or phrasebook (every bad line named: file,\n"
            "line, byte offset), 5 when a file cannot be read or written (no partial\n"
            "file is left behind). See 'toytrans help exit-codes'.\n",
            CORPUS_SEED_EN, CORPUS_SEED_DE, CORPUS_DEFAULT_LEXICON, CORPUS_DEFAULT_SEED, CORPUS_DEFAULT_TRAIN,
            CORPUS_DEFAULT_VALID, CORPUS_DEFAULT_TEST, CORPUS_MAX_PAIRS);
}

/* Parses argv into opts. Returns 0 to go on, or the exit code to end with (-1 for a
 * --help that was printed: exit 0). */
static int corpus_parse(CorpusOptions *opts, int argc, char **argv)
{
    enum { OPT_OUT_DIR = 256, OPT_LEXICON, OPT_PHRASEBOOK, OPT_SEED, OPT_TRAIN, OPT_VALID,
           OPT_TEST, OPT_FORCE };
    static const struct option LONG_OPTS[] = {
        {"out-dir", required_argument, NULL, OPT_OUT_DIR},
        {"lexicon", required_argument, NULL, OPT_LEXICON},
        {"phrasebook", required_argument, NULL, OPT_PHRASEBOOK},
        {"seed", required_argument, NULL, OPT_SEED},
        {"train", required_argument, NULL, OPT_TRAIN},
        {"valid", required_argument, NULL, OPT_VALID},
        {"test", required_argument, NULL, OPT_TEST},
        {"force", no_argument, NULL, OPT_FORCE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *opts = (CorpusOptions){.out_dir = "data", .lexicon = CORPUS_DEFAULT_LEXICON, .seed = CORPUS_DEFAULT_SEED,
                            .n_train = CORPUS_DEFAULT_TRAIN, .n_valid = CORPUS_DEFAULT_VALID,
                            .n_test = CORPUS_DEFAULT_TEST};
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case OPT_OUT_DIR:
            if (optarg[0] == '\0')
                return cli_usage_error("corpus", "--out-dir: the directory name is empty");
            opts->out_dir = optarg;
            break;
        case OPT_LEXICON:
            if (optarg[0] == '\0')
                return cli_usage_error("corpus", "--lexicon: the file name is empty");
            opts->lexicon = optarg;
            break;
        case OPT_PHRASEBOOK:
            if (optarg[0] == '\0')
                return cli_usage_error("corpus", "--phrasebook: the file name is empty");
            opts->phrasebook = optarg;
            break;
        case OPT_SEED:
            if ((rc = cli_parse_u64("corpus", "--seed", optarg, &opts->seed)))
                return rc;
            break;
        case OPT_TRAIN:
            if ((rc = cli_parse_long("corpus", "--train", optarg, 1, CORPUS_MAX_PAIRS,
                                     &opts->n_train)))
                return rc;
            break;
        case OPT_VALID:
            if ((rc = cli_parse_long("corpus", "--valid", optarg, 0, CORPUS_MAX_PAIRS,
                                     &opts->n_valid)))
                return rc;
            break;
        case OPT_TEST:
            if ((rc = cli_parse_long("corpus", "--test", optarg, 0, CORPUS_MAX_PAIRS,
                                     &opts->n_test)))
                return rc;
            break;
        case OPT_FORCE:
            opts->force = 1;
            break;
        case 'h':
            corpus_usage(stdout);
            return -1;
        default:
            return cli_bad_option_in("corpus", c, argv, LONG_OPTS);
        }
    }
    if (optind < argc)
        return cli_usage_error("corpus", "unexpected argument '%s'", argv[optind]);
    const long total = opts->n_train + opts->n_valid + opts->n_test;
    if (total > CORPUS_MAX_PAIRS)
        return cli_usage_error("corpus", "--train + --valid + --test is %ld, more than %d",
                               total, CORPUS_MAX_PAIRS);
    /* The three files are outputs as any other: never over the lexicon or the phrasebook. */
    static const char *const FILES[] = {"train.tsv", "valid.tsv", "test.tsv"};
    const CliPath inputs[2] = {{"--lexicon", opts->lexicon}, {"--phrasebook", opts->phrasebook}};
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", opts->out_dir, FILES[i]) >= sizeof path)
            return cli_usage_error("corpus", "--out-dir %s: the path is too long",
                                   opts->out_dir);
        if ((rc = cli_check_output("corpus", (CliPath){"--out-dir", path}, CLI_OUT_TEXT, inputs,
                                   2, opts->force)))
            return rc;
    }
    return 0;
}

int cli_corpus(int argc, char **argv)
{
    CorpusOptions opts;
    int code = corpus_parse(&opts, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;

    CorpusStats stats;
    char err[4096]; /* a phrasebook's message names up to PHRASEBOOK_MAX_REPORTED lines */
    err[0] = '\0';
    Lexicon *lex = NULL;
    Phrasebook *book = NULL;
    int rc = corpus_lexicon_load(&lex, opts.lexicon, err, sizeof err);
    if (rc == TT_OK && opts.phrasebook)
        rc = phrasebook_load(&book, opts.phrasebook, err, sizeof err);
    if (rc == TT_OK)
        rc = corpus_write(opts.out_dir, lex, book, opts.seed, (int)opts.n_train,
                          (int)opts.n_valid, (int)opts.n_test, &stats, err, sizeof err);
    phrasebook_free(book);
    corpus_lexicon_free(lex);
    if (rc != TT_OK) {
        if (!err[0])
            fprintf(stderr, "toytrans corpus: %s\n", status_message(rc));
        /* One line of stderr per message line, each with the command's name. */
        for (const char *line = err; *line;) {
            const size_t n = strcspn(line, "\n");
            fprintf(stderr, "toytrans corpus: %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
        return status_exit_code(rc);
    }
    long total = 0;
    for (int t = 0; t < CORPUS_N_TYPES; t++)
        total += stats.pairs[t];
    if (opts.phrasebook)
        printf("toytrans corpus: seed %llu, %ld pairs, %ld of them phrases of %s, the others "
               "with distinct cores (%ld sentences drawn)\n", (unsigned long long)opts.seed,
               total, stats.pairs[CORPUS_PHRASE], opts.phrasebook, stats.draws);
    else
        printf("toytrans corpus: seed %llu, %ld pairs with distinct cores (%ld sentences "
               "drawn)\n", (unsigned long long)opts.seed, total, stats.draws);
    printf("  %s/train.tsv  %7ld pairs\n", opts.out_dir, opts.n_train);
    printf("  %s/valid.tsv  %7ld pairs\n", opts.out_dir, opts.n_valid);
    printf("  %s/test.tsv   %7ld pairs\n", opts.out_dir, opts.n_test);
    for (int t = 0; t < (opts.phrasebook ? CORPUS_N_TYPES : CORPUS_N_GRAMMAR); t++)
        printf("  %-14s %7ld pairs (%4.1f%%)\n", corpus_type_name((CorpusType)t),
               stats.pairs[t], 100.0 * (double)stats.pairs[t] / (double)total);
    return TT_EXIT_OK;
}
