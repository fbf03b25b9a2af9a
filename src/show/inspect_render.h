/*
 * inspect_render.h — one translated sentence's attention as files a person opens: a
 * labelled SVG heatmap, and a self-contained interactive HTML page.
 *
 * Like heatmap.h, this module never computes attention: it draws (SVG) or embeds (HTML)
 * the weights the forward pass used — the Translation's cross- and self-attention of
 * every decoder step and the encoder's self-attention — per layer and per head. Only
 * the mean over heads is computed (in double, as translation_weight does; in the page, by
 * its script).
 *
 * Both writers escape every piece of text they are given (XML character data and
 * attribute values; in the page's JSON block also "</" and "<!", so a token such as
 * "</script>" cannot end the block), so the output is well formed for any UTF-8 input.
 * Neither opens files: the caller passes a stream and makes the write atomic.
 */
#ifndef TOYTRANS_INSPECT_RENDER_H
#define TOYTRANS_INSPECT_RENDER_H

#include "translate/translator.h"

#include <stddef.h>
#include <stdio.h>

#define INSPECT_SVG_CELL 36 /* pixels per heatmap cell, both ways */

/* The mark after a source token the model's vocabulary lacks (a name or an unknown
 * word, TranslatorResult.kind), and the legend line that explains it. */
#define INSPECT_UNKNOWN_MARK "?"
#define INSPECT_UNKNOWN_LEGEND "not in the vocabulary"

/* The mark after a decoded word that is a source word copied for a generated <unk>
 * (TranslatorResult.copied): the model did not choose it. Plain text; HTML and SVG
 * escape the legend's angle brackets. */
#define INSPECT_COPIED_MARK "*"
#define INSPECT_COPIED_LEGEND "copied from the source: the model wrote <unk>"

/* Writes the cross-attention heatmap of r (decoder layer `layer`, head `head` or
 * TRANSLATION_HEAD_MEAN) as an SVG 1.1 document: a title line with the sentence (len bytes
 * of UTF-8, as typed) and its translation, the decoded words (</s> included) down the
 * left, the source tokens (</s> included) across the top (rotated when long), one
 * <rect class="cell"> per (word, token) shaded white → dark blue by weight with a
 * <title> tooltip "word → token: 0.1234", and a colour scale legend 0 → 1
 * (<rect id="legend">). A source token not in the vocabulary is followed by a red
 * <tspan class="unknown">?</tspan>, and then a <text id="unknown-legend"> line says
 * "? not in the vocabulary". A decoded word copied from the source for a generated <unk>
 * (TranslatorResult.copied) is followed by a red <tspan class="copied">*</tspan>, and a
 * <text id="copied-legend"> line explains it. A <text id="axis-note"> under the grid says that the rows
 * are the German output and the columns the English source tokens. Returns TT_OK; TT_EINVAL (r has no decoded word, layer or head
 * out of range, out NULL); TT_EIO (out reported an error). */
int inspect_write_svg(FILE *out, const TranslatorResult *r, const char *sentence, size_t len,
                      int layer, int head);

/* Writes one self-contained HTML page (inline CSS and script, no network) for r:
 *   <select id="layer"> "0".."L-1" (decoder layers; the last selected),
 *   <select id="head"> "mean","0".."H-1" ("mean" selected),
 *   <select id="kind"> "cross","self","encoder" ("cross" selected);
 *   <div id="target"> a marker <span id="bos" class="bos-marker">&lt;s&gt;</span>, then
 *     <span class="tgt-word" data-index="i"> per decoded word (</s> included), its text
 *     the word's label (ist#1, ist#2 for a repeated word), as the table names it; a
 *     word copied from the source for <unk> also has class "copied" (a red "*" after
 *     it, by CSS) and a title, and <p id="copied-legend"> follows the source div;
 *   <div id="source"> <span class="src-token" data-index="j"> per source token (</s>
 *     included); a token not in the vocabulary also has class "unknown" (a red "?"
 *     after it, by CSS, so its text stays the token) and a title, and then
 *     <p id="unknown-legend"> "? not in the vocabulary" follows the div;
 *   <table id="heatmap"> (redrawn for the current kind, layer and head; every cell a
 *     title tooltip; a source token not in the vocabulary has its "?" in the headers) and <div id="status"> (e.g. "cross-attention, layer 1, mean of 4
 *     heads");
 *   <script id="data" type="application/json"> the data: {"sentence", "translation",
 *     "source", "unknown" (per source token), "mark" (INSPECT_UNKNOWN_MARK), "copied"
 *     (per decoded word), "copied_mark" (INSPECT_COPIED_MARK), "target",
 *     "layers", "encoder_layers", "heads", "cross"
 *     [step][layer][head][S], "self" [step][layer][head][step+1], "encoder"
 *     [layer][head][query][S]}.
 * Clicking: in "cross", a .tgt-word becomes .selected and every .src-token gets
 * data-weight (toFixed(4)) and a background by weight, the most attended one class
 * "top". In "self", the clicked .tgt-word i is .selected and the keys it attended —
 * the #bos marker (key 0) and .tgt-word 0..i-1 (keys 1..i) — get data-weight,
 * background and, for the largest, "top". In "encoder", a clicked .src-token becomes
 * .selected and the .src-tokens get its row. The encoder's layer is the selected one,
 * capped at its last layer when the encoder has fewer layers (the status says which).
 * Returns TT_OK; TT_EINVAL (r has no decoded word, encoder NULL, out NULL); TT_ENOMEM;
 * TT_EIO. encoder is translator_encoder_attention's (L_enc, H, S, S). */
int inspect_write_html(FILE *out, const TranslatorResult *r, const float *encoder,
                       const char *sentence, size_t len);

#endif
