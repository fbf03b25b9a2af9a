/*
 * cli_plot.c — `toytrans plot`: the loss curves of a model's training as an SVG file.
 *
 * Reads the training history of a model file (history.h) and hands it to plot.h with a
 * title naming the model and its configuration. The file appears whole or not at all:
 * cli_write_file writes it under a temporary name and renames it over OUT only after
 * every byte was written, flushed to disk and closed; OUT may not be the model itself.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "model/config.h"
#include "model/history.h"
#include "model/model.h"
#include "model/store.h"
#include "show/plot.h"
#include "text/vocab.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void plot_usage(FILE *out)
{
    fprintf(out,
            "Usage: toytrans plot [--model M] --out FILE.svg [--width N] [--height N] [--force]\n"
            "\n"
            "Draws the training history of a model as an SVG picture: the training loss of\n"
            "every logged step (light) with its moving average (dark), the validation loss\n"
            "of every epoch (orange markers), epoch boundaries as faint vertical lines. The\n"
            "x axis counts optimiser steps; the y axis (loss per target token) is\n"
            "logarithmic, so the end of training is as readable as its start.\n"
            "\n"
            "Options:\n"
            "  --model M     the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                model, else the source tree's; 'toytrans help model')\n"
            "  --out FILE    the SVG file to write, replaced whole; '-' for standard output\n"
            "                (required)\n"
            "  --width N     picture width in pixels, %d to %d (default %d)\n"
            "  --height N    picture height in pixels, %d to %d (default %d)\n"
            "  --force       replace FILE even if it is an SQLite database or a symbolic\n"
            "                link (it may never be the model itself)\n"
            "  -h, --help    show this help\n"
            "\n"
            "Exit status: 0 ok, 1 the model has no training history to plot, 2 bad command\n"
            "line (or FILE refused, see --force), 3 model file unusable (missing, damaged, malformed history), 5 the file\n"
            "cannot be written.\n",
            PLOT_MIN_WIDTH, PLOT_MAX_WIDTH, PLOT_DEFAULT_WIDTH, PLOT_MIN_HEIGHT,
            PLOT_MAX_HEIGHT, PLOT_DEFAULT_HEIGHT);
}

/* The picture's title: the model's file name, then on a second line its shape and the
 * run's outcome. */
static void plot_title(char *buf, size_t size, const char *path, const ModelConfig *c,
                       size_t n_params, double smoothing, const TrainLogRow *steps,
                       int n_steps, const ValidLogRow *epochs, int n_epochs)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    char params[32];
    if (n_params < 10000)
        snprintf(params, sizeof params, "%zu", n_params);
    else if (n_params < 1000000)
        snprintf(params, sizeof params, "%.0fk", (double)n_params / 1e3);
    else
        snprintf(params, sizeof params, "%.1fM", (double)n_params / 1e6);
    int n = snprintf(buf, size, "Training loss of %s\nd_model %d · %d heads · %d+%d layers · "
                                "d_ff %d · %s parameters",
                     name, c->d_model, c->n_heads, c->n_encoder_layers, c->n_decoder_layers,
                     c->d_ff, params);
    if (n > 0 && (size_t)n < size && n_steps > 0)
        n += snprintf(buf + n, size - (size_t)n, " · %lld steps",
                      (long long)steps[n_steps - 1].step);
    /* Why the training loss levels off above the validation loss: label smoothing puts
     * a floor under it; the validation loss is plain cross-entropy. */
    if (n > 0 && (size_t)n < size && smoothing > 0)
        n += snprintf(buf + n, size - (size_t)n, " · training loss with label smoothing "
                      "%g, validation without", smoothing);
    if (n > 0 && (size_t)n < size && n_epochs > 0) {
        int best = 0;
        for (int i = 1; i < n_epochs; i++)
            if (epochs[i].loss < epochs[best].loss)
                best = i;
        snprintf(buf + n, size - (size_t)n, " · best validation loss %.3f (epoch %lld)",
                 epochs[best].loss, (long long)epochs[best].epoch);
    }
}

/* The plot's arguments, for cli_write_file. */
typedef struct {
    const TrainLogRow *steps;
    int n_steps;
    const ValidLogRow *epochs;
    int n_epochs;
    const char *title;
    int width, height;
} PlotArgs;

static int plot_write(FILE *f, const void *ctx)
{
    const PlotArgs *a = ctx;
    return plot_loss_svg(f, a->steps, a->n_steps, a->epochs, a->n_epochs, a->title, a->width,
                         a->height);
}

/* Writes the SVG to path ("-": standard output). Returns an exit code. */
static int write_svg_file(const char *path, const TrainLogRow *steps, int n_steps,
                          const ValidLogRow *epochs, int n_epochs, const char *title, int width,
                          int height)
{
    const PlotArgs a = {steps, n_steps, epochs, n_epochs, title, width, height};
    return cli_write_file("plot", path, plot_write, &a);
}

int cli_plot(int argc, char **argv)
{
    enum { O_MODEL = 256, O_OUT, O_WIDTH, O_HEIGHT, O_FORCE };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"out", required_argument, NULL, O_OUT},
        {"width", required_argument, NULL, O_WIDTH},
        {"height", required_argument, NULL, O_HEIGHT},
        {"force", no_argument, NULL, O_FORCE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL, *out = NULL;
    long width = PLOT_DEFAULT_WIDTH, height = PLOT_DEFAULT_HEIGHT;
    optind = 1;
    opterr = 0;
    int c, code, force = 0;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            path = optarg;
            break;
        case O_OUT:
            out = optarg;
            break;
        case O_WIDTH:
            if ((code = cli_parse_long("plot", "--width", optarg, PLOT_MIN_WIDTH,
                                       PLOT_MAX_WIDTH, &width)))
                return code;
            break;
        case O_HEIGHT:
            if ((code = cli_parse_long("plot", "--height", optarg, PLOT_MIN_HEIGHT,
                                       PLOT_MAX_HEIGHT, &height)))
                return code;
            break;
        case O_FORCE:
            force = 1;
            break;
        case 'h':
            plot_usage(stdout);
            return TT_EXIT_OK;
        default:
            return cli_bad_option_in("plot", c, argv, LONG_OPTS);
        }
    }
    if (optind < argc)
        return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (!out || !*out)
        return cli_usage_error("plot", "--out FILE.svg is required");
    path = cli_model_path(path);
    const CliPath inputs[1] = {{"--model", path}};
    if ((code = cli_check_output("plot", (CliPath){"--out", out}, CLI_OUT_TEXT, inputs, 1,
                                 force)))
        return code;

    char err[512] = "";
    Store *s = NULL;
    ModelHeader h;
    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = 0, n_epochs = 0;
    int rc = model_header_open(&s, &h, path, err, sizeof err);
    if (rc == TT_OK)
        rc = history_read(s, &steps, &n_steps, &epochs, &n_epochs, err, sizeof err);
    double smoothing = 0; /* informational: a missing or odd value shows nothing */
    if (rc == TT_OK && store_meta_get_double(s, "train_label_smoothing", &smoothing, NULL, 0))
        smoothing = 0;
    store_close(s, NULL, 0);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans plot: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("plot", path, rc);
        code = status_exit_code(rc);
    } else if (n_steps == 0 && n_epochs == 0) {
        fprintf(stderr, "toytrans plot: %s: no training history to plot (an untrained model; "
                        "'toytrans info' describes it)\n", path);
        code = TT_EXIT_FAILED;
    } else {
        char title[1024];
        plot_title(title, sizeof title, path, &h.config, h.n_params, smoothing, steps, n_steps,
                   epochs, n_epochs);
        code = write_svg_file(out, steps, n_steps, epochs, n_epochs, title, (int)width,
                              (int)height);
        if (code == TT_EXIT_OK && strcmp(out, "-") != 0)
            printf("%s: %d training steps, %d epochs of validation\n", out, n_steps, n_epochs);
    }
    free(epochs);
    free(steps);
    model_header_free(&h);
    return code;
}
