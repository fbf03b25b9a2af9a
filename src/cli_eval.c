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
#include "cli.h"
#include "decode.h"
#include "evalset.h"
#include "json.h"
#include "model.h"
#include "scores.h"
#include "status.h"
#include "translator.h"

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
    TranslatorOptions to; /* --beam and --max-len (cli.h's decoding flags) */
    int skip_bad;
    int json;          /* --json: one JSON object instead of the text report */
    const char *hyp_out; /* --hyp-out: where the translations go, or NULL */
    int force;         /* --force: --hyp-out may replace a link or an SQLite file */
    int errors;        /* --errors: list the sentences that missed exact match */
} EvalOptions;

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
          "    sentences, exact, %% — in the order the labels first appear.\n"
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
          "  --force            let --hyp-out replace a symbolic link or an SQLite file\n"
          "  --errors           after the report, every sentence whose translation missed\n"
          "                     exact match: its line, source, reference and translation\n"
          "                     (--json: \"errors\", a list of objects with those keys)\n"
          "  --json             the scores as one JSON object: \"bleu\" and \"chrf\" with\n"
          "                     sacreBLEU's keys (name, score, signature, verbose_score),\n"
          "                     \"exact_match\", \"sentences\", \"references\", \"beam\",\n"
          "                     \"seconds\" and, with labels, \"constructions\"\n"
          "  -h, --help         show this help\n"
          "\n"
          "A source with more tokens than the model takes is reported and scored as an\n"
          "empty translation.\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 malformed test or\n"
          "reference file (its file and line are named), a reference file of the wrong\n"
          "length, or a source the model cannot take (scores are still printed), 5 a file\n"
          "cannot be read.\n",
          out);
}

static int eval_parse(EvalOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_TEST, O_REF, O_SKIP, O_JSON, O_HYPOUT, O_FORCE, O_ERRORS };
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
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_decode_begin(&o->to);
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
        if (strcmp(hyp_at(h, i), h->set->tgt[i]) == 0)
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
        if (strcmp(hyp_at(h, i), h->set->tgt[i]) == 0)
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

/* The whole report as one JSON object. */
static void print_json(const EvalOptions *o, const EvalSet *set, const Scores *sc,
                       const long *by_label, long exact, double secs, const EvalHyps *h)
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
    json_end_object(&w);
    json_finish(&w);
    putchar('\n');
}

/* Translates and scores every pair; prints the results. Returns the exit code. */
static int eval_run(const EvalOptions *o, const EvalSet *set, Translator *tr)
{
    Scores sc;
    scores_init(&sc);
    long exact = 0, failed = 0;
    long *by_label = calloc(set->n_labels ? set->n_labels * 2 : 1, sizeof *by_label);
    EvalHyps h = {set, NULL};
    const int keep = o->hyp_out || o->errors;
    if (keep)
        h.hyps = calloc(set->n, sizeof *h.hyps);
    if (!by_label || (keep && !h.hyps)) {
        fprintf(stderr, "toytrans eval: %s\n", status_message(TT_ENOMEM));
        free(h.hyps);
        free(by_label);
        scores_free(&sc);
        return TT_EXIT_IO;
    }
    int code = 0;
    char err[512];
    const double start = seconds_now();
    for (size_t i = 0; i < set->n && code == 0; i++) {
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
        const int same = strcmp(hyp, set->tgt[i]) == 0;
        exact += same;
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
    if (code == 0 && o->hyp_out)
        code = cli_write_file("eval", o->hyp_out, write_hyps, &h);
    if (code == 0 && o->json) {
        print_json(o, set, &sc, by_label, exact, secs, &h);
    } else if (code == 0) {
        const double n = (double)set->n;
        printf("test: %s, %zu sentence%s, %d reference set%s, beam %d\n", o->test_path,
               set->n, set->n == 1 ? "" : "s", set->n_refs, set->n_refs == 1 ? "" : "s",
               o->to.decode.beam);
        scores_write_text(stdout, &sc, EVAL_SIGNATURE_VERSION);
        printf("exact match: %ld/%zu = %.2f%%\n", exact, set->n, 100.0 * (double)exact / n);
        printf("time: %.3f s, %.1f sentences/s\n", secs, secs > 0.0 ? n / secs : 0.0);
        if (set->n_labels)
            print_constructions(set, by_label, exact);
        if (o->errors)
            print_errors(o, &h, exact);
    }
    if (code == 0 && failed) {
        fprintf(stderr, "toytrans eval: %ld source%s could not be translated\n", failed,
                failed == 1 ? "" : "s");
        code = TT_EXIT_INPUT;
    }
    for (size_t i = 0; h.hyps && i < set->n; i++)
        free(h.hyps[i]);
    free(h.hyps);
    scores_free(&sc);
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
    Translator tr;
    code = cli_translator_init("eval", &tr, &m, &o.to);
    if (code == 0)
        code = eval_run(&o, &set, &tr);
    translator_free(&tr);
    model_free(&m);
    evalset_free(&set);
    return code;
}
