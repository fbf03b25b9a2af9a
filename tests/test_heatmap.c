/*
 * test_heatmap.c — the terminal heatmap: shade and colour choice at the boundaries,
 * top-k ranking, UTF-8 column widths, and the drawn lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "show/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each shade starts exactly at its boundary (0.2, 0.4, 0.6, 0.8) and out-of-range or NaN
 * weights clamp. */
static void test_heatmap_shade_boundaries(void **state)
{
    (void)state;
    static const struct {
        float w;
        int shade;
    } CASES[] = {
        {0.0f, 0}, {0.1999f, 0}, {0.2f, 1}, {0.3999f, 1}, {0.4f, 2}, {0.5999f, 2},
        {0.6f, 3}, {0.7999f, 3}, {0.8f, 4}, {1.0f, 4},   {1.5f, 4},  {-0.5f, 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        assert_int_equal(heatmap_shade(CASES[i].w), CASES[i].shade);
    assert_int_equal(heatmap_shade(nanf("")), 0);
    assert_string_equal(heatmap_shade_char(0.0f), " ");
    assert_string_equal(heatmap_shade_char(0.25f), "░");
    assert_string_equal(heatmap_shade_char(0.5f), "▒");
    assert_string_equal(heatmap_shade_char(0.7f), "▓");
    assert_string_equal(heatmap_shade_char(0.9f), "█");
}

/* The colour runs over the 24-step grey ramp, ends included: from the background's end
 * (black on a dark terminal, white on a light one) to the text's. */
static void test_heatmap_color_ramp(void **state)
{
    (void)state;
    assert_int_equal(heatmap_color(0.0f, 0), 232);
    assert_int_equal(heatmap_color(-1.0f, 0), 232);
    assert_int_equal(heatmap_color(1.0f, 0), 255);
    assert_int_equal(heatmap_color(2.0f, 0), 255);
    assert_int_equal(heatmap_color(0.5f, 0), 232 + 12);
    assert_int_equal(heatmap_color(0.0f, 1), 255);
    assert_int_equal(heatmap_color(1.0f, 1), 232);
    assert_int_equal(heatmap_color(0.5f, 1), 255 - 12);
    assert_int_equal(heatmap_color(NAN, 1), 255);
}

/* COLORFGBG's last field names the background: 7 and 9..15 are light, the rest dark. */
static void test_heatmap_background_from_colorfgbg(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int light;
    } CASES[] = {{"0;15", 1}, {"0;7", 1}, {"15;0", 0}, {"default;default;15", 1},
                 {"12;8", 0}, {"0;9", 1}, {"", 0}, {"0;", 0}, {"0;15x", 0}, {"7", 1}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        assert_int_equal(heatmap_background_light(CASES[i].value), CASES[i].light);
    assert_int_equal(heatmap_background_light(NULL), 0);
}

/* Top-k lists the largest weights first, ties to the lower index, and never more than n. */
static void test_heatmap_top_orders_and_breaks_ties(void **state)
{
    (void)state;
    const float row[] = {0.1f, 0.4f, 0.05f, 0.4f, 0.05f};
    int idx[3];
    assert_int_equal(heatmap_top(row, 5, 3, idx), 3);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 3);
    assert_int_equal(idx[2], 0);
    assert_int_equal(heatmap_top(row, 2, 3, idx), 2);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 0);
}

/* Column widths count terminal columns, not bytes; long labels are capped, short ones
 * widened to the minimum. */
static void test_heatmap_column_width_utf8(void **state)
{
    (void)state;
    assert_int_equal(heatmap_column_width("Mädchen"), 7); /* 8 bytes */
    assert_int_equal(heatmap_column_width("</s>"), 4);
    assert_int_equal(heatmap_column_width("a"), HEATMAP_CELL_MIN);
    assert_int_equal(heatmap_column_width("Straßenbahnhaltestelle"), HEATMAP_LABEL_MAX);
}

/* Prints into a string; the caller frees it. */
static char *print_to_string(const float *w, int rows, int cols, const HeatmapOptions *o,
                             int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    *rc = heatmap_print(f, w, rows, cols, cols, o);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* A drawn heatmap: header cut with "…", cells as wide as their headers, the top list
 * after the row, and no escape bytes without colour. */
static void test_heatmap_print_plain_lines(void **state)
{
    (void)state;
    const char *cols[] = {"Mädchen", "a", "Straßenbahnhaltestelle"};
    const char *rows[] = {"x"};
    const float w[] = {0.85f, 0.1f, 0.05f};
    const HeatmapOptions o = {.row_labels = rows, .col_labels = cols, .top_k = 2};
    int rc;
    char *s = print_to_string(w, 1, 3, &o, &rc);
    assert_int_equal(rc, TT_OK);
    assert_string_equal(s, "  Mädchen a   Straßenba…\n"
                           "x ███████" "                 " "Mädchen 0.85, a 0.10\n");
    assert_null(strchr(s, '\x1b'));
    free(s);
}

/* With colour every cell carries a 256-colour background and a reset. */
static void test_heatmap_print_color_escapes(void **state)
{
    (void)state;
    const char *cols[] = {"abc"};
    const float w[] = {1.0f};
    const HeatmapOptions o = {.col_labels = cols, .color = 1};
    int rc;
    char *s = print_to_string(w, 1, 1, &o, &rc);
    assert_int_equal(rc, TT_OK);
    assert_non_null(strstr(s, "\x1b[48;5;255m███\x1b[0m"));
    free(s);
    /* On a light background the same weight is the dark end of the ramp. */
    const HeatmapOptions light = {.col_labels = cols, .color = 1, .light = 1};
    s = print_to_string(w, 1, 1, &light, &rc);
    assert_int_equal(rc, TT_OK);
    assert_non_null(strstr(s, "\x1b[48;5;232m███\x1b[0m"));
    free(s);
}

/* Causal rows leave the columns after their own position blank. */
static void test_heatmap_print_causal_blank(void **state)
{
    (void)state;
    const char *cols[] = {"abc", "def"};
    const float w[] = {1.0f, 0.9f, 0.5f, 0.5f};
    const HeatmapOptions o = {.col_labels = cols, .causal = 1};
    int rc;
    char *s = print_to_string(w, 2, 2, &o, &rc);
    assert_int_equal(rc, TT_OK);
    assert_string_equal(s, "  abc def\n1 ███    \n2 ▒▒▒ ▒▒▒\n");
    free(s);
}

/* A heatmap wider than o.width is split into blocks of columns that fit, each with the
 * row labels, and the top lists follow on lines of their own; every line fits. */
static void test_heatmap_print_wraps_to_width(void **state)
{
    (void)state;
    const char *cols[] = {"aaa", "bbb", "ccc", "ddd"};
    const char *rows[] = {"x", "y"};
    const float w[] = {0.9f, 0.1f, 0.0f, 0.0f, 0.0f, 0.0f, 0.3f, 0.7f};
    const HeatmapOptions o = {.row_labels = rows, .col_labels = cols, .top_k = 1,
                              .width = 10};
    int rc;
    char *s = print_to_string(w, 2, 4, &o, &rc);
    assert_int_equal(rc, TT_OK);
    assert_string_equal(s, "columns 1-2 of 4:\n"
                           "  aaa bbb\n"
                           "x ███    \n"
                           "y        \n"
                           "\n"
                           "columns 3-4 of 4:\n"
                           "  ccc ddd\n"
                           "x        \n"
                           "y ░░░ ▓▓▓\n"
                           "\n"
                           "most attended:\n"
                           "x  aaa 0.90\n"
                           "y  ddd 0.70\n");
    free(s);
    /* Wide enough: one block, the top list after each row, as without a width. */
    const HeatmapOptions wide = {.row_labels = rows, .col_labels = cols, .top_k = 1,
                                 .width = 28};
    s = print_to_string(w, 2, 4, &wide, &rc);
    assert_int_equal(rc, TT_OK);
    assert_string_equal(s, "  aaa bbb ccc ddd\n"
                           "x ███              aaa 0.90\n"
                           "y         ░░░ ▓▓▓  ddd 0.70\n");
    free(s);
}

/* The legend names every shade and the weight it starts at. */
static void test_heatmap_legend_names_every_shade(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    heatmap_print_legend(f, "  ", 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, "  shades: ░ from 0.2, ▒ from 0.4, ▓ from 0.6, █ from 0.8, blank "
                             "below 0.2\n");
    free(buf);
    /* Narrow: broken between items, the next line under the first shade. */
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    heatmap_print_legend(f, "  ", 40);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, "  shades: ░ from 0.2, ▒ from 0.4,\n"
                             "          ▓ from 0.6, █ from 0.8,\n"
                             "          blank below 0.2\n");
    /* The boundaries it states are the ones heatmap_shade uses. */
    assert_string_equal(heatmap_shade_char(0.2f), "░");
    assert_string_equal(heatmap_shade_char(0.8f), "█");
    free(buf);
}

/* Bad arguments are refused, not drawn. */
static void test_heatmap_print_rejects_bad_arguments(void **state)
{
    (void)state;
    const float w[] = {1.0f};
    const HeatmapOptions none = {0};
    int rc;
    char *s = print_to_string(w, 1, 1, &none, &rc);
    assert_int_equal(rc, TT_EINVAL);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heatmap_shade_boundaries),
        cmocka_unit_test(test_heatmap_color_ramp),
        cmocka_unit_test(test_heatmap_background_from_colorfgbg),
        cmocka_unit_test(test_heatmap_top_orders_and_breaks_ties),
        cmocka_unit_test(test_heatmap_column_width_utf8),
        cmocka_unit_test(test_heatmap_print_plain_lines),
        cmocka_unit_test(test_heatmap_print_color_escapes),
        cmocka_unit_test(test_heatmap_print_causal_blank),
        cmocka_unit_test(test_heatmap_print_wraps_to_width),
        cmocka_unit_test(test_heatmap_legend_names_every_shade),
        cmocka_unit_test(test_heatmap_print_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
