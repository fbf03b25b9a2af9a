/*
 * cli_init.c — `toytrans init`: a randomly initialised model, vocabulary included.
 *
 * The model translates nonsense, but deterministically: it is the starting point of
 * training and a way to exercise every command before a trained model exists.
 */
#include "base/rng.h"
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_shape.h"
#include "model/config.h"
#include "model/model.h"
#include "model/store.h"
#include "text/vocab.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void init_usage(FILE *out)
{
    fputs("Usage: toytrans init --out M.db --train FILE [OPTIONS]\n"
          "\n"
          "Builds the vocabularies from a parallel corpus (as 'toytrans vocab' does) and\n"
          "writes a new model file with Xavier/Glorot-uniform weights, zero biases and\n"
          "LayerNorm weights of one.\n"
          "\n"
          "Options:\n"
          "  --out M.db        the model file to create (required)\n"
          "  --train FILE      the corpus for the vocabularies (required)\n",
          out);
    cli_shape_usage(out, 18);
    fputs("  --min-count N     keep tokens seen at least N times (default 1)\n"
          "  --seed N          seed of the initialisation (default 1)\n"
          "  --force           replace M.db if it exists\n"
          "  -h, --help        show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 4 malformed corpus line, 5 a file cannot\n"
          "be read or written.\n",
          out);
}

int cli_init(int argc, char **argv)
{
    enum { O_OUT = 256, O_TRAIN, O_MIN, O_SEED, O_FORCE };
    static const struct option OWN_OPTS[] = {
        {"out", required_argument, NULL, O_OUT},
        {"train", required_argument, NULL, O_TRAIN},
        {"min-count", required_argument, NULL, O_MIN},
        {"seed", required_argument, NULL, O_SEED},
        {"force", no_argument, NULL, O_FORCE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct option opts[sizeof OWN_OPTS / sizeof OWN_OPTS[0] + CLI_SHAPE_MAX_OPTS];
    cli_shape_options(opts, sizeof opts / sizeof opts[0], OWN_OPTS);
    const char *out = NULL, *train = NULL;
    ModelConfig c;
    config_defaults(&c);
    long min_count = 1;
    uint64_t seed = 1;
    int force = 0, rc, opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (opt) {
        case O_OUT:
            out = optarg;
            break;
        case O_TRAIN:
            train = optarg;
            break;
        case O_MIN:
            if ((rc = cli_parse_long("init", "--min-count", optarg, 1, 1000000000, &min_count)))
                return rc;
            break;
        case O_SEED:
            if ((rc = cli_parse_u64("init", "--seed", optarg, &seed)))
                return rc;
            break;
        case O_FORCE:
            force = 1;
            break;
        case 'h':
            init_usage(stdout);
            return TT_EXIT_OK;
        default:
            if ((rc = cli_shape_parse("init", opt, optarg, &c)) < 0)
                return -rc;
            if (rc == 0)
                return cli_bad_option_in("init", opt, argv, opts);
        }
    }
    if (optind < argc)
        return cli_usage_error("init", "unexpected argument '%s'", argv[optind]);
    if (!out || !train)
        return cli_usage_error("init", "--out and --train are required");
    const CliPath inputs[1] = {{"--train", train}};
    if ((rc = cli_check_output("init", (CliPath){"--out", out}, CLI_OUT_NEW_MODEL, inputs, 1, force)))
        return rc;
    char err[512];
    if (config_check(&c, err, sizeof err) != TT_OK)
        return cli_usage_error("init", "%s", err);

    VocabCounter csrc, ctgt;
    vocab_counter_init(&csrc);
    vocab_counter_init(&ctgt);
    Vocab src = {0}, tgt = {0};
    Model m = {0};
    Store *s = NULL;
    CorpusCount count;
    rc = vocab_count_corpus(train, 0, config_is_reverse(&c), &csrc, &ctgt, &count, NULL, NULL, err,
                            sizeof err);
    if (rc == TT_OK)
        rc = vocab_build(&src, &csrc, min_count);
    if (rc == TT_OK)
        rc = vocab_build(&tgt, &ctgt, min_count);
    if (rc == TT_OK)
        rc = model_init(&m, &c, &src, &tgt, err, sizeof err);
    if (rc == TT_OK) {
        Rng rng;
        rng_seed(&rng, seed);
        model_randomize(&m, &rng);
        const ModelContents contents = {.weights = &m};
        const ModelProvenance prov = {
            .created_by = "toytrans " TOYTRANS_VERSION " init",
            .vocab_corpus = train,
            .vocab_corpus_pairs = (uint64_t)count.pairs,
            .vocab_corpus_fnv1a64 = count.checksum,
            .vocab_min_count = (uint64_t)min_count,
            .init_seed = seed,
        };
        rc = model_create(&s, out, force ? STORE_REPLACE : STORE_CREATE, &contents, &prov, err,
                          sizeof err);
    }
    if (rc == TT_OK)
        rc = store_commit(s, err, sizeof err);
    int close_rc = store_close(s, rc == TT_OK ? err : NULL, sizeof err);
    if (rc == TT_OK)
        rc = close_rc;
    int code = 0;
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans init: %s%s\n", err[0] ? err : status_message(rc),
                rc == TT_EEXIST ? " (--force replaces it)" : "");
        code = status_exit_code(rc);
    } else {
        printf("%s: a random model, %zu parameters (d_model %d, %d heads, %d+%d layers, d_ff "
               "%d, max_len %d%s), vocabularies %d + %d from %ld pairs\n",
               out, m.n_params, c.d_model, c.n_heads, c.n_encoder_layers, c.n_decoder_layers,
               c.d_ff, c.max_len, c.qkv_bias ? ", qkv bias" : "", m.src_vocab.size,
               m.tgt_vocab.size, count.pairs);
    }
    model_free(&m);
    vocab_free(&tgt);
    vocab_free(&src);
    vocab_counter_free(&ctgt);
    vocab_counter_free(&csrc);
    return code;
}
