/*
 * test_inspect_render.c — the inspect files (inspect_render.h): the SVG heatmap is
 * well-formed XML with one cell per (word, token), the legend and exact tooltips, and escapes
 * tokens; the HTML page carries every id and class of its DOM contract, a data block
 * that is valid JSON, and a "</script>" token that cannot end that block.
 *
 * The fixture is a hand-made TranslatorResult (2 decoder layers, 1 encoder layer, 2
 * heads) with known weights, so the expected tooltips are written out here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "show/heatmap.h"
#include "show/inspect_render.h"
#include "jsoncheck.h"
#include "base/status.h"
#include "xmlcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L = 2, LE = 1, H = 2, N = 4, S = 3, T = 2 };

typedef struct {
    Model m;
    Translation t;
    TokenList src;
    const char *src_tok[S - 1];
    const char *src_labels[S]; /* the source tokens and </s>: none repeats */
    const char *words[T];
    float logprob[T];           /* each word's log-probability: 0.9 and 0.8 */
    int kind[S - 1];            /* TranslatorWordKind per source token: all known */
    unsigned char copied[T];    /* each word copied from the source for <unk>: none */
    float cross[N * L * H * N]; /* (max_len, L, H, S) in room for (max_len, L, H, N), as
                                   decode.h lays a record out */
    float self[N * L * H * N];  /* step i's rows after the i(i+1)/2 rows' worth before */
    float enc[LE * H * S * S];  /* (LE, H, S, S) */
    TranslatorResult r;
} Fixture;

static Fixture *fixture_new(void)
{
    Fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->m.config.n_decoder_layers = L;
    f->m.config.n_encoder_layers = LE;
    f->m.config.n_heads = H;
    f->m.config.max_len = N;
    f->src_tok[0] = "<&>";
    f->src_tok[1] = "</script>";
    f->src.n = S - 1;
    f->src.tok = f->src_tok;
    f->words[0] = "Ja";
    f->words[1] = "</s>";
    /* Cross weights: step i, layer l, head h puts 0.5 + 0.25*h on token (i + l) % S and
     * the rest evenly on the others. */
    for (int i = 0; i < T; i++)
        for (int l = 0; l < L; l++)
            for (int h = 0; h < H; h++)
                for (int j = 0; j < S; j++) {
                    const float top = 0.5f + 0.25f * (float)h;
                    f->cross[(((size_t)i * L + l) * H + h) * S + j] =
                        j == (i + l) % S ? top : (1.0f - top) / 2.0f;
                    if (j <= i)
                        f->self[(size_t)L * H * i * (i + 1) / 2 + ((size_t)l * H + h) * (i + 1) + j] =
                            1.0f / (float)(i + 1);
                }
    for (size_t k = 0; k < sizeof f->enc / sizeof f->enc[0]; k++)
        f->enc[k] = 1.0f / S;
    f->t.L = L;
    f->t.H = H;
    f->t.cap = N;
    f->logprob[0] = logf(0.9f);
    f->logprob[1] = logf(0.8f);
    f->t.logprob = f->logprob;
    f->t.S = S;
    f->t.n = T;
    f->t.cross = f->cross;
    f->t.self = f->self;
    f->r.model = &f->m;
    f->r.text = "Ja";
    f->r.t = &f->t;
    f->r.src = &f->src;
    f->r.surface = &f->src;
    f->r.tokens = f->words;
    f->r.words = f->words;
    f->r.labels = f->words; /* no word repeats: the labels are the words */
    f->src_labels[0] = f->src_tok[0];
    f->src_labels[1] = f->src_tok[1];
    f->src_labels[2] = "</s>";
    f->r.src_labels = f->src_labels;
    f->r.n_text = 1;
    f->r.kind = f->kind;
    f->r.copied = f->copied;
    return f;
}

static char *render_svg(const Fixture *f, int layer, int head, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    *rc = inspect_write_svg(out, &f->r, "<&> </script>", 13, layer, head);
    assert_int_equal(fclose(out), 0);
    return buf;
}

static char *render_html(const Fixture *f, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    *rc = inspect_write_html(out, &f->r, f->enc, "<&> </script>", 13);
    assert_int_equal(fclose(out), 0);
    return buf;
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub))
        n++;
    return n;
}

static void assert_well_formed(const char *svg)
{
    char why[160];
    if (!xml_well_formed(svg, why, sizeof why)) {
        print_error("SVG not well formed: %s\n", why);
        fail();
    }
}

/* The SVG is well formed, with one cell per (word, token), the legend, the title. */
static void test_inspect_render_svg_well_formed_with_cells_and_legend(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_substr(svg, "<rect class=\"cell\""), T * S);
    assert_int_equal(count_substr(svg, "<rect id=\"legend\""), 1);
    assert_non_null(strstr(svg, "mean of 2 heads"));
    free(svg);
    free(f);
}

/* Tooltips hold the exact weights of the chosen layer and head, or the heads' mean. */
static void test_inspect_render_svg_tooltips_exact(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    /* Layer 1, step 0 attends token 1 ("</script>"): heads 0.5 and 0.75, mean 0.625. */
    char *svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_non_null(strstr(svg, "<title>Ja \xe2\x86\x92 &lt;/script&gt;: 0.6250</title>"));
    assert_non_null(strstr(svg, "<title>&lt;/s&gt; \xe2\x86\x92 &lt;/s&gt;: 0.6250</title>"));
    free(svg);
    svg = render_svg(f, 0, 1, &rc);
    assert_int_equal(rc, TT_OK);
    assert_non_null(strstr(svg, "<title>Ja \xe2\x86\x92 &lt;&amp;&gt;: 0.7500</title>"));
    assert_non_null(strstr(svg, "<title>Ja \xe2\x86\x92 &lt;/script&gt;: 0.1250</title>"));
    free(svg);
    free(f);
}

/* Markup in tokens and in the sentence is escaped, never written raw. */
static void test_inspect_render_svg_escapes_tokens(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *svg = render_svg(f, 0, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_null(strstr(svg, "<&>"));
    assert_null(strstr(svg, "</script>"));
    assert_non_null(strstr(svg, ">&lt;&amp;&gt;</text>"));
    free(svg);
    free(f);
}

/* A layer or head the model does not have is refused. */
static void test_inspect_render_svg_rejects_bad_choice(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    free(render_svg(f, L, TRANSLATION_HEAD_MEAN, &rc));
    assert_int_equal(rc, TT_EINVAL);
    free(render_svg(f, 0, H, &rc));
    assert_int_equal(rc, TT_EINVAL);
    free(f);
}

/* The page holds every id and class of the DOM contract, with the default choices. */
static void test_inspect_render_html_has_dom_contract(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *html = render_html(f, &rc);
    assert_int_equal(rc, TT_OK);
    static const char *const NEEDLES[] = {
        "<select id=\"layer\">", "<option value=\"0\">0</option>",
        "<option value=\"1\" selected>1</option>", "<select id=\"head\">",
        "<option value=\"mean\" selected>mean</option>", "<select id=\"kind\">",
        "<option value=\"cross\" selected>", "<option value=\"self\">",
        "<option value=\"encoder\">", "<div id=\"target\">", "<div id=\"source\">",
        "<span class=\"tgt-word\" data-index=\"0\">Ja</span>",
        "<span class=\"tgt-word\" data-index=\"1\">&lt;/s&gt;</span>",
        "<span class=\"src-token\" data-index=\"0\">&lt;&amp;&gt;</span>",
        "<span class=\"src-token\" data-index=\"1\">&lt;/script&gt;</span>",
        "<span class=\"src-token\" data-index=\"2\">&lt;/s&gt;</span>",
        "<table id=\"heatmap\">", "<div id=\"status\">", "id=\"bos\"",
        "<script id=\"data\" type=\"application/json\">",
    };
    for (size_t i = 0; i < sizeof NEEDLES / sizeof NEEDLES[0]; i++) {
        if (!strstr(html, NEEDLES[i])) {
            print_error("missing: %s\n", NEEDLES[i]);
            fail();
        }
    }
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_null(strstr(html, " src="));
    free(html);
    free(f);
}

/* The data block is valid JSON, and a "</script>" token cannot end it: the only
 * "</script>" in the page are the two real closing tags. */
static void test_inspect_render_html_data_is_json_and_script_safe(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *html = render_html(f, &rc);
    assert_int_equal(rc, TT_OK);
    const char *open = "<script id=\"data\" type=\"application/json\">";
    const char *begin = strstr(html, open);
    assert_non_null(begin);
    begin += strlen(open);
    const char *end = strstr(begin, "</script>");
    assert_non_null(end);
    char err[160] = "";
    if (jsoncheck_validate(begin, (size_t)(end - begin), err, sizeof err) < 0) {
        print_error("data block: %s\n", err);
        fail();
    }
    assert_int_equal(count_substr(html, "</script>"), 2);
    assert_int_equal(count_substr(html, "</script"), 2);
    assert_null(strstr(html, "<!--"));
    /* The escaped token is still the token to a JSON parser. */
    char *block = strndup(begin, (size_t)(end - begin));
    assert_non_null(block);
    assert_non_null(strstr(block, "\"<\\/script>\""));
    assert_non_null(strstr(block, "\"cross\":[[[[0.5,0.25,0.25],[0.75,0.125,0.125]]"));
    /* Each word's probability, for the page's p column and titles. */
    const char *prob = strstr(block, "\"prob\":[");
    assert_non_null(prob);
    char *after;
    const double p0 = strtod(prob + strlen("\"prob\":["), &after);
    assert_true(*after == ',');
    assert_float_equal(p0, 0.9, 1e-6);
    assert_float_equal(strtod(after + 1, NULL), 0.8, 1e-6);
    free(block);
    free(html);
    free(f);
}

/* No decoded word or no encoder weights: nothing to draw. */
static void test_inspect_render_html_rejects_empty(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    assert_int_equal(inspect_write_html(out, &f->r, NULL, "x", 1), TT_EINVAL);
    f->t.n = 0;
    assert_int_equal(inspect_write_html(out, &f->r, f->enc, "x", 1), TT_EINVAL);
    assert_int_equal(inspect_write_svg(out, &f->r, "x", 1, 0, 0), TT_EINVAL);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(len, 0);
    free(buf);
    free(f);
}

/* The SVG says which axis is the German output and which the English source. */
static void test_inspect_render_svg_names_its_axes(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_well_formed(svg);
    const char *note = strstr(svg, "<text id=\"axis-note\"");
    assert_non_null(note);
    assert_non_null(strstr(note, "rows: the German output"));
    assert_non_null(strstr(note, "columns: the English source tokens"));
    free(svg);
    free(f);
}

/* A repeated German word is labelled alike on its button and in the table's rows (the
 * data's "target"): ist#1, ist#2 on both. */
static void test_inspect_render_html_buttons_use_labels(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    const char *labels[T] = {"Ja#1", "</s>"};
    f->r.labels = labels;
    int rc;
    char *html = render_html(f, &rc);
    assert_int_equal(rc, TT_OK);
    assert_non_null(strstr(html, "<span class=\"tgt-word\" data-index=\"0\">Ja#1</span>"));
    assert_non_null(strstr(html, "\"target\":[\"Ja#1\""));
    free(html);
    free(f);
}

/* A source token not in the vocabulary gets the mark and the legend line, in the SVG
 * and in the page; a sentence without one gets neither. */
static void test_inspect_render_marks_unknown_source_words(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    char *html = render_html(f, &rc);
    assert_null(strstr(svg, "unknown"));
    assert_null(strstr(html, "unknown-legend\">"));
    assert_int_equal(count_substr(html, "src-token unknown"), 0);
    free(html);
    free(svg);
    f->kind[1] = TR_WORD_UNKNOWN;
    svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_substr(svg, "<tspan class=\"unknown\""), 1);
    assert_non_null(strstr(svg, "&lt;/script&gt;<tspan class=\"unknown\""));
    assert_non_null(strstr(svg, ">? not in the vocabulary</text>"));
    html = render_html(f, &rc);
    assert_int_equal(rc, TT_OK);
    assert_int_equal(count_substr(html, "class=\"src-token unknown\""), 1);
    assert_non_null(strstr(html, "<p id=\"unknown-legend\">? not in the vocabulary</p>"));
    /* The table's header marks it too: the data says which tokens, the script adds it. */
    assert_non_null(strstr(html, "\"unknown\":[false,true,false]"));
    assert_non_null(strstr(html, "\"mark\":\"?\""));
    assert_non_null(strstr(html, "D.unknown[j] ? s + D.mark : s"));
    free(html);
    free(svg);
    f->kind[1] = TR_WORD_NAME; /* a name is not in the vocabulary either */
    svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(count_substr(svg, "<tspan class=\"unknown\""), 1);
    free(svg);
    free(f);
}

/* A word copied from the source for a generated <unk> gets the copy mark and its legend
 * line, in the SVG and in the page (its button, and the table through the data); a
 * translation without one gets neither. */
static void test_inspect_render_marks_copied_words(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    int rc;
    char *svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    char *html = render_html(f, &rc);
    assert_null(strstr(svg, "copied"));
    assert_null(strstr(html, "copied-legend\">"));
    assert_int_equal(count_substr(html, "tgt-word copied"), 0);
    free(html);
    free(svg);
    f->copied[0] = 1;
    svg = render_svg(f, 1, TRANSLATION_HEAD_MEAN, &rc);
    assert_int_equal(rc, TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_substr(svg, "<tspan class=\"copied\""), 1);
    assert_non_null(strstr(svg, ">Ja<tspan class=\"copied\""));
    assert_non_null(strstr(svg, ">* copied from the source: the model wrote &lt;unk&gt;</text>"));
    html = render_html(f, &rc);
    assert_int_equal(rc, TT_OK);
    assert_int_equal(count_substr(html, "class=\"tgt-word copied\""), 1);
    assert_non_null(strstr(html, "<p id=\"copied-legend\">* copied from the source: the model "
                                 "wrote &lt;unk&gt;</p>"));
    assert_non_null(strstr(html, "\"copied\":[true,false]"));
    assert_non_null(strstr(html, "D.copied[i] ? s + D.copied_mark : s"));
    free(html);
    free(svg);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspect_render_svg_well_formed_with_cells_and_legend),
        cmocka_unit_test(test_inspect_render_svg_tooltips_exact),
        cmocka_unit_test(test_inspect_render_svg_escapes_tokens),
        cmocka_unit_test(test_inspect_render_svg_rejects_bad_choice),
        cmocka_unit_test(test_inspect_render_svg_names_its_axes),
        cmocka_unit_test(test_inspect_render_html_buttons_use_labels),
        cmocka_unit_test(test_inspect_render_html_has_dom_contract),
        cmocka_unit_test(test_inspect_render_html_data_is_json_and_script_safe),
        cmocka_unit_test(test_inspect_render_html_rejects_empty),
        cmocka_unit_test(test_inspect_render_marks_unknown_source_words),
        cmocka_unit_test(test_inspect_render_marks_copied_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
