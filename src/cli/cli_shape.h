/*
 * cli_shape.h — the model-shape options of `init`, `train` and `vocab` (--d-model,
 * --heads, --enc-layers, --dec-layers, --d-ff, --max-len, --qkv-bias, and --direction
 * for the languages): one per row of config.h's table that has a flag, parsed with the row's range and described in --help
 * from the same row, so the three commands cannot disagree.
 */
#ifndef TOYTRANS_CLI_SHAPE_H
#define TOYTRANS_CLI_SHAPE_H

#include "model/config.h"

#include <getopt.h>
#include <stdio.h>

/* getopt_long's value for the option of table row i is CLI_SHAPE_OPT + i: above any
 * command's own values. --direction (src_lang and tgt_lang together) is
 * CLI_SHAPE_DIRECTION. */
#define CLI_SHAPE_OPT 0x4000
#define CLI_SHAPE_DIRECTION (CLI_SHAPE_OPT - 1)

/* The most entries cli_shape_options adds. */
#define CLI_SHAPE_MAX_OPTS 16

/* Copies own (a getopt_long table ending in a zeroed entry) into out, adds the shape
 * options and the zeroed end. out must have room for own's entries and
 * CLI_SHAPE_MAX_OPTS + 1 more: cap entries in all (asserted). */
void cli_shape_options(struct option *out, size_t cap, const struct option *own);

/* The getopt_long value of the option of meta key key ("n_heads"), or -1 if it has none. */
int cli_shape_opt(const char *key);

/* If opt is a shape option, sets its field of c from arg (a whole number in the row's
 * range, with cli_parse_long's message for cmd on failure; a switch sets 1) and returns 1
 * on success or -TT_EXIT_USAGE on a bad value; returns 0 when opt is not a shape option. */
int cli_shape_parse(const char *cmd, int opt, const char *arg, ModelConfig *c);

/* Writes the options' --help lines, "  --d-model N       model width (default 64)", the
 * text starting width columns after the two spaces of indent. */
void cli_shape_usage(FILE *out, int width);

#endif
