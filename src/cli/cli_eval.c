/*
 * cli_eval.c — `toytrans eval`: translate a test set and score the translations.
 *
 * Two measures, both plain: exact match (the translation string equals the target
 * column, byte for byte) and corpus BLEU exactly as sacreBLEU computes it by default
 * (bleu.h), against the target column and any --ref files. The time is wall-clock time
 * for translating and scoring, model loading excluded.
 *
 * A test file whose lines carry a construction label (a third column) also gets exact
 * match per construction, in the order the labels first appear, so a weakness in one
 * construction is not averaged away.
 *
 * The whole test set is read and checked before the first translation, so a malformed
 * line or a reference file of the wrong length fails in a moment, not after the run.
 * A malformed TSV line stops the run (exit 4) unless --skip-bad-lines is given, as in
 * `toytrans vocab`. A source the model cannot take (too many tokens) is reported and
 * scored as an empty translation, so the score always covers the whole test set; the
 * run then ends with exit 4 after printing the scores.
 */
#include "base/json.h"
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_decode.h"
#include "eval/evalset.h"
#include "eval/scores.h"
#include "model/model.h"
#include "translate/decode.h"
#include "translate/translator.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVAL_MAX_REF_FILES 16

typedef struct {
    const char *model_path;
    const char *test_path;
    const char *ref_paths[EVAL_MAX_REF_FILES];
    int n_ref_files;
    TranslatorOptions to; /* --beam and --max-len (cli_decode.h's decoding flags) */
    int skip_bad;
    int json;          /* --json: one JSON object instead of the text report */
    const char *hyp_out; /* --hyp-out: where the translations go, or NULL */
    int force;         /* --force: --hyp-out may replace a link or an SQLite file */
    int errors;        /* --errors: list the sentences that missed exact match */
    int warnings;      /* --warnings: count translate's warnings on right and wrong
                          translations, per construction */
    double min_prob;   /* --min-prob X: the confidence row's threshold */
    CliReadBackOptions read_back; /* with --warnings: the read-back's flags */
    const char *equivalent_by; /* --equivalent-by M: the model of the other direction
                                  whose translation of a missed one back into the source
                                  makes it an equivalent reading, or NULL */
    long batch, threads; /* --batch, --threads */
} EvalOptions;

/* The warnings --warnings counts, as translate gives them (docs/honesty.md). */
enum { W_UNKNOWN, W_UNCOVERED, W_GRAMMAR, W_READ_BACK, W_KINDS };
static const char *const WARNING_NAMES[W_KINDS] = {"unknown-word", "not-translated",
                                                   "outside-grammar", "read-back"};

/* One group's tally: sentences, right ones, and which warnings fired on right and wrong
 * translations; the confidence row (min_prob below --min-prob) is counted apart and not
 * in "any", since translate does not warn about it. */
typedef struct {
    long n, correct;
    long wrong_warned, correct_warned;         /* any warning */
    long kind_wrong[W_KINDS], kind_correct[W_KINDS];
    long low_wrong, low_correct;               /* min_prob < --min-prob */
} WarnTally;

static void eval_usage(FILE *out)
{
    fputs("Usage: toytrans eval --test FILE [OPTIONS]\n"
          "\n"
          "Translates the source column of a test file (source TAB reference, one pair per\n"
          "line, optionally TAB construction; blank lines and lines whose first character\n"
          "is '#' are skipped, as in 'toytrans check') and scores the translations:\n"
          "  - BLEU as sacreBLEU computes it by default (13a tokenizer, mixed case, 4-grams,\n"
          "    'exp' smoothing, closest reference length), and chrF2 (character 6-grams,\n"
          "    beta 2), each printed as sacreBLEU's command line prints it, with its\n"
          "    signature ('version:toytrans-VERSION' where sacreBLEU gives its version);\n"
          "  - exact match: translations identical to the reference column, byte for byte;\n"
          "  - the wall-clock time taken, and sentences per second;\n"
          "  - when lines have a third column, a construction label made of a-z, 0-9 and\n"
          "    '-' (such as coord-clause or do-question), exact match per construction:\n"
          "    sentences, exact, % — in the order the labels first appear.\n"
          "\n"
          "Options:\n"
          "  --test FILE        the test file (required; '-' reads standard input)\n"
          "  --model M          the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                     model, else the source tree's; 'toytrans help model')\n"
          "  --ref FILE         more references, one per line, line k for line k of the test\n"
          "                     file (same number of lines; an empty line is no reference);\n"
          "                     may be given up to 16 times\n",
          out);
    /* The decoding flags' help comes from cli.c, as every command shows it. */
    cli_decode_help(out, CLI_DECODE_BEAM, 21);
    cli_decode_help(out, CLI_DECODE_MAX_LEN, 21);
    fputs("  --skip-bad-lines   report malformed test lines and leave them out (default:\n"
          "                     stop)\n"
          "  --hyp-out FILE     write the translations to FILE, one line per test pair in\n"
          "                     order ('-': standard output, before the report); FILE is\n"
          "                     written whole or not at all, never over an input file\n"
          "                     (--test - included: the file on standard input)\n"
          "  --force            let --hyp-out replace a symbolic link or an SQLite file\n"
          "  --errors           after the report, every sentence whose translation missed\n"
          "                     exact match: its line, source, reference and translation\n"
          "                     (--json: \"errors\", a list of objects with those keys)\n"
          "  --equivalent-by M  also count a translation that missed exact match but that\n"
          "                     model M (the other direction) translates back into the\n"
          "                     source exactly: another reading of an ambiguous source\n"
          "                     (German ihr: her or their; sie: she, they, her, them)\n"
          "  --warnings         after the report, the warnings' tally (below)\n"
          "  --min-prob X       the confidence row's threshold (default 0.5)\n"
          "  --batch N          translate N sentences at once (the translations are the\n"
          "                     same, bit for bit, whatever N)\n"
          "  --threads N        threads for translating (default 1; the same output)\n",
          out);
    fprintf(out, "                     (--batch's default: %d)\n", TRANSLATOR_DEFAULT_BATCH);
    cli_read_back_help(out, 21);
    fputs("  --json             the scores as one JSON object: \"bleu\" and \"chrf\" with\n"
          "                     sacreBLEU's keys (name, score, signature, verbose_score),\n"
          "                     \"exact_match\", \"sentences\", \"references\", \"beam\",\n"
          "                     \"seconds\" and, with labels, \"constructions\"; with\n"
          "                     --warnings, \"warnings\"\n"
          "  -h, --help         show this help\n"
          "\n"
          "A source with more tokens than the model takes is reported and scored as an\n"
          "empty translation.\n"
          "\n"
          "Warnings (--warnings): how often translate's warnings fire on right and on wrong\n"
          "translations (a translation is right when it is an exact match), per\n"
          "construction and in all: unknown-word, not-translated, outside-grammar,\n"
          "read-back (each apart, and any of them), and a confidence row, the lowest token\n"
          "probability below --min-prob X (default 0.5), which translate does not warn\n"
          "about. docs/honesty.md explains the warnings and the measurement.\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 malformed test or\n"
          "reference file (its file and line are named), a reference file of the wrong\n"
          "length, or a source the model cannot take (scores are still printed), 5 a file\n"
          "cannot be read.\n",
          out);
}

static int eval_parse(EvalOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_TEST, O_REF, O_SKIP, O_JSON, O_HYPOUT, O_FORCE, O_ERRORS,
           O_WARNINGS, O_MIN_PROB, O_EQUIV, O_BATCH, O_THREADS };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"test", required_argument, NULL, O_TEST},
        {"ref", required_argument, NULL, O_REF},
        CLI_DECODE_OPTION_BEAM,
        CLI_DECODE_OPTION_MAX_LEN,
        {"skip-bad-lines", no_argument, NULL, O_SKIP},
        {"json", no_argument, NULL, O_JSON},
        {"hyp-out", required_argument, NULL, O_HYPOUT},
        {"force", no_argument, NULL, O_FORCE},
        {"errors", no_argument, NULL, O_ERRORS},
        {"warnings", no_argument, NULL, O_WARNINGS},
        {"equivalent-by", required_argument, NULL, O_EQUIV},
        {"min-prob", required_argument, NULL, O_MIN_PROB},
        {"batch", required_argument, NULL, O_BATCH},
        {"threads", required_argument, NULL, O_THREADS},
        CLI_READ_BACK_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_decode_begin(&o->to);
    cli_read_back_begin(&o->read_back);
    o->to.coverage_min = TRANSLATOR_COVERAGE_MIN; /* as translate warns */
    o->min_prob = 0.5;
    o->batch = TRANSLATOR_DEFAULT_BATCH;
    o->threads = 1;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            o->model_path = optarg;
            break;
        case O_TEST:
            o->test_path = optarg;
            break;
        case O_REF:
            if (o->n_ref_files == EVAL_MAX_REF_FILES)
                return cli_usage_error("eval", "at most %d --ref files", EVAL_MAX_REF_FILES);
            o->ref_paths[o->n_ref_files++] = optarg;
            break;
        case CLI_DECODE_BEAM:
        case CLI_DECODE_MAX_LEN:
            if ((rc = cli_decode_flag("eval", c, optarg, &o->to)))
                return rc;
            break;
        case O_SKIP:
            o->skip_bad = 1;
            break;
        case O_JSON:
            o->json = 1;
            break;
        case O_HYPOUT:
            o->hyp_out = optarg;
            break;
        case O_FORCE:
            o->force = 1;
            break;
        case O_ERRORS:
            o->errors = 1;
            break;
        case O_WARNINGS:
            o->warnings = 1;
            break;
        case O_EQUIV:
            o->equivalent_by = optarg;
            break;
        case O_BATCH:
            if ((rc = cli_parse_long("eval", "--batch", optarg, 1, DECODE_MAX_BATCH,
                                     &o->batch)))
                return rc;
            break;
        case O_THREADS:
            if ((rc = cli_parse_long("eval", "--threads", optarg, 1, POOL_MAX_THREADS,
                                     &o->threads)))
                return rc;
            break;
        case O_MIN_PROB:
            if ((rc = cli_parse_double("eval", "--min-prob", optarg, 0.0, 1.0, &o->min_prob)))
                return rc;
            break;
        case CLI_READ_BACK:
        case CLI_NO_READ_BACK:
        case CLI_READ_BACK_MODEL:
        case CLI_READ_BACK_MARGIN:
            if ((rc = cli_read_back_flag("eval", c, optarg, &o->read_back)))
                return rc;
            break;
        case 'h':
            eval_usage(stdout);
            return -1;
        default:
            return cli_bad_option_in("eval", c, argv, LONG_OPTS);
        }
    }
    if ((rc = cli_decode_end("eval", &o->to)))
        return rc;
    if (optind < argc)
        return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
    if (!o->test_path)
        return cli_usage_error("eval", "--test FILE is required");
    o->model_path = cli_model_path(o->model_path);
    /* Checked before anything is read: --hyp-out never replaces what eval reads. */
    CliPath inputs[EVAL_MAX_REF_FILES + 2] = {{"--test", o->test_path}, {"--model", o->model_path}};
    for (int k = 0; k < o->n_ref_files; k++)
        inputs[2 + k] = (CliPath){"--ref", o->ref_paths[k]};
    return cli_check_output("eval", (CliPath){"--hyp-out", o->hyp_out}, CLI_OUT_TEXT, inputs,
                            2 + o->n_ref_files, o->force);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The table of exact match per construction: counts[2*k] sentences and counts[2*k+1]
 * exact matches of label k; exact is the whole set's. */
static void print_constructions(const EvalSet *set, const long *counts, long exact)
{
    int width = (int)strlen("construction");
    for (size_t k = 0; k < set->n_labels; k++)
        if ((int)strlen(set->labels[k]) > width)
            width = (int)strlen(set->labels[k]);
    printf("exact match by construction:\n");
    printf("  %-*s  %9s  %6s  %7s\n", width, "construction", "sentences", "exact", "%");
    long none = (long)set->n, none_exact = exact;
    for (size_t k = 0; k < set->n_labels; k++) {
        printf("  %-*s  %9ld  %6ld  %7.2f\n", width, set->labels[k], counts[2 * k],
               counts[2 * k + 1], 100.0 * (double)counts[2 * k + 1] / (double)counts[2 * k]);
        none -= counts[2 * k];
        none_exact -= counts[2 * k + 1];
    }
    /* Lines without a label, so that the rows add up to the whole. */
    if (none > 0)
        printf("  %-*s  %9ld  %6ld  %7.2f\n", width, "(none)", none, none_exact,
               100.0 * (double)none_exact / (double)none);
}

/* The implementation's name in score signatures. */
#define EVAL_SIGNATURE_VERSION "toytrans-" TOYTRANS_VERSION

/* The translations of a run, kept for --hyp-out and --errors. */
typedef struct {
    const EvalSet *set;
    char **hyps; /* (set->n) each pair's translation ("" when it failed); owned */
    unsigned char *same; /* (set->n) 1: pair i's translation is an exact match; owned */
} EvalHyps;

/* Pair i's translation; "" for one never reached (the run stopped before it). */
static const char *hyp_at(const EvalHyps *h, size_t i)
{
    return h->hyps && h->hyps[i] ? h->hyps[i] : "";
}

static int write_hyps(FILE *f, const void *ctx)
{
    const EvalHyps *h = ctx;
    for (size_t i = 0; i < h->set->n; i++)
        if (fputs(hyp_at(h, i), f) == EOF || fputc('\n', f) == EOF)
            return TT_EIO;
    return TT_OK;
}

/* --errors: each pair whose translation missed exact match, with its file and line. */
static void print_errors(const EvalOptions *o, const EvalHyps *h, long exact)
{
    const long missed = (long)h->set->n - exact;
    printf("missed exact match: %ld sentence%s\n", missed, missed == 1 ? "" : "s");
    for (size_t i = 0; i < h->set->n; i++) {
        if (h->same && h->same[i])
            continue;
        printf("  %s:%ld\n", o->test_path, h->set->line_no[i]);
        printf("    source       %s\n", h->set->src[i]);
        printf("    reference    %s\n", h->set->tgt[i]);
        printf("    translation  %s\n", hyp_at(h, i));
    }
}

/* --errors in JSON: "errors": [{"line", "source", "reference", "translation"}, ...]. */
static void json_errors(JsonWriter *w, const EvalHyps *h)
{
    json_key(w, "errors");
    json_begin_array(w);
    for (size_t i = 0; i < h->set->n; i++) {
        if (h->same && h->same[i])
            continue;
        json_begin_object(w);
        json_key(w, "line");
        json_int(w, h->set->line_no[i]);
        json_key(w, "source");
        json_string(w, h->set->src[i]);
        json_key(w, "reference");
        json_string(w, h->set->tgt[i]);
        json_key(w, "translation");
        json_string(w, hyp_at(h, i));
        json_end_object(w);
    }
    json_end_array(w);
}

/* Counts one translation's warnings into t. */
static void tally_add(WarnTally *t, const TranslatorResult *r, int ok, double min_prob)
{
    int fired[W_KINDS] = {r->n_unknown > 0, r->n_uncovered > 0, r->grammar == TR_GRAMMAR_OUT,
                          r->read_back.done && r->read_back.disagrees};
    int any = 0;
    t->n++;
    t->correct += ok;
    for (int k = 0; k < W_KINDS; k++) {
        any |= fired[k];
        t->kind_wrong[k] += fired[k] && !ok;
        t->kind_correct[k] += fired[k] && ok;
    }
    t->wrong_warned += any && !ok;
    t->correct_warned += any && ok;
    const int low = r->min_prob < min_prob;
    t->low_wrong += low && !ok;
    t->low_correct += low && ok;
}

/* The tally tables: one row per construction and "all" (tallies[n_labels]). */
static void print_warnings(const EvalOptions *o, const EvalSet *set, const WarnTally *tallies)
{
    int width = 12;
    for (size_t k = 0; k < set->n_labels; k++)
        if ((int)strlen(set->labels[k]) > width)
            width = (int)strlen(set->labels[k]);
    printf("warnings (right: an exact match; silent: wrong without a warning):\n");
    printf("  %-*s  %9s  %5s  %5s  %12s  %12s  %12s\n", width, "construction", "sentences",
           "right", "wrong", "wrong+warned", "wrong+silent", "right+warned");
    for (size_t k = 0; k <= set->n_labels; k++) {
        const WarnTally *t = &tallies[k];
        printf("  %-*s  %9ld  %5ld  %5ld  %12ld  %12ld  %12ld\n", width,
               k < set->n_labels ? set->labels[k] : "all", t->n, t->correct, t->n - t->correct,
               t->wrong_warned, t->n - t->correct - t->wrong_warned, t->correct_warned);
    }
    printf("each warning, on wrong / on right translations:\n");
    printf("  %-*s", width, "construction");
    for (int w = 0; w < W_KINDS; w++)
        printf("  %15s", WARNING_NAMES[w]);
    char low[32];
    snprintf(low, sizeof low, "min_prob<%g", o->min_prob);
    printf("  %15s\n", low);
    for (size_t k = 0; k <= set->n_labels; k++) {
        const WarnTally *t = &tallies[k];
        printf("  %-*s", width, k < set->n_labels ? set->labels[k] : "all");
        for (int w = 0; w < W_KINDS; w++) {
            char cell[32];
            snprintf(cell, sizeof cell, "%ld / %ld", t->kind_wrong[w], t->kind_correct[w]);
            printf("  %15s", cell);
        }
        char cell[32];
        snprintf(cell, sizeof cell, "%ld / %ld", t->low_wrong, t->low_correct);
        printf("  %15s\n", cell);
    }
}

static void json_warnings(JsonWriter *w, const EvalOptions *o, const EvalSet *set,
                          const WarnTally *tallies)
{
    json_key(w, "warnings");
    json_begin_array(w);
    for (size_t k = 0; k <= set->n_labels; k++) {
        const WarnTally *t = &tallies[k];
        json_begin_object(w);
        json_key(w, "construction");
        if (k < set->n_labels)
            json_string(w, set->labels[k]);
        else
            json_null(w);
        json_key(w, "sentences");
        json_int(w, t->n);
        json_key(w, "right");
        json_int(w, t->correct);
        json_key(w, "wrong_warned");
        json_int(w, t->wrong_warned);
        json_key(w, "wrong_silent");
        json_int(w, t->n - t->correct - t->wrong_warned);
        json_key(w, "right_warned");
        json_int(w, t->correct_warned);
        for (int kind = 0; kind < W_KINDS; kind++) {
            json_key(w, WARNING_NAMES[kind]);
            json_begin_object(w);
            json_key(w, "wrong");
            json_int(w, t->kind_wrong[kind]);
            json_key(w, "right");
            json_int(w, t->kind_correct[kind]);
            json_end_object(w);
        }
        json_key(w, "low_confidence");
        json_begin_object(w);
        json_key(w, "min_prob");
        json_float(w, o->min_prob);
        json_key(w, "wrong");
        json_int(w, t->low_wrong);
        json_key(w, "right");
        json_int(w, t->low_correct);
        json_end_object(w);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The whole report as one JSON object. */
static void print_json(const EvalOptions *o, const EvalSet *set, const Scores *sc,
                       const long *by_label, long exact, long equivalent, double secs,
                       const EvalHyps *h, const WarnTally *tallies)
{
    JsonWriter w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "test");
    json_string(&w, o->test_path);
    json_key(&w, "sentences");
    json_int(&w, (long long)set->n);
    json_key(&w, "references");
    json_int(&w, set->n_refs);
    json_key(&w, "beam");
    json_int(&w, o->to.decode.beam);
    scores_write_json(&w, sc, EVAL_SIGNATURE_VERSION);
    json_key(&w, "exact_match");
    json_begin_object(&w);
    json_key(&w, "exact");
    json_int(&w, exact);
    json_key(&w, "percent");
    json_float(&w, 100.0 * (double)exact / (double)set->n);
    json_end_object(&w);
    if (equivalent >= 0) {
        json_key(&w, "exact_or_equivalent");
        json_int(&w, equivalent);
    }
    json_key(&w, "seconds");
    json_float(&w, secs);
    if (set->n_labels) {
        json_key(&w, "constructions");
        json_begin_array(&w);
        for (size_t k = 0; k < set->n_labels; k++) {
            json_begin_object(&w);
            json_key(&w, "construction");
            json_string(&w, set->labels[k]);
            json_key(&w, "sentences");
            json_int(&w, by_label[2 * k]);
            json_key(&w, "exact");
            json_int(&w, by_label[2 * k + 1]);
            json_end_object(&w);
        }
        json_end_array(&w);
    }
    if (o->errors)
        json_errors(&w, h);
    if (o->warnings)
        json_warnings(&w, o, set, tallies);
    json_end_object(&w);
    json_finish(&w);
    putchar('\n');
}

/* Translates and scores every pair; prints the results. Returns the exit code. */
static int eval_run(const EvalOptions *o, const EvalSet *set, Translator *tr, ReadBack *rb,
                    Translator *back)
{
    Scores sc;
    scores_init(&sc);
    long exact = 0, failed = 0, equivalent = 0;
    long *by_label = calloc(set->n_labels ? set->n_labels * 2 : 1, sizeof *by_label);
    WarnTally *tallies = calloc(set->n_labels + 1, sizeof *tallies);
    EvalHyps h = {set, NULL, calloc(set->n ? set->n : 1, 1)};
    const int keep = o->hyp_out || o->errors;
    if (keep)
        h.hyps = calloc(set->n ? set->n : 1, sizeof *h.hyps);
    if (!by_label || !tallies || !h.same || (keep && !h.hyps)) {
        fprintf(stderr, "toytrans eval: %s\n", status_message(TT_ENOMEM));
        free(h.same);
        free(tallies);
        free(h.hyps);
        free(by_label);
        scores_free(&sc);
        return TT_EXIT_IO;
    }
    int code = 0;
    char err[512];
    const double start = seconds_now();
    size_t block = (size_t)translator_ahead_capacity(tr);
    const char **texts = block ? malloc(sizeof *texts * block) : NULL;
    size_t *lens = block ? malloc(sizeof *lens * block) : NULL;
    if (!texts || !lens)
        block = 0; /* out of memory: one sentence at a time, the same translations */
    for (size_t i = 0; i < set->n && code == 0; i++) {
        if (block > 0 && i % block == 0) {
            /* The next block decoded (and read back) in batches; translator_run (and
             * readback_run) take each. */
            const size_t nb = set->n - i < block ? set->n - i : block;
            for (size_t j = 0; j < nb; j++) {
                texts[j] = set->src[i + j];
                lens[j] = strlen(texts[j]);
            }
            cli_decode_ahead(tr, o->warnings ? rb : NULL, texts, lens, (int)nb);
        }
        TranslatorResult r;
        const char *hyp = "";
        int rc = translator_run(tr, set->src[i], strlen(set->src[i]), &r, err, sizeof err);
        if (rc == TT_OK) {
            hyp = r.text;
        } else if (rc == TT_EINPUT) {
            fprintf(stderr, "toytrans eval: %s:%ld: %s; scored as an empty translation\n",
                    o->test_path, set->line_no[i], err);
            failed++;
        } else {
            fprintf(stderr, "toytrans eval: %s:%ld: %s\n", o->test_path, set->line_no[i], err);
            code = status_exit_code(rc);
            break;
        }
        if (keep && !(h.hyps[i] = strdup(hyp))) {
            fprintf(stderr, "toytrans eval: %s\n", status_message(TT_ENOMEM));
            code = TT_EXIT_IO;
            break;
        }
        int same = 0;
        if (tokenizer_text_equal(hyp, set->tgt[i], config_lang_rules(tr->model->config.tgt_lang),
                                 &same) == TT_ENOMEM) {
            fprintf(stderr, "toytrans eval: %s\n", status_message(TT_ENOMEM));
            code = TT_EXIT_IO;
            break;
        }
        exact += same;
        h.same[i] = (unsigned char)same;
        if (back && !same && rc == TT_OK && hyp[0]) {
            TranslatorResult br;
            int again = 0;
            if (translator_run(back, hyp, strlen(hyp), &br, err, sizeof err) == TT_OK &&
                tokenizer_text_equal(br.text, set->src[i],
                                     config_lang_rules(back->model->config.tgt_lang),
                                     &again) == TT_OK)
                equivalent += again;
            rc = TT_OK; /* a reading the other model cannot take is simply not equivalent */
        }
        if (o->warnings && rc == TT_OK) {
            if (rb && (rc = readback_run(rb, set->src[i], strlen(set->src[i]), hyp,
                                         &r.read_back, err, sizeof err)) != TT_OK) {
                fprintf(stderr, "toytrans eval: %s:%ld: read-back: %s\n", o->test_path,
                        set->line_no[i], err);
                code = status_exit_code(rc);
                break;
            }
            tally_add(&tallies[set->n_labels], &r, same, o->min_prob);
            if (set->label_of[i] >= 0)
                tally_add(&tallies[set->label_of[i]], &r, same, o->min_prob);
        }
        if (set->label_of[i] >= 0) {
            by_label[2 * set->label_of[i]]++;
            by_label[2 * set->label_of[i] + 1] += same;
        }
        rc = scores_add(&sc, hyp, set->refs + i * (size_t)set->n_refs, set->n_refs);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans eval: %s:%ld: scoring: %s\n", o->test_path,
                    set->line_no[i], status_message(rc));
            code = status_exit_code(rc);
        }
    }
    const double secs = seconds_now() - start;
    free(lens);
    free(texts);
    if (code == 0 && o->hyp_out)
        code = cli_write_file("eval", o->hyp_out, write_hyps, &h);
    if (code == 0 && o->json) {
        print_json(o, set, &sc, by_label, exact, back ? exact + equivalent : -1, secs, &h,
                   tallies);
    } else if (code == 0) {
        const double n = (double)set->n;
        printf("test: %s, %zu sentence%s, %d reference set%s, beam %d\n", o->test_path,
               set->n, set->n == 1 ? "" : "s", set->n_refs, set->n_refs == 1 ? "" : "s",
               o->to.decode.beam);
        scores_write_text(stdout, &sc, EVAL_SIGNATURE_VERSION);
        printf("exact match: %ld/%zu = %.2f%%\n", exact, set->n, 100.0 * (double)exact / n);
        if (back)
            printf("exact match or an equivalent reading: %ld/%zu = %.2f%%\n", exact + equivalent,
                   set->n, 100.0 * (double)(exact + equivalent) / n);
        printf("time: %.3f s, %.1f sentences/s\n", secs, secs > 0.0 ? n / secs : 0.0);
        if (set->n_labels)
            print_constructions(set, by_label, exact);
        if (o->errors)
            print_errors(o, &h, exact);
        if (o->warnings)
            print_warnings(o, set, tallies);
    }
    if (code == 0 && failed) {
        fprintf(stderr, "toytrans eval: %ld source%s could not be translated\n", failed,
                failed == 1 ? "" : "s");
        code = TT_EXIT_INPUT;
    }
    for (size_t i = 0; h.hyps && i < set->n; i++)
        free(h.hyps[i]);
    free(h.hyps);
    free(h.same);
    scores_free(&sc);
    free(tallies);
    free(by_label);
    return code;
}

int cli_eval(int argc, char **argv)
{
    EvalOptions o;
    int code = eval_parse(&o, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;

    char err[1024];
    EvalSet set;
    int rc = evalset_load(&set, o.test_path, o.ref_paths, o.n_ref_files, o.skip_bad, stderr,
                          err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans eval: %s\n", err);
        return status_exit_code(rc);
    }
    if (set.bad_lines)
        fprintf(stderr, "toytrans eval: skipped %ld malformed line%s\n", set.bad_lines,
                set.bad_lines == 1 ? "" : "s");
    if (set.n == 0) {
        fprintf(stderr, "toytrans eval: %s: no sentence pairs to evaluate\n", o.test_path);
        evalset_free(&set);
        return TT_EXIT_INPUT;
    }

    Model m;
    rc = model_load_file(&m, o.model_path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans eval: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("eval", o.model_path, rc);
        evalset_free(&set);
        return status_exit_code(rc);
    }
    if (config_is_reverse(&m.config))
        evalset_reverse(&set);
    Translator tr;
    CliReadBack rb = {0};
    code = cli_translator_init("eval", &tr, &m, &o.to);
    Pool *pool = NULL;
    if (code == 0)
        code = cli_batch_open("eval", &tr, (int)o.batch, (int)o.threads, &pool);
    if (code == 0 && o.warnings)
        code = cli_read_back_open("eval", &rb, &o.read_back, &m, o.model_path, (int)o.batch,
                                  pool);
    Model back_model;
    Translator back = {0};
    const int have_back = code == 0 && o.equivalent_by;
    if (have_back) {
        rc = model_load_file(&back_model, o.equivalent_by, err, sizeof err);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans eval: --equivalent-by: %s\n", err);
            code = status_exit_code(rc);
        } else if (!readback_fits(&m, &back_model)) {
            code = cli_usage_error("eval", "--equivalent-by %s translates %s→%s, not back "
                                   "from %s to %s", o.equivalent_by, back_model.config.src_lang,
                                   back_model.config.tgt_lang, m.config.tgt_lang,
                                   m.config.src_lang);
        } else {
            TranslatorOptions bo = translator_options_default();
            code = cli_translator_init("eval", &back, &back_model, &bo);
        }
    }
    if (code == 0)
        code = eval_run(&o, &set, &tr, rb.rb.model ? &rb.rb : NULL,
                        have_back ? &back : NULL);
    translator_free(&back);
    if (have_back && rc == TT_OK)
        model_free(&back_model);
    cli_read_back_close(&rb);
    translator_free(&tr);
    pool_close(pool);
    model_free(&m);
    evalset_free(&set);
    return code;
}
