/*
 * plot.h — a picture of a training run: the loss curves as one self-contained SVG.
 *
 * The training loss of every logged step is drawn as a light line, with its moving
 * average darker on top; the validation loss of every epoch as markers joined by a line;
 * epochs are separated by faint vertical lines and numbered along the top. The x axis
 * counts optimiser steps; the y axis is logarithmic, because a loss falling from ~5 to
 * ~0.05 spends most of the run below 0.5, where a linear axis squashes it flat.
 *
 * The document is SVG 1.1 in UTF-8 with no external fonts, scripts, images or styles,
 * so it opens in any browser and converts with rsvg-convert or inkscape.
 */
#ifndef TOYTRANS_PLOT_H
#define TOYTRANS_PLOT_H

#include "model/history.h"

#include <stdio.h>

#define PLOT_DEFAULT_WIDTH 900  /* pixels */
#define PLOT_DEFAULT_HEIGHT 540
#define PLOT_MIN_WIDTH 320
#define PLOT_MIN_HEIGHT 240
#define PLOT_MAX_WIDTH 10000
#define PLOT_MAX_HEIGHT 10000

/* Writes the SVG document for the history (steps in step order and epochs in epoch
 * order, as history_read returns them) to out.
 *
 * title is UTF-8 text (escaped here; invalid bytes and control characters become '?');
 * a newline in it starts a smaller subtitle line; NULL gives "Training loss". width and
 * height are the picture's size in pixels, within the PLOT_MIN/MAX bounds.
 *
 * Series, each a <polyline> with an id, so tools and tests can find them:
 *   id="train-loss"    one point per step while there are at most twice as many steps
 *                      as pixel columns; beyond that the lowest and the highest loss of
 *                      each column (so spikes stay visible)
 *   id="train-smooth"  the centred moving average over 2h+1 logged steps, h = n/100
 *                      (shrinking at both ends); one point per point of train-loss, or
 *                      one per column when train-loss is reduced; absent when h < 1
 *   id="valid-loss"    one point per epoch, plus a circle marker each
 * Losses of 0 are drawn at the bottom edge.
 *
 * Returns TT_OK, TT_EINVAL (no rows at all, a size out of range, out NULL), TT_ENOMEM,
 * or TT_EIO when writing to out failed (ferror). */
int plot_loss_svg(FILE *out, const TrainLogRow *steps, int n_steps, const ValidLogRow *epochs,
                  int n_epochs, const char *title, int width, int height);

#endif
