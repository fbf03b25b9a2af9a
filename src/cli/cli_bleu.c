/*
 * cli_bleu.c — `toytrans bleu HYP REF [REF...]`: score translations that already exist.
 *
 * As `sacrebleu REF... < HYP` does: line k of HYP is scored against line k of every
 * REF, and the corpus BLEU and chrF2 are printed with sacreBLEU's signatures (scores.h).
 * Everything is read and checked before anything is printed.
 */
#include "base/json.h"
#include "base/status.h"
#include "cli/cli.h"
#include "eval/evalset.h"
#include "eval/scores.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define BLEU_MAX_REF_FILES 16

static void bleu_usage(FILE *out)
{
    fputs("Usage: toytrans bleu [OPTIONS] HYP REF [REF...]\n"
          "\n"
          "Scores a file of translations without translating, as 'sacrebleu REF < HYP'\n"
          "does: line k of HYP against line k of every REF. Prints corpus BLEU (13a\n"
          "tokenizer, mixed case, 4-grams, 'exp' smoothing) and chrF2 (character 6-grams,\n"
          "beta 2), each as sacreBLEU's command line prints it, with its signature\n"
          "('version:toytrans-VERSION' where sacreBLEU gives its version).\n"
          "\n"
          "HYP '-' reads standard input. Every REF needs as many lines as HYP (up to 16\n"
          "REF files); an empty reference line is no reference, and every line needs one\n"
          "reference that is not empty. A byte-order mark and CR line ends are taken off.\n"
          "A line may have at most 65536 bytes (as everywhere in toytrans); a longer one\n"
          "is refused after its first 65537, not read whole.\n"
          "\n"
          "Options:\n"
          "  --json             the scores as one JSON object: \"bleu\" and \"chrf\" with\n"
          "                     sacreBLEU's keys (name, score, signature, verbose_score),\n"
          "                     \"sentences\" and \"references\"\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 4 a line that is not valid UTF-8 or is\n"
          "too long, a REF of the wrong length, or a line with no reference (file and line are named),\n"
          "5 a file cannot be read.\n",
          out);
}

int cli_bleu(int argc, char **argv)
{
    static const struct option LONG_OPTS[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'h':
            bleu_usage(stdout);
            return TT_EXIT_OK;
        default:
            return cli_bad_option_in("bleu", c, argv, LONG_OPTS);
        }
    }
    const int n_refs = argc - optind - 1;
    if (n_refs < 1)
        return cli_usage_error("bleu", "expected HYP and at least one REF file");
    if (n_refs > BLEU_MAX_REF_FILES)
        return cli_usage_error("bleu", "at most %d REF files", BLEU_MAX_REF_FILES);
    const char *hyp_path = argv[optind];
    const char *const *ref_paths = (const char *const *)argv + optind + 1;
    for (int k = 0; k < n_refs; k++)
        if (strcmp(ref_paths[k], "-") == 0)
            return cli_usage_error("bleu", "a REF cannot be '-'; only HYP reads standard input");

    char err[1024];
    EvalSet set;
    int rc = evalset_load_hyp(&set, hyp_path, ref_paths, n_refs, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans bleu: %s\n", err);
        return status_exit_code(rc);
    }
    Scores sc;
    scores_init(&sc);
    for (size_t i = 0; i < set.n && rc == TT_OK; i++) {
        rc = scores_add(&sc, set.hyp[i], set.refs + i * (size_t)set.n_refs, set.n_refs);
        if (rc == TT_EINPUT)
            fprintf(stderr, "toytrans bleu: line %ld: no reference (every REF line is "
                            "empty)\n", set.line_no[i]);
        else if (rc != TT_OK)
            fprintf(stderr, "toytrans bleu: line %ld: %s\n", set.line_no[i],
                    status_message(rc));
    }
    if (rc == TT_OK && json) {
        JsonWriter w;
        json_init(&w, stdout);
        json_begin_object(&w);
        json_key(&w, "sentences");
        json_int(&w, (long long)set.n);
        json_key(&w, "references");
        json_int(&w, set.n_refs);
        scores_write_json(&w, &sc, "toytrans-" TOYTRANS_VERSION);
        json_end_object(&w);
        json_finish(&w);
        putchar('\n');
    } else if (rc == TT_OK) {
        scores_write_text(stdout, &sc, "toytrans-" TOYTRANS_VERSION);
    }
    scores_free(&sc);
    evalset_free(&set);
    return status_exit_code(rc);
}
