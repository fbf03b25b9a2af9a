/*
 * inspect_render.c — the SVG heatmap and the interactive HTML page of one translated
 * sentence (see inspect_render.h).
 *
 * Both documents are streamed to a FILE* in one pass. Text widths in the SVG are
 * estimated from the number of code points (no font metrics are available without a
 * renderer): generous enough that labels do not collide in the usual sans-serif fonts.
 * The page's data block is written by the JSON writer into memory first, because the
 * writer knows nothing of HTML: the copy into the page then turns "</" into "<\/" and
 * "<!" into "\u003c!" — both the same string to a JSON parser, and neither can end or
 * comment out the <script> block (JSON has '<' only inside strings, so the replacement
 * is always inside a string literal).
 */
#include "show/inspect_render.h"

#include "base/json.h"
#include "base/status.h"
#include "base/xml.h"
#include "show/heatmap.h"
#include "text/vocab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_FONT "DejaVu Sans, Verdana, Arial, sans-serif"
#define SVG_CHAR_W 7.5    /* estimated pixels per code point at font-size 12 */
#define SVG_ROTATE_MIN 5  /* column labels of more code points than this are rotated */
/* Which side is which, under the heatmap. */
#define SVG_AXIS_NOTE "rows: the German output, word by word (decoder) \xc2\xb7 columns: the " \
                      "English source tokens (encoder input)"
#define SVG_LEGEND_H 144  /* the colour scale's height at least, pixels */

/* The weight → colour ramp: white at 0, dark blue at 1, linear in sRGB (so a two-stop
 * SVG gradient shows exactly the same scale). */
static const int RAMP_HI[3] = {8, 48, 107};

/* ---------------------------------------------------------------------------------------
 * Text
 */

/* Text in the picture and the page, escaped (xml.h); the apostrophe as &#39;, since
 * &apos; is not HTML 4 and &#39; works in both. */
static void put_text(FILE *out, const char *s, size_t len)
{
    xml_put_text(out, s, len, XML_APOS_NUMERIC);
}

static void put_str(FILE *out, const char *s)
{
    put_text(out, s, strlen(s));
}

/* Code points in s (invalid bytes count one each): the basis of the width estimates. */
static int text_chars(const char *s)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* Source token j of r: the tokens, then </s>. */
/* Source token j (</s> last) as the pictures name it: "the#2" when it repeats. */
static const char *source_label(const TranslatorResult *r, int j)
{
    return r->src_labels[j];
}

/* Whether source token j (</s> is never) is not in the model's vocabulary: a name or an
 * unknown word, marked with INSPECT_UNKNOWN_MARK. */
static int source_unknown(const TranslatorResult *r, int j)
{
    return j < r->src->n && r->kind[j] != TR_WORD_KNOWN;
}

/* The number of source tokens source_unknown marks. */
static int count_unknown(const TranslatorResult *r)
{
    int n = 0;
    for (int j = 0; j < r->src->n; j++)
        n += source_unknown(r, j);
    return n;
}

/* The number of decoded words that are source words copied for a generated <unk>,
 * marked with INSPECT_COPIED_MARK. */
static int count_copied(const TranslatorResult *r)
{
    int n = 0;
    for (int i = 0; i < r->t->n; i++)
        n += r->copied[i] != 0;
    return n;
}

/* Weight w clamped to 0..1 (NaN as 0). */
static double clamp01(float w)
{
    if (!(w > 0.0f))
        return 0.0;
    return w >= 1.0f ? 1.0 : (double)w;
}

/* "#rrggbb" for weight w on the ramp into buf (8 bytes). */
static void ramp_color(char *buf, float w)
{
    const double t = clamp01(w);
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(255.0 - t * (255.0 - RAMP_HI[k]));
    snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* ---------------------------------------------------------------------------------------
 * SVG
 */

int inspect_write_svg(FILE *out, const TranslatorResult *r, const char *sentence, size_t len,
                      int layer, int head)
{
    if (!out || !r || !r->t || !r->model || r->t->n < 1 || r->t->S < 1 || !sentence)
        return TT_EINVAL;
    const ModelConfig *c = &r->model->config;
    const int L = c->n_decoder_layers, H = c->n_heads;
    const Translation *t = r->t;
    const int T = t->n, S = t->S;
    if (layer < 0 || layer >= L || (head != TRANSLATION_HEAD_MEAN && (head < 0 || head >= H)))
        return TT_EINVAL;

    int row_chars = 1, col_chars = 1;
    for (int i = 0; i < T; i++) {
        const int n = text_chars(r->labels[i]) + (r->copied[i] != 0);
        row_chars = n > row_chars ? n : row_chars;
    }
    for (int j = 0; j < S; j++) {
        const int n = text_chars(source_label(r, j)) + source_unknown(r, j);
        col_chars = n > col_chars ? n : col_chars;
    }
    const int unknown = count_unknown(r), copied = count_copied(r);
    const int rotate = col_chars > SVG_ROTATE_MIN;
    const int cell = INSPECT_SVG_CELL;
    const double left = 20 + row_chars * SVG_CHAR_W + 10;
    const double top = 64 + (rotate ? col_chars * SVG_CHAR_W * 0.71 + 14 : 22);
    const double grid_w = (double)S * cell, grid_h = (double)T * cell;
    const double legend_x = left + grid_w + 28;
    const double legend_h = grid_h > SVG_LEGEND_H ? grid_h : SVG_LEGEND_H;
    double width = legend_x + 16 + 60;
    const double title_w = 40 + (text_chars(r->text) + 16) * SVG_CHAR_W * 1.15 +
                           (double)len * SVG_CHAR_W * 1.15; /* len bytes: an upper bound */
    if (title_w > width)
        width = title_w;
    const double height = top + legend_h + 28 + 20 + (unknown ? 20 : 0) + (copied ? 20 : 0);

    char sub[160];
    if (head == TRANSLATION_HEAD_MEAN)
        snprintf(sub, sizeof sub, "cross-attention, decoder layer %d (0..%d), mean of %d heads",
                 layer, L - 1, H);
    else
        snprintf(sub, sizeof sub, "cross-attention, decoder layer %d (0..%d), head %d (0..%d)",
                 layer, L - 1, head, H - 1);

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                 "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n",
            width, height, width, height, SVG_FONT);
    fputs("<title>", out);
    put_text(out, sentence, len);
    fputs(" \xe2\x80\x94 ", out);
    put_str(out, sub);
    fputs("</title>\n", out);
    fprintf(out, "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
                 "<stop offset=\"0\" stop-color=\"#ffffff\"/><stop offset=\"1\" "
                 "stop-color=\"#%02x%02x%02x\"/></linearGradient></defs>\n",
            RAMP_HI[0], RAMP_HI[1], RAMP_HI[2]);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            width, height);

    /* The title line: "sentence" → "translation", and what is drawn. */
    fputs("<text x=\"20\" y=\"26\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">"
          "\xe2\x80\x9c", out);
    put_text(out, sentence, len);
    fputs("\xe2\x80\x9d \xe2\x86\x92 \xe2\x80\x9c", out);
    put_str(out, r->text);
    fputs("\xe2\x80\x9d</text>\n", out);
    fputs("<text x=\"20\" y=\"46\" font-size=\"12\" fill=\"#666666\">", out);
    put_str(out, sub);
    fputs("</text>\n", out);

    /* Source tokens across the top, decoded words down the left. */
    fputs("<g id=\"source-labels\" font-size=\"12\" fill=\"#222222\">\n", out);
    for (int j = 0; j < S; j++) {
        const double x = left + (j + 0.5) * cell, y = top - 8;
        if (rotate)
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" "
                         "transform=\"rotate(-45 %.1f %.1f)\">", x, y, x, y);
        else
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, y);
        put_str(out, source_label(r, j));
        if (source_unknown(r, j))
            fputs("<tspan class=\"unknown\" fill=\"#b00020\" font-weight=\"bold\">"
                  INSPECT_UNKNOWN_MARK "</tspan>", out);
        fputs("</text>\n", out);
    }
    fputs("</g>\n<g id=\"target-labels\" font-size=\"12\" fill=\"#222222\">\n", out);
    for (int i = 0; i < T; i++) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
                top + (i + 0.5) * cell + 4);
        put_str(out, r->labels[i]);
        if (r->copied[i])
            fputs("<tspan class=\"copied\" fill=\"#b00020\" font-weight=\"bold\">"
                  INSPECT_COPIED_MARK "</tspan>", out);
        fputs("</text>\n", out);
    }

    /* The cells, each with its exact weight as a tooltip. */
    fputs("</g>\n<g id=\"cells\" stroke=\"#dddddd\" stroke-width=\"1\">\n", out);
    for (int i = 0; i < T; i++) {
        for (int j = 0; j < S; j++) {
            const float w = translation_weight(t, TRANSLATION_CROSS, i, j, layer, head);
            char color[8];
            ramp_color(color, w);
            fprintf(out, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
                         "fill=\"%s\"><title>", left + (double)j * cell,
                    top + (double)i * cell, cell, cell, color);
            put_str(out, r->labels[i]);
            fputs(" \xe2\x86\x92 ", out);
            put_str(out, source_label(r, j));
            fprintf(out, ": %.4f</title></rect>\n", (double)w);
        }
    }
    fputs("</g>\n", out);

    /* The colour scale, 1 at the top. */
    fprintf(out, "<rect id=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"%.1f\" "
                 "fill=\"url(#scale)\" stroke=\"#999999\" stroke-width=\"1\"/>\n",
            legend_x, top, legend_h);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#222222\">1</text>\n",
            legend_x + 22, top + 10);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#222222\">0.5</text>\n",
            legend_x + 22, top + legend_h / 2 + 4);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#222222\">0</text>\n",
            legend_x + 22, top + legend_h);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#666666\">weight</text>\n",
            legend_x - 4, top + legend_h + 18);
    fprintf(out, "<text id=\"axis-note\" x=\"20\" y=\"%.1f\" font-size=\"12\" "
                 "fill=\"#666666\">" SVG_AXIS_NOTE "</text>\n",
            height - 10 - 20 * (unknown != 0) - 20 * (copied != 0));
    if (unknown)
        fprintf(out, "<text id=\"unknown-legend\" x=\"20\" y=\"%.1f\" font-size=\"12\" "
                     "fill=\"#b00020\">" INSPECT_UNKNOWN_MARK " " INSPECT_UNKNOWN_LEGEND
                     "</text>\n", height - 10 - 20 * (copied != 0));
    if (copied) {
        fprintf(out, "<text id=\"copied-legend\" x=\"20\" y=\"%.1f\" font-size=\"12\" "
                     "fill=\"#b00020\">" INSPECT_COPIED_MARK " ", height - 10);
        put_str(out, INSPECT_COPIED_LEGEND);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? TT_EIO : TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * HTML
 */

/* The data block's JSON (see inspect_render.h) into *buf (malloc'd, *n bytes). */
static int html_data_json(char **buf, size_t *n, const TranslatorResult *r,
                          const float *encoder, const char *sentence, size_t len)
{
    const ModelConfig *c = &r->model->config;
    const int L = c->n_decoder_layers, LE = c->n_encoder_layers, H = c->n_heads;
    const Translation *t = r->t;
    const int T = t->n, S = t->S;
    *buf = NULL;
    *n = 0;
    FILE *mem = open_memstream(buf, n);
    if (!mem)
        return TT_ENOMEM;
    JsonWriter w;
    json_init(&w, mem);
    json_begin_object(&w);
    json_key(&w, "sentence");
    json_string_n(&w, sentence, len);
    json_key(&w, "translation");
    json_string(&w, r->text);
    json_key(&w, "source");
    json_begin_array(&w);
    for (int j = 0; j < S; j++)
        json_string(&w, source_label(r, j));
    json_end_array(&w);
    json_key(&w, "unknown");
    json_begin_array(&w);
    for (int j = 0; j < S; j++)
        json_bool(&w, source_unknown(r, j));
    json_end_array(&w);
    json_key(&w, "mark");
    json_string(&w, INSPECT_UNKNOWN_MARK);
    json_key(&w, "copied");
    json_begin_array(&w);
    for (int i = 0; i < T; i++)
        json_bool(&w, r->copied[i]);
    json_end_array(&w);
    json_key(&w, "copied_mark");
    json_string(&w, INSPECT_COPIED_MARK);
    json_key(&w, "target");
    json_begin_array(&w);
    for (int i = 0; i < T; i++)
        json_string(&w, r->labels[i]);
    json_end_array(&w);
    json_key(&w, "prob");
    json_begin_array(&w);
    for (int i = 0; i < T; i++)
        json_float(&w, exp((double)t->logprob[i]));
    json_end_array(&w);
    json_key(&w, "layers");
    json_int(&w, L);
    json_key(&w, "encoder_layers");
    json_int(&w, LE);
    json_key(&w, "heads");
    json_int(&w, H);
    for (int k = 0; k < 2; k++) {
        json_key(&w, k == 0 ? "cross" : "self");
        json_begin_array(&w);
        for (int i = 0; i < T; i++) {
            json_begin_array(&w);
            for (int l = 0; l < L; l++) {
                json_begin_array(&w);
                for (int h = 0; h < H; h++)
                    json_float_array(&w, k == 0 ? translation_cross(t, i, l, h)
                                                : translation_self(t, i, l, h),
                                     k == 0 ? S : i + 1);
                json_end_array(&w);
            }
            json_end_array(&w);
        }
        json_end_array(&w);
    }
    json_key(&w, "encoder");
    json_begin_array(&w);
    for (int l = 0; l < LE; l++) {
        json_begin_array(&w);
        for (int h = 0; h < H; h++) {
            json_begin_array(&w);
            for (int q = 0; q < S; q++)
                json_float_array(&w, encoder + (((size_t)l * H + h) * S + q) * S, S);
            json_end_array(&w);
        }
        json_end_array(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    int rc = json_finish(&w);
    if (fclose(mem) != 0 && rc == TT_OK)
        rc = TT_ENOMEM;
    if (rc != TT_OK) {
        free(*buf);
        *buf = NULL;
        *n = 0;
    }
    return rc;
}

/* Copies JSON text into a <script> block: "</" as "<\/", "<!" as "\u003c!". */
static void put_script_json(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<' && i + 1 < n && s[i + 1] == '/')
            fputs("<\\", out);
        else if (s[i] == '<' && i + 1 < n && s[i + 1] == '!')
            fputs("\\u003c", out);
        else
            fputc(s[i], out);
    }
}

static const char HTML_STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
    "h1{font-size:1.2em}\n"
    ".src-token.unknown::after{content:'" INSPECT_UNKNOWN_MARK "';color:#b00020;"
    "font-weight:bold}\n"
    "#unknown-legend{color:#b00020}\n"
    ".tgt-word.copied::after{content:'" INSPECT_COPIED_MARK "';color:#b00020;"
    "font-weight:bold}\n"
    "#copied-legend{color:#b00020}\n"
    "#controls label{margin-right:1em}\n"
    "#target,#source{margin:.6em 0;line-height:2.2em}\n"
    "#target span,#source span{padding:.25em .45em;margin:0 .1em;border-radius:4px;"
    "border:1px solid #ccc}\n"
    ".tgt-word,.src-token{cursor:pointer}\n"
    ".bos-marker{color:#777}\n"
    ".selected{outline:2px solid #d62728}\n"
    ".top{font-weight:bold;border-color:#08306b!important}\n"
    "#status{margin:.6em 0;color:#555}\n"
    "#heatmap{border-collapse:collapse;font-size:.85em}\n"
    "#heatmap td{width:2.4em;height:1.6em;border:1px solid #eee}\n"
    "#heatmap th{font-weight:normal;padding:0 .4em;text-align:right}\n"
    "#heatmap tr.selected-row th{font-weight:bold}\n"
    "#heatmap td.masked{background:repeating-linear-gradient(45deg,#f6f6f6,#f6f6f6 3px,"
    "#d9d9d9 3px,#d9d9d9 5px)}\n"
    "#heatmap td.prob{width:auto;padding:0 .5em;border:none;color:#555;text-align:right}\n"
    "#heatmap caption{text-align:left;color:#555;padding:.3em 0}\n"
    "#heatmap.numbers td{font-size:.75em;text-align:center}\n"
    ".sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);"
    "white-space:nowrap}\n"
    "#legend{display:flex;align-items:center;gap:.5em;margin:.6em 0;font-size:.85em}\n"
    "#legend .bar{width:12em;height:1em;border:1px solid #ccc;background:linear-gradient(to "
    "right,rgb(255,255,255),rgb(8,48,107))}\n"
    "#legend .swatch{display:inline-block;width:1.4em;height:1em;border:1px solid #ccc;"
    "vertical-align:middle}\n";

/* The page's behaviour (inspect_render.h gives the contract), one line per string (C
 * compilers need not take longer literals). No "</" in it. */
static const char *const HTML_SCRIPT[] = {
    "(function () {\n",
    "  'use strict';\n",
    "  var D = JSON.parse(document.getElementById('data').textContent);\n",
    "  function $(id) { return document.getElementById(id); }\n",
    "  var layerSel = $('layer'), headSel = $('head'), kindSel = $('kind'), bos = $('bos');\n",
    "  function byIndex(sel) {\n",
    "    var a = Array.prototype.slice.call(document.querySelectorAll(sel));\n",
    "    a.sort(function (x, y) { return +x.getAttribute('data-index') - "
        "+y.getAttribute('data-index'); });\n",
    "    return a;\n",
    "  }\n",
    "  var tgt = byIndex('#target .tgt-word'), src = byIndex('#source .src-token');\n",
    "  var selTgt = -1, selSrc = -1;\n",
    "  function color(w) {\n",
    "    w = Math.max(0, Math.min(1, w || 0));\n",
    "    var r = Math.round(255 - w * 247), g = Math.round(255 - w * 207), "
        "b = Math.round(255 - w * 148);\n",
    "    return 'rgb(' + r + ', ' + g + ', ' + b + ')';\n",
    "  }\n",
    "  function ink(w) { return w > 0.55 ? '#ffffff' : ''; }\n",
    "  function pick(perHead) {\n",
    "    var h = headSel.value;\n",
    "    if (h !== 'mean') return perHead[+h].slice();\n",
    "    var out = [];\n",
    "    for (var j = 0; j < perHead[0].length; j++) {\n",
    "      var s = 0;\n",
    "      for (var k = 0; k < perHead.length; k++) s += perHead[k][j];\n",
    "      out.push(s / perHead.length);\n",
    "    }\n",
    "    return out;\n",
    "  }\n",
    "  function encLayer() { return Math.min(+layerSel.value, D.encoder_layers - 1); }\n",
    "  function row(kind, i) {\n",
    "    var l = +layerSel.value;\n",
    "    if (kind === 'cross') return pick(D.cross[i][l]);\n",
    "    if (kind === 'self') return pick(D.self[i][l]);\n",
    "    return pick(D.encoder[encLayer()].map(function (hq) { return hq[i]; }));\n",
    "  }\n",
    "  function headText() {\n",
    "    return headSel.value === 'mean' ? 'mean of ' + D.heads + ' heads' : "
        "'head ' + headSel.value;\n",
    "  }\n",
    "  function statusText() {\n",
    "    var k = kindSel.value, l = +layerSel.value;\n",
    "    if (k === 'cross') return 'cross-attention, layer ' + l + ', ' + headText();\n",
    "    if (k === 'self') return 'decoder self-attention, layer ' + l + ', ' + headText();\n",
    "    var e = encLayer();\n",
    "    return 'encoder self-attention, layer ' + e + (e !== l ? ' (the last encoder "
        "layer)' : '') + ', ' + headText();\n",
    "  }\n",
    "  function clear(els) {\n",
    "    els.forEach(function (e) {\n",
    "      e.classList.remove('selected');\n",
    "      e.classList.remove('top');\n",
    "      e.removeAttribute('data-weight');\n",
    "      e.style.backgroundColor = '';\n",
    "      e.style.color = '';\n",
    "    });\n",
    "  }\n",
    "  function mark(els, w) {\n",
    "    var best = 0;\n",
    "    for (var j = 0; j < els.length; j++) {\n",
    "      els[j].setAttribute('data-weight', w[j].toFixed(4));\n",
    "      els[j].style.backgroundColor = color(w[j]);\n",
    "      els[j].style.color = ink(w[j]);\n",
    "      if (w[j] > w[best]) best = j;\n",
    "    }\n",
    "    if (!els.length) return '';\n",
    "    els[best].classList.add('top');\n",
    "    return ' \u2192 ' + els[best].textContent + ' ' + w[best].toFixed(2);\n",
    "  }\n",
    "  function drawTable() {\n",
    "    var k = kindSel.value, t = $('heatmap'), rows, cols, i, j;\n",
    "    while (t.firstChild) t.removeChild(t.firstChild);\n",
    "    /* Source tokens the vocabulary lacks carry the mark the tokens above carry. */\n",
    "    var srcMarked = D.source.map(function (s, j) { return D.unknown[j] ? s + D.mark : s; "
        "});\n",
    "    /* Words copied from the source for <unk> carry theirs, as the words above. */\n",
    "    var tgtMarked = D.target.map(function (s, i) { return D.copied[i] ? s + D.copied_mark "
        ": s; });\n",
    "    if (k === 'encoder') { rows = srcMarked; cols = srcMarked; }\n",
    "    else if (k === 'cross') { rows = tgtMarked; cols = srcMarked; }\n",
    "    else { rows = tgtMarked; cols = ['<s>'].concat(tgtMarked.slice(0, tgtMarked.length - 1)); }\n",
    "    /* A real table: a caption, headers with scope, and each weight as text (shown\n",
    "     * with 'numbers', else only for screen readers), so it reads without colour. */\n",
    "    var cap = t.createCaption();\n",
    "    cap.textContent = statusText() + (k === 'encoder' ? ': rows are source tokens' :\n",
    "                      ': rows are German words, with their probability');\n",
    "    var head = t.insertRow();\n",
    "    head.appendChild(document.createElement('td'));\n",
    "    cols.forEach(function (c) {\n",
    "      var th = document.createElement('th');\n",
    "      th.textContent = c;\n",
    "      th.scope = 'col';\n",
    "      head.appendChild(th);\n",
    "    });\n",
    "    if (k !== 'encoder') {\n",
    "      var pth = document.createElement('th');\n",
    "      pth.textContent = 'p';\n",
    "      pth.scope = 'col';\n",
    "      head.appendChild(pth);\n",
    "    }\n",
    "    var sel = k === 'encoder' ? selSrc : selTgt, numbers = $('numbers').checked;\n",
    "    t.className = numbers ? 'numbers' : '';\n",
    "    for (i = 0; i < rows.length; i++) {\n",
    "      var tr = t.insertRow(), w = row(k, i), th = document.createElement('th');\n",
    "      th.textContent = rows[i];\n",
    "      th.scope = 'row';\n",
    "      tr.appendChild(th);\n",
    "      if (i === sel) tr.className = 'selected-row';\n",
    "      for (j = 0; j < cols.length; j++) {\n",
    "        var td = tr.insertCell();\n",
    "        if (j >= w.length) {\n",
    "          /* A later position: the causal mask hides it, which is not a weight of 0. */\n",
    "          td.className = 'masked';\n",
    "          td.title = rows[i] + ' \\u2192 ' + cols[j] + ': masked (a later position)';\n",
    "          var m = document.createElement('span');\n",
    "          m.className = 'sr-only';\n",
    "          m.textContent = 'masked';\n",
    "          td.appendChild(m);\n",
    "          continue;\n",
    "        }\n",
    "        td.title = rows[i] + ' \\u2192 ' + cols[j] + ': ' + w[j].toFixed(4);\n",
    "        td.setAttribute('data-weight', w[j].toFixed(4));\n",
    "        td.style.backgroundColor = color(w[j]);\n",
    "        td.style.color = ink(w[j]);\n",
    "        var v = document.createElement('span');\n",
    "        if (!numbers) v.className = 'sr-only';\n",
    "        v.textContent = w[j].toFixed(2);\n",
    "        td.appendChild(v);\n",
    "      }\n",
    "      if (k !== 'encoder') {\n",
    "        var pc = tr.insertCell();\n",
    "        pc.className = 'prob';\n",
    "        pc.textContent = D.prob[i].toFixed(3);\n",
    "      }\n",
    "    }\n",
    "  }\n",
    "  function apply() {\n",
    "    var k = kindSel.value, what = '';\n",
    "    clear(tgt.concat(src, [bos]));\n",
    "    if (k === 'cross' && selTgt >= 0) {\n",
    "      tgt[selTgt].classList.add('selected');\n",
    "      what = ': ' + tgt[selTgt].textContent + mark(src, row('cross', selTgt));\n",
    "    } else if (k === 'self' && selTgt >= 0) {\n",
    "      tgt[selTgt].classList.add('selected');\n",
    "      what = ': ' + tgt[selTgt].textContent +\n",
    "             mark([bos].concat(tgt.slice(0, selTgt)), row('self', selTgt));\n",
    "    } else if (k === 'encoder' && selSrc >= 0) {\n",
    "      src[selSrc].classList.add('selected');\n",
    "      what = ': ' + src[selSrc].textContent + mark(src, row('encoder', selSrc));\n",
    "    }\n",
    "    drawTable();\n",
    "    /* The status names what is shown and, once a word is clicked, where it looked. */\n",
    "    $('status').textContent = statusText() + what;\n",
    "  }\n",
    "  tgt.forEach(function (e) {\n",
    "    e.addEventListener('click', function () { selTgt = +e.getAttribute('data-index'); "
        "apply(); });\n",
    "  });\n",
    "  src.forEach(function (e) {\n",
    "    e.addEventListener('click', function () { selSrc = +e.getAttribute('data-index'); "
        "apply(); });\n",
    "  });\n",
    "  [layerSel, headSel, kindSel, $('numbers')].forEach(function (s) {\n",
    "    s.addEventListener('change', apply);\n",
    "  });\n",
    "  tgt.forEach(function (e, i) { e.title = 'probability ' + D.prob[i].toFixed(3); });\n",
    "  apply();\n",
    "})();\n",
    NULL,
};

int inspect_write_html(FILE *out, const TranslatorResult *r, const float *encoder,
                       const char *sentence, size_t len)
{
    if (!out || !r || !r->t || !r->model || r->t->n < 1 || r->t->S < 1 || !encoder ||
        !sentence)
        return TT_EINVAL;
    const ModelConfig *c = &r->model->config;
    const int L = c->n_decoder_layers, H = c->n_heads;
    const Translation *t = r->t;
    char *json;
    size_t n;
    int rc = html_data_json(&json, &n, r, encoder, sentence, len);
    if (rc != TT_OK)
        return rc;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>toytrans inspect: ", out);
    put_text(out, sentence, len);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>\xe2\x80\x9c", HTML_STYLE);
    put_text(out, sentence, len);
    fputs("\xe2\x80\x9d \xe2\x86\x92 \xe2\x80\x9c", out);
    put_str(out, r->text);
    fputs("\xe2\x80\x9d</h1>\n<div id=\"controls\">\n<label>layer <select id=\"layer\">", out);
    for (int l = 0; l < L; l++)
        fprintf(out, "<option value=\"%d\"%s>%d</option>", l, l == L - 1 ? " selected" : "", l);
    fputs("</select></label>\n<label>head <select id=\"head\">"
          "<option value=\"mean\" selected>mean</option>", out);
    for (int h = 0; h < H; h++)
        fprintf(out, "<option value=\"%d\">%d</option>", h, h);
    fputs("</select></label>\n<label>attention <select id=\"kind\">"
          "<option value=\"cross\" selected>cross: word \xe2\x86\x92 source</option>"
          "<option value=\"self\">self: word \xe2\x86\x92 &lt;s&gt; and earlier words</option>"
          "<option value=\"encoder\">encoder: source \xe2\x86\x92 source</option>"
          "</select></label>\n<label><input type=\"checkbox\" id=\"numbers\"> numbers in "
          "the cells</label>\n</div>\n"
          "<div id=\"legend\" aria-label=\"colour scale\"><span>weight 0</span>"
          "<span class=\"bar\"></span><span>1</span>"
          "<span><span class=\"swatch\" style=\"background:repeating-linear-gradient(45deg,"
          "#f6f6f6,#f6f6f6 3px,#d9d9d9 3px,#d9d9d9 5px)\"></span> masked: a later position, "
          "which self-attention cannot see</span></div>\n"
          "<p>Click a German word (cross, self) or an English token (encoder).</p>\n"
          "<div id=\"target\"><span id=\"bos\" class=\"bos-marker\">&lt;s&gt;</span>", out);
    for (int i = 0; i < t->n; i++) {
        /* The label (ist#1, ist#2), as the table's rows and the data name the word. */
        fprintf(out, " <span class=\"tgt-word%s\" data-index=\"%d\"", r->copied[i] ? " copied" : "",
                i);
        if (r->copied[i]) {
            fputs(" title=\"", out);
            put_str(out, INSPECT_COPIED_LEGEND);
            fputc('"', out);
        }
        fputc('>', out);
        put_str(out, r->labels[i]);
        fputs("</span>", out);
    }
    fputs("</div>\n<div id=\"source\">", out);
    for (int j = 0; j < t->S; j++) {
        fprintf(out, "%s<span class=\"src-token%s\" data-index=\"%d\"%s>", j ? " " : "",
                source_unknown(r, j) ? " unknown" : "", j,
                source_unknown(r, j) ? " title=\"" INSPECT_UNKNOWN_LEGEND "\"" : "");
        put_str(out, source_label(r, j));
        fputs("</span>", out);
    }
    if (count_unknown(r))
        fputs("</div>\n<p id=\"unknown-legend\">" INSPECT_UNKNOWN_MARK " "
              INSPECT_UNKNOWN_LEGEND "</p>", out);
    else
        fputs("</div>", out);
    if (count_copied(r)) {
        fputs("\n<p id=\"copied-legend\">" INSPECT_COPIED_MARK " ", out);
        put_str(out, INSPECT_COPIED_LEGEND);
        fputs("</p>", out);
    }
    fputs("\n<div id=\"status\"></div>\n<table id=\"heatmap\"></table>\n"
          "<script id=\"data\" type=\"application/json\">", out);
    put_script_json(out, json, n);
    fputs("</script>\n<script>\n", out);
    for (const char *const *line = HTML_SCRIPT; *line; line++)
        fputs(*line, out);
    fputs("</script>\n</body>\n</html>\n", out);
    free(json);
    return ferror(out) ? TT_EIO : TT_OK;
}
