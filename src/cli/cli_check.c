/*
 * cli_check.c — `toytrans check`: regression tests on fixed sentences.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "eval/check.h"
#include "model/model.h"
#include "translate/decode.h"
#include "translate/translator.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_usage(FILE *out)
{
    fputs("Usage: toytrans check FILE [--model M] [--golden G [--update [--force]]]\n"
          "                      [--tolerance X]\n"
          "\n"
          "Translates the fixed sentences of FILE — one case per line: source TAB expected\n"
          "translation [TAB prefix] ('#' lines and blank lines are skipped) — and prints\n"
          "PASS or FAIL for each (with expected, got and the first differing word), then\n"
          "'N passed, M failed'.\n"
          "\n"
          "Options:\n"
          "  --model M        the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                   model, else the source tree's; 'toytrans help model')\n"
          "  --golden G       also compare every step's log-probability and attention\n"
          "                   weights with G (JSON Lines as 'translate --json' writes them,\n"
          "                   one per case, in order)\n"
          "  --update         rewrite G from this run instead (on purpose: after a change\n"
          "                   that is meant to move the numbers); G is written as every\n"
          "                   output is: never over FILE or the model, never over a\n"
          "                   model a training run is writing, over a symbolic link or\n"
          "                   an SQLite database only with --force\n"
          "  --force          with --update: replace a symbolic link or SQLite file at G\n"
          "  --tolerance X    allowed difference of a number (default 1e-4)\n",
          out);
    fprintf(out,
            "  --batch N        decode N cases at once (default %d; a case with a prefix\n"
            "                   alone); the results are the same whatever N\n",
            TRANSLATOR_DEFAULT_BATCH);
    fputs("  --threads N      threads for decoding (default 1; the same results)\n"
          "  -h, --help       show this help\n"
          "\n"
          "Exit status: 0 all passed, 1 a case failed, 2 bad command line, 3 unusable model,\n"
          "4 a malformed line in FILE (named by its line number), 5 a file cannot be read\n"
          "or written.\n",
          out);
}

int cli_check(int argc, char **argv)
{
    enum { O_MODEL = 256, O_GOLDEN, O_UPDATE, O_FORCE, O_TOL, O_BATCH, O_THREADS };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"golden", required_argument, NULL, O_GOLDEN},
        {"update", no_argument, NULL, O_UPDATE},
        {"force", no_argument, NULL, O_FORCE},
        {"tolerance", required_argument, NULL, O_TOL},
        {"batch", required_argument, NULL, O_BATCH},
        {"threads", required_argument, NULL, O_THREADS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *model_path = NULL, *golden = NULL;
    int update = 0, force = 0, c, rc;
    long batch = TRANSLATOR_DEFAULT_BATCH, threads = 1;
    double tol = CHECK_DEFAULT_TOLERANCE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            model_path = optarg;
            break;
        case O_GOLDEN:
            golden = optarg;
            break;
        case O_UPDATE:
            update = 1;
            break;
        case O_FORCE:
            force = 1;
            break;
        case O_BATCH:
            if ((rc = cli_parse_long("check", "--batch", optarg, 1, DECODE_MAX_BATCH, &batch)))
                return rc;
            break;
        case O_THREADS:
            if ((rc = cli_parse_long("check", "--threads", optarg, 1, POOL_MAX_THREADS,
                                     &threads)))
                return rc;
            break;
        case O_TOL: {
            char *end;
            tol = strtod(optarg, &end);
            if (end == optarg || *end || !(tol >= 0 && tol <= 1e6))
                return cli_usage_error("check", "--tolerance: '%s' is not a number from 0 to 1e6",
                                       optarg);
            break;
        }
        case 'h':
            check_usage(stdout);
            return TT_EXIT_OK;
        default:
            return cli_bad_option_in("check", c, argv, LONG_OPTS);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("check", "expected one FILE of cases");
    if (update && !golden)
        return cli_usage_error("check", "--update needs --golden G");
    if (force && !update)
        return cli_usage_error("check", "--force goes with --update (it is about the file "
                               "--update writes)");
    const char *path = cli_model_path(model_path);
    const CliPath inputs[] = {{"--model", path}, {"FILE", argv[optind]}};
    if (update && (rc = cli_check_output("check", (CliPath){"--golden", golden}, CLI_OUT_TEXT,
                                         inputs, 2, force)))
        return rc;
    Model m;
    char err[512] = "";
    rc = model_load_file(&m, path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans check: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("check", path, rc);
        return status_exit_code(rc);
    }
    CheckSummary sum;
    Pool *pool = NULL;
    rc = threads > 1 ? pool_open(&pool, (int)threads) : TT_OK;
    if (rc == TT_OK)
        rc = check_run(&m, argv[optind], golden, update, tol, (int)batch, pool, stdout, &sum,
                       err, sizeof err);
    pool_close(pool);
    model_free(&m);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans check: %s\n", err[0] ? err : status_message(rc));
        return status_exit_code(rc);
    }
    if (update)
        printf("%s: rewritten from this run\n", golden);
    printf("%ld passed, %ld failed\n", sum.passed, sum.failed);
    if (sum.malformed)
        return TT_EXIT_INPUT;
    return sum.failed ? TT_EXIT_FAILED : TT_EXIT_OK;
}
