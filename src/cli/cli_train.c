/*
 * cli_train.c — `toytrans train`: options, the progress display, and signals.
 *
 * The one piece of global mutable state in toytrans lives here: the flag the SIGINT and
 * SIGTERM handlers set. A handler may do nothing else safely; the training loop polls the
 * flag between steps, finishes the step, commits a checkpoint and returns.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_shape.h"
#include "train/train.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop_requested; /* set by on_signal, read by train_run */

static void on_signal(int sig)
{
    (void)sig;
    g_stop_requested = 1;
}

typedef struct {
    int tty;        /* stderr is a terminal: redraw one line */
    long every;     /* without a terminal: a line every this many steps */
    int ended;      /* the run's final report came: step, steps_total below */
    long step, steps_total;
} Display;

static void fmt_time(char *buf, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void show_progress(void *ctx, const TrainProgress *p)
{
    Display *d = ctx;
    if (p->note) {
        fprintf(stderr, "%stoytrans train: %s\n", d->tty ? "\r\033[K" : "", p->note);
        return;
    }
    if (p->final) {
        d->step = p->step;
        d->steps_total = p->steps_total;
        d->ended = 1;
        return;
    }
    char eta[32];
    fmt_time(eta, sizeof eta, p->eta_seconds);
    if (p->valid) {
        fprintf(stderr, "%sepoch %d/%d done: step %ld, validation loss %.4f, exact match %.2f%%\n",
                d->tty ? "\r\033[K" : "", p->epoch, p->epochs, p->step, p->valid->loss,
                100.0 * p->valid->exact_match);
        return;
    }
    if (d->tty) {
        const int width = 24;
        const int fill = (int)((double)width * (double)p->batch / (double)p->batches);
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, "\r\033[Kepoch %d/%d [%s] step %ld/%ld  loss %.4f  %.0f tok/s  ETA %s",
                p->epoch, p->epochs, bar, p->step, p->steps_total, p->loss, p->tokens_per_second,
                eta);
    } else if (p->step % d->every == 0) {
        fprintf(stderr, "epoch %d/%d step %ld/%ld loss %.4f %.0f tok/s ETA %s\n", p->epoch,
                p->epochs, p->step, p->steps_total, p->loss, p->tokens_per_second, eta);
    }
}

static void train_usage(FILE *out)
{
    fputs("Usage: toytrans train --train FILE --out MODEL.db [OPTIONS]\n"
          "       toytrans train --out MODEL.db --resume [OPTIONS]\n"
          "\n"
          "Trains an encoder-decoder on a parallel corpus (source TAB target), written in C\n"
          "from the loss down to every gradient, with AdamW, warm-up and cosine decay.\n"
          "Checkpoints are single SQLite transactions: a killed run leaves the last one\n"
          "readable; Ctrl-C saves one and exits 130; --resume continues exactly.\n"
          "\n"
          "Options:\n"
          "  --train FILE           training corpus (required; a resume without it takes\n"
          "                         the run's, and its validation corpus too)\n"
          "  --valid FILE           validation corpus: loss and exact match after each epoch\n"
          "  --out MODEL.db         the model file (required)\n"
          "  --resume               continue the run saved in MODEL.db with every setting\n"
          "                         it was started with (--epochs to --name-augment, and\n"
          "                         --seed); a setting given must equal the run's, except\n"
          "                         --epochs, which may extend it\n"
          "  --force                replace MODEL.db when starting a new run\n"
          "  --lexicon FILE         the lexicon the corpus was generated from (toytrans\n"
          "                         corpus; data/lexicon.tsv): its FNV-1a 64 is recorded,\n"
          "                         and translate then checks sentences against the\n"
          "                         corpus grammar when this toytrans knows that lexicon\n"
          "  --phrasebook FILE      the phrasebook the corpus was generated with (toytrans\n"
          "                         corpus --phrasebook): its FNV-1a 64 is recorded, and\n"
          "                         the grammar check then takes its phrases too\n"
          "  --epochs N             total epochs (default 10)\n"
          "  --batch N              sentences per batch, grouped by length (default 32)\n"
          "  --lr X                 peak learning rate (default 0.001)\n"
          "  --warmup N             linear warm-up steps (default 400)\n"
          "  --label-smoothing X    0 to <1 (default 0.1)\n"
          "  --weight-decay X       AdamW decay of the matrices (default 0.01)\n"
          "  --adam-beta1 X         AdamW's first-moment decay, 0 to <1 (default 0.9)\n"
          "  --adam-beta2 X         AdamW's second-moment decay, 0 to <1 (default 0.98)\n"
          "  --adam-eps X           AdamW's epsilon, above 0 (default 1e-9)\n"
          "  --clip X               gradient-norm clipping, 0 for none (default 1)\n"
          "  --dropout X            dropout on embeddings and block outputs (default 0)\n"
          "  --name-augment X       add this fraction of the pairs with names again with\n"
          "                         every name as <unk> on both sides, so that unknown\n"
          "                         names pass through (default 0.1)\n"
          "  A new model's architecture (--resume keeps the file's):\n",
          out);
    cli_shape_usage(out, 23);
    fputs("  --min-count N          keep tokens seen at least N times (default 1)\n"
          "  --seed N               initialisation and data order (default 1)\n"
          "  --threads N            threads for the gradient computation (default 1;\n"
          "                         --resume: the run's); the result is the same for any N\n"
          "  --checkpoint-every N   steps between checkpoints (default 500; also each epoch)\n"
          "  --stop-after N         stop with a checkpoint after N steps of this run\n"
          "  --release              when the last epoch is done, leave out the optimiser\n"
          "                         state: a smaller file for translation that can no\n"
          "                         longer be resumed (make model ships such a file)\n"
          "  --skip-bad-lines       report malformed corpus lines and skip them\n"
          "  -h, --help             show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 malformed corpus,\n"
          "5 I/O error, 6 training diverged (NaN/Inf; the last checkpoint is kept),\n"
          "130 interrupted after a clean save.\n",
          out);
}

int cli_train(int argc, char **argv)
{
    /* A setting of the run (train.h) is O_SET + its TrainSetting, its option named by
     * the settings table (train_settings.h). */
    enum { O_TRAIN = 256, O_VALID, O_OUT, O_RESUME, O_FORCE, O_MIN, O_THREADS, O_CKPT, O_STOP,
           O_SKIP, O_RELEASE, O_LEXICON, O_PHRASEBOOK, O_SET };
    static const struct option FIXED_OPTS[] = {
        {"train", required_argument, NULL, O_TRAIN},   {"valid", required_argument, NULL, O_VALID},
        {"out", required_argument, NULL, O_OUT},       {"resume", no_argument, NULL, O_RESUME},
        {"force", no_argument, NULL, O_FORCE},
        {"min-count", required_argument, NULL, O_MIN},
        {"threads", required_argument, NULL, O_THREADS},
        {"checkpoint-every", required_argument, NULL, O_CKPT},
        {"stop-after", required_argument, NULL, O_STOP},
        {"release", no_argument, NULL, O_RELEASE},
        {"lexicon", required_argument, NULL, O_LEXICON},
        {"phrasebook", required_argument, NULL, O_PHRASEBOOK},
        {"skip-bad-lines", no_argument, NULL, O_SKIP}, {"help", no_argument, NULL, 'h'},
    };
    enum { N_FIXED = (int)(sizeof FIXED_OPTS / sizeof FIXED_OPTS[0]) };
    struct option own[N_FIXED + TRAIN_N_SETTINGS + 1];
    memcpy(own, FIXED_OPTS, sizeof FIXED_OPTS);
    for (int i = 0; i < TRAIN_N_SETTINGS; i++)
        own[N_FIXED + i] = (struct option){train_setting_option((TrainSetting)i) + 2,
                                           required_argument, NULL, O_SET + i};
    own[N_FIXED + TRAIN_N_SETTINGS] = (struct option){NULL, 0, NULL, 0};
    struct option opts[N_FIXED + TRAIN_N_SETTINGS + 1 + CLI_SHAPE_MAX_OPTS];
    cli_shape_options(opts, sizeof opts / sizeof opts[0], own);
    TrainOptions o;
    train_options_defaults(&o);
    char command[2048] = "toytrans";
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(command);
        snprintf(command + len, sizeof command - len, " %s", argv[i]);
    }
    o.command = command;
    o.created_by = "toytrans " TOYTRANS_VERSION " train";
    optind = 1;
    opterr = 0;
    int c, rc;
    long v;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int *field = NULL;
        long lo = 1, hi = 0;
        const char *name = NULL;
        switch (c) {
        case O_TRAIN: o.train_path = optarg; break;
        case O_VALID: o.valid_path = optarg; break;
        case O_LEXICON: o.lexicon_path = optarg; break;
        case O_PHRASEBOOK: o.phrasebook_path = optarg; break;
        case O_OUT: o.out_path = optarg; break;
        case O_RESUME: o.resume = 1; break;
        case O_FORCE: o.force = 1; break;
        case O_THREADS: field = &o.threads, name = "--threads", hi = TRAIN_MAX_THREADS; break;
        case O_CKPT: field = &o.checkpoint_every, name = "--checkpoint-every", hi = 100000000; break;
        case O_SKIP: o.skip_bad_lines = 1; break;
        case O_MIN:
            if ((rc = cli_parse_long("train", "--min-count", optarg, 1, 1000000000, &o.min_count)))
                return rc;
            break;
        case O_RELEASE:
            o.release = 1;
            break;
        case O_STOP:
            if ((rc = cli_parse_long("train", "--stop-after", optarg, 1, 1L << 40, &o.stop_after)))
                return rc;
            break;
        case 'h':
            train_usage(stdout);
            return TT_EXIT_OK;
        default:
            if (c >= O_SET && c < O_SET + TRAIN_N_SETTINGS) {
                const TrainSetting setting = (TrainSetting)(c - O_SET);
                char why[160];
                if (train_setting_parse(&o, setting, optarg, why, sizeof why) != TT_OK)
                    return cli_usage_error("train", "%s: %s", train_setting_option(setting),
                                           why);
                o.given |= TRAIN_GIVEN(setting);
                break;
            }
            if ((rc = cli_shape_parse("train", c, optarg, &o.config)) < 0)
                return -rc;
            if (rc == 0)
                return cli_bad_option_in("train", c, argv, opts);
        }
        if (field) {
            if ((rc = cli_parse_long("train", name, optarg, lo, hi, &v)))
                return rc;
            *field = (int)v;
        }
    }
    if (optind < argc)
        return cli_usage_error("train", "unexpected argument '%s'", argv[optind]);
    if (!o.out_path)
        return cli_usage_error("train", "--out is required");
    if (!o.train_path && !o.resume)
        return cli_usage_error("train", "--train is required (a resume without it continues on "
                                        "the run's corpora)");
    if (o.lexicon_path && o.resume)
        return cli_usage_error("train", "--lexicon names a new run's lexicon; a resume keeps "
                                        "the run's");
    if (o.phrasebook_path && o.resume)
        return cli_usage_error("train", "--phrasebook names a new run's phrasebook; a resume "
                                        "keeps the run's");
    const CliPath inputs[4] = {{"--train", o.train_path}, {"--valid", o.valid_path},
                               {"--lexicon", o.lexicon_path},
                               {"--phrasebook", o.phrasebook_path}};
    if ((rc = cli_check_output("train", (CliPath){"--out", o.out_path}, CLI_OUT_MODEL, inputs,
                               4, o.force)))
        return rc;
    char err[512] = "";
    if (!o.resume && config_check(&o.config, err, sizeof err) != TT_OK)
        return cli_usage_error("train", "%s", err);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    Display d = {.tty = isatty(STDERR_FILENO), .every = 100};
    rc = train_run(&o, show_progress, &d, &g_stop_requested, err, sizeof err);
    if (d.tty)
        fputs("\r\033[K", stderr);
    if (rc == TT_EINTR && err[0]) { /* while the corpora were read: before any step */
        fprintf(stderr, "toytrans train: %s; %s\n", err,
                o.resume ? "the checkpoint is as it was" : "no model written");
        return TT_EXIT_INTERRUPTED;
    }
    if (rc == TT_EINTR) {
        fprintf(stderr, "toytrans train: interrupted; checkpoint saved in %s (--resume continues)\n",
                o.out_path);
        return TT_EXIT_INTERRUPTED;
    }
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans train: %s%s\n", err[0] ? err : status_message(rc),
                rc == TT_EEXIST ? " (--force replaces it, --resume continues it)" : "");
        return status_exit_code(rc);
    }
    if (d.ended && d.step < d.steps_total)
        printf("%s: stopped after step %ld of %ld (checkpoint saved; --resume continues)\n",
               o.out_path, d.step, d.steps_total);
    else
        printf("%s: trained, %ld steps\n", o.out_path, d.step);
    return TT_EXIT_OK;
}
