/*
 * plot.c — the loss curves of a training run as SVG (see plot.h).
 *
 * The picture is computed in two stages: a Frame maps steps and losses to pixels (linear
 * x from step 0, log10 y padded a little beyond the data), then each layer is written in
 * drawing order — background, grid and ticks, epoch boundaries, the series clipped to
 * the plot area, axes, legend, titles. Every number written is a pixel coordinate with
 * one decimal, printed in the C locale that toytrans never changes.
 *
 * Tick values are "nice" numbers: 1, 2 or 5 times a power of ten on the x axis; on the
 * log y axis the powers of ten alone when the data spans several decades, 1-2-5 when it
 * spans one to three, every digit when less, and a linear 1-2-5 scale when even that
 * leaves fewer than two labels.
 */
#include "show/plot.h"

#include "base/status.h"
#include "base/xml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TICKS 64      /* labelled ticks per axis, at most */
#define MAX_MINOR 256     /* unlabelled minor ticks on the y axis, at most */
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

#define COLOR_RAW "#9ecae1"    /* training loss per step: light blue */
#define COLOR_SMOOTH "#08519c" /* its moving average: dark blue */
#define COLOR_VALID "#e6550d"  /* validation loss: orange */
#define COLOR_GRID "#e8e8e8"
#define COLOR_EPOCH "#b0b0b0"
#define COLOR_AXIS "#555555"
#define COLOR_TEXT "#222222"
#define COLOR_MUTED "#666666"

/* Where the data goes on the page. */
typedef struct {
    double left, top;      /* the plot area's corner, pixels */
    double pw, ph;         /* the plot area's size, pixels, > 0 */
    double x_max;          /* the x axis runs from step 0 to x_max, > 0 */
    double log_lo, log_hi; /* log10 of the y axis's ends, log_lo < log_hi */
} Frame;

static double frame_x(const Frame *f, double step)
{
    return f->left + step / f->x_max * f->pw;
}

/* Losses of 0 (and anything below the axis) land on the bottom edge. */
static double frame_y(const Frame *f, double loss)
{
    double t = loss > 0 ? (log10(loss) - f->log_lo) / (f->log_hi - f->log_lo) : 0.0;
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    return f->top + (1.0 - t) * f->ph;
}

/* ---------------------------------------------------------------------------------------
 * Text
 */

/* A <text> element at (x, y) holding the literal string s. */
static void text_at(FILE *out, double x, double y, const char *anchor, int size,
                    const char *color, const char *s)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" "
                 "fill=\"%s\">", x, y, anchor, size, color);
    xml_put_text(out, s, strlen(s), XML_APOS_ENTITY);
    fputs("</text>\n", out);
}

/* The subtitle's lines: at most SUBTITLE_LINES, each at most a width's worth of
 * characters at SUBTITLE_CHAR_W pixels a character (12-pixel sans-serif: about 6.6 on
 * average; 7 keeps a line inside the canvas in DejaVu Sans and Helvetica alike). */
enum { SUBTITLE_LINES = 4 };
#define SUBTITLE_CHAR_W 7.0
#define SUBTITLE_SEP " \xc2\xb7 " /* " · ", which joins the subtitle's parts */

typedef struct {
    const char *s; /* the line's first byte */
    size_t n;      /* its bytes */
} Line;

/* Breaks s into lines of at most max_chars code points: after the last " · " that fits
 * (the separator dropped), else after the last blank that fits, else where the limit
 * falls. The last line allowed takes the rest. Returns the number of lines, >= 1. */
static int subtitle_lines(const char *s, int max_chars, Line *lines)
{
    int n = 0;
    const size_t sep = strlen(SUBTITLE_SEP);
    for (;;) {
        const size_t len = strlen(s);
        size_t fit = 0, at_sep = 0, at_blank = 0;
        int chars = 0;
        for (size_t i = 0; i < len; i++) {
            if (((unsigned char)s[i] & 0xC0) != 0x80) {
                if (chars == max_chars)
                    break;
                chars++;
            }
            fit = i + 1;
            if (strncmp(s + fit, SUBTITLE_SEP, sep) == 0)
                at_sep = fit;
            else if (s[fit] == ' ')
                at_blank = fit;
        }
        if (fit == len || n == SUBTITLE_LINES - 1) {
            lines[n++] = (Line){s, len};
            return n;
        }
        /* fit ends inside a character when the limit falls there: back to its start. */
        while (fit > 0 && ((unsigned char)s[fit] & 0xC0) == 0x80)
            fit--;
        const size_t cut = at_sep ? at_sep : at_blank ? at_blank : fit > 0 ? fit : len;
        lines[n++] = (Line){s, cut};
        s += cut;
        if (strncmp(s, SUBTITLE_SEP, sep) == 0)
            s += sep;
        while (*s == ' ')
            s++;
        if (!*s)
            return n;
    }
}

/* ---------------------------------------------------------------------------------------
 * Ticks
 */

/* 1, 2 or 5 times a power of ten, at least raw. */
static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * p;
}

/* m · 10^k, computed so that 5 · 10^-2 prints as 0.05 and not 0.05000000000000001. */
static double scaled(double m, int k)
{
    return k >= 0 ? m * pow(10.0, k) : m / pow(10.0, -k);
}

/* The labelled values (*n of them, ascending) and minor ticks (*n_minor) of a log axis
 * from 10^lo to 10^hi. */
static void log_ticks(double lo, double hi, double *ticks, int *n, double *minor, int *n_minor)
{
    static const double SETS[3][9] = {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const int SET_SIZE[3] = {1, 3, 9};
    static const int ENOUGH[3] = {4, 3, 2}; /* the fewest labels each set may give */
    const int k_lo = (int)floor(lo), k_hi = (int)ceil(hi);
    /* Over many decades, label every stride-th power of ten only. */
    const int stride = k_hi - k_lo > 10 ? (k_hi - k_lo + 9) / 10 : 1;
    *n = *n_minor = 0;
    for (int set = 0; set < 3; set++) {
        *n = 0;
        for (int k = k_lo; k <= k_hi; k++) {
            if (set == 0 && k % stride != 0)
                continue;
            for (int j = 0; j < SET_SIZE[set]; j++) {
                double v = scaled(SETS[set][j], k);
                if (log10(v) >= lo - 1e-12 && log10(v) <= hi + 1e-12 && *n < MAX_TICKS)
                    ticks[(*n)++] = v;
            }
        }
        if (*n >= ENOUGH[set]) {
            /* Unlabelled marks at the digits between the labels, while they stay apart. */
            if (set < 2 && stride == 1 && k_hi - k_lo <= 6)
                for (int k = k_lo; k <= k_hi; k++)
                    for (int d = 2; d <= 9; d++) {
                        double v = scaled(d, k);
                        if ((set == 1 && (d == 2 || d == 5)) || log10(v) < lo || log10(v) > hi)
                            continue;
                        if (*n_minor < MAX_MINOR)
                            minor[(*n_minor)++] = v;
                    }
            return;
        }
    }
    /* Less than a digit's worth of range: a linear scale of nice numbers. */
    const double a = pow(10.0, lo), b = pow(10.0, hi), step = nice_step((b - a) / 4.0);
    const double first = ceil(a / step);
    *n = 0;
    for (int i = 0; *n < MAX_TICKS && (first + i) * step <= b; i++)
        ticks[(*n)++] = (first + i) * step;
}

/* A step or epoch count as a label: 0, 250, 12000, 150k. */
static void format_step(char *buf, size_t size, double v)
{
    long long s = llround(v);
    if (s >= 100000 && s % 1000 == 0)
        snprintf(buf, size, "%lldk", s / 1000);
    else
        snprintf(buf, size, "%lld", s);
}

/* ---------------------------------------------------------------------------------------
 * Series
 */

/* Writes the points of a <polyline>, a few to a line. */
typedef struct {
    FILE *out;
    int count; /* points written */
} Points;

static void points_add(Points *p, double x, double y)
{
    fprintf(p->out, "%s%.1f,%.1f", p->count == 0 ? "" : p->count % 8 == 0 ? "\n" : " ", x, y);
    p->count++;
}

static void polyline_begin(FILE *out, const char *id, const char *color, double width)
{
    fprintf(out, "<polyline id=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
                 "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"", id, color,
            width);
}

/* The centred moving average of the n values y, half-width h, narrowing at both ends so
 * that the first and last points are the data's own; into smooth (n values). */
static int moving_average(const double *y, int n, int h, double *smooth)
{
    double *sum = malloc(sizeof(double) * ((size_t)n + 1)); /* sum[i]: y[0..i-1] */
    if (!sum)
        return TT_ENOMEM;
    sum[0] = 0.0;
    for (int i = 0; i < n; i++)
        sum[i + 1] = sum[i] + y[i];
    for (int i = 0; i < n; i++) {
        int r = h;
        if (r > i)
            r = i;
        if (r > n - 1 - i)
            r = n - 1 - i;
        smooth[i] = (sum[i + r + 1] - sum[i - r]) / (2.0 * r + 1.0);
    }
    free(sum);
    return TT_OK;
}

/* The pixel column of a step, 0..pw-1. */
static long column_of(const Frame *f, double step)
{
    long c = (long)floor(step / f->x_max * f->pw);
    long last = (long)ceil(f->pw) - 1;
    return c < 0 ? 0 : c > last ? last : c;
}

/* How a series denser than the pixels is reduced to one or two points per column. */
typedef enum {
    REDUCE_EXTREMES, /* the lowest and the highest point, in step order: spikes survive */
    REDUCE_MEAN,     /* the mean point: for a line that is smooth already */
} Reduce;

/* One series as a <polyline>: the n points (x[i] steps, y[i] losses, x ascending), all
 * of them while there are at most two per pixel column, else reduced per column. */
static void draw_series(FILE *out, const Frame *f, const char *id, const char *color,
                        double width, const double *x, const double *y, int n, Reduce how)
{
    polyline_begin(out, id, color, width);
    Points p = {out, 0};
    const int reduce = n > 2.0 * f->pw;
    for (int i = 0; i < n;) {
        if (!reduce) {
            points_add(&p, frame_x(f, x[i]), frame_y(f, y[i]));
            i++;
            continue;
        }
        /* One pixel column: points i..j-1. */
        const long col = column_of(f, x[i]);
        int j = i, lo = i, hi = i;
        double x_sum = 0, y_sum = 0;
        for (; j < n && column_of(f, x[j]) == col; j++) {
            if (y[j] < y[lo])
                lo = j;
            if (y[j] > y[hi])
                hi = j;
            x_sum += x[j];
            y_sum += y[j];
        }
        if (how == REDUCE_MEAN) {
            points_add(&p, frame_x(f, x_sum / (j - i)), frame_y(f, y_sum / (j - i)));
        } else {
            const int first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
            points_add(&p, frame_x(f, x[first]), frame_y(f, y[first]));
            if (second != first)
                points_add(&p, frame_x(f, x[second]), frame_y(f, y[second]));
        }
        i = j;
    }
    fputs("\"/>\n", out);
}

/* Circles at the n points; not clipped, since the last epoch's sits on the right edge and
 * half a circle there would look like a glitch. Left out when closer than 6 pixels:
 * then they would only blot the line. */
static void draw_markers(FILE *out, const Frame *f, const double *x, const double *y, int n)
{
    if (n * 6.0 > f->pw)
        return;
    fprintf(out, "<g fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\">\n", COLOR_VALID);
    for (int i = 0; i < n; i++)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", frame_x(f, x[i]),
                frame_y(f, y[i]));
    fputs("</g>\n", out);
}

/* ---------------------------------------------------------------------------------------
 * Epochs
 */

/* One epoch's stretch of the x axis. */
typedef struct {
    double from, to; /* steps */
    long long epoch;
} Span;

/* The epochs' spans, from the training log when there is one (an epoch ends where the
 * next one's first step begins), else from the validation log (an epoch ends at its
 * validation's step). *spans is owned by the caller. */
static int epoch_spans(const TrainLogRow *steps, int n_steps, const ValidLogRow *epochs,
                       int n_epochs, double x_max, Span **spans, int *n)
{
    *n = 0;
    *spans = malloc(sizeof(Span) * (size_t)(n_steps > n_epochs ? n_steps : n_epochs));
    if (!*spans)
        return TT_ENOMEM;
    Span *s = *spans;
    double from = 0;
    if (n_steps > 0) {
        for (int i = 1; i < n_steps; i++)
            if (steps[i].epoch != steps[i - 1].epoch) {
                double to = 0.5 * (double)(steps[i - 1].step + steps[i].step);
                s[(*n)++] = (Span){from, to, (long long)steps[i - 1].epoch};
                from = to;
            }
        s[(*n)++] = (Span){from, x_max, (long long)steps[n_steps - 1].epoch};
    } else {
        for (int i = 0; i < n_epochs; i++) {
            double to = i == n_epochs - 1 ? x_max : (double)epochs[i].step;
            s[(*n)++] = (Span){from, to, (long long)epochs[i].epoch};
            from = to;
        }
    }
    return TT_OK;
}

/* Faint lines between epochs, and the epochs' numbers along the top of the plot.
 *
 * With room (22 pixels or more per epoch, more for long numbers) every boundary gets a
 * line and every epoch its number in the middle of its stretch ("epoch 3" from 64 pixels
 * on). Crowded, only the ends of every stride-th epoch get a line, stride a 1-2-5
 * number, labelled with the number of the epoch that ends there: 10, 20, 30... */
static void draw_epochs(FILE *out, const Frame *f, const Span *s, int n)
{
    const double avg = f->pw / n;
    /* Room for the widest number, at about 6.5 pixels a digit, and a gap. */
    char widest[32];
    format_step(widest, sizeof widest, (double)s[n - 1].epoch);
    const double room = fmax(22.0, 6.5 * (double)strlen(widest) + 12);
    const int crowded = avg < room;
    const long long stride = crowded ? (long long)nice_step(room / avg) : 1;
    fprintf(out, "<g stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"3,3\">\n", COLOR_EPOCH);
    for (int i = 0; i + 1 < n; i++) {
        if (s[i].epoch % stride != 0)
            continue;
        const double x = frame_x(f, s[i].to);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, f->top, x,
                f->top + f->ph);
    }
    fputs("</g>\n", out);
    fprintf(out, "<g font-size=\"11\" fill=\"%s\" text-anchor=\"middle\">\n", COLOR_MUTED);
    const int words = avg >= 64;
    for (int i = 0; i < n; i++) {
        double x;
        if (crowded) {
            x = frame_x(f, s[i].to);
            /* The last boundary is the plot's edge, where a label would stick out. */
            if (s[i].epoch % stride != 0 || x > f->left + f->pw - 12)
                continue;
        } else {
            /* A label wider than its epoch (the last one of an unfinished run) is left out. */
            if (frame_x(f, s[i].to) - frame_x(f, s[i].from) < (words ? 56 : 14))
                continue;
            x = frame_x(f, 0.5 * (s[i].from + s[i].to));
        }
        char label[32];
        format_step(label, sizeof label, (double)s[i].epoch);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", x, f->top + 14,
                words ? "epoch " : "", label);
    }
    fputs("</g>\n", out);
}

/* ---------------------------------------------------------------------------------------
 * Axes and legend
 */

static void draw_grid_and_axes(FILE *out, const Frame *f)
{
    double ticks[MAX_TICKS], minor[MAX_MINOR];
    int n, n_minor;
    log_ticks(f->log_lo, f->log_hi, ticks, &n, minor, &n_minor);
    const double right = f->left + f->pw, bottom = f->top + f->ph;

    /* x ticks: about one per 100 pixels. */
    double xt[MAX_TICKS];
    int nx = 0;
    double step = nice_step(f->x_max / fmax(2.0, f->pw / 100.0));
    if (step < 1)
        step = 1;
    for (int i = 0; nx < MAX_TICKS && i * step <= f->x_max * (1 + 1e-12); i++)
        xt[nx++] = i * step;

    fprintf(out, "<g stroke=\"%s\" stroke-width=\"1\">\n", COLOR_GRID);
    for (int i = 0; i < n; i++) {
        const double y = frame_y(f, ticks[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", f->left, y,
                right, y);
    }
    for (int i = 0; i < nx; i++) {
        const double x = frame_x(f, xt[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, f->top, x,
                bottom);
    }
    fputs("</g>\n", out);

    /* Tick marks outside the frame, minor ones shorter. */
    fprintf(out, "<g stroke=\"%s\" stroke-width=\"1\">\n", COLOR_AXIS);
    for (int i = 0; i < n; i++) {
        const double y = frame_y(f, ticks[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", f->left - 5, y,
                f->left, y);
    }
    for (int i = 0; i < n_minor; i++) {
        const double y = frame_y(f, minor[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", f->left - 3, y,
                f->left, y);
    }
    for (int i = 0; i < nx; i++) {
        const double x = frame_x(f, xt[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, bottom, x,
                bottom + 5);
    }
    fputs("</g>\n", out);

    fprintf(out, "<g font-size=\"11\" fill=\"%s\">\n", COLOR_TEXT);
    for (int i = 0; i < n; i++) {
        char label[32];
        snprintf(label, sizeof label, "%g", ticks[i]);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", f->left - 8,
                frame_y(f, ticks[i]) + 4, label);
    }
    for (int i = 0; i < nx; i++) {
        char label[32];
        format_step(label, sizeof label, xt[i]);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                frame_x(f, xt[i]), bottom + 18, label);
    }
    fputs("</g>\n", out);
}

/* One legend entry: a swatch (a line, with a dot for a marker series) and its words. */
typedef struct {
    const char *color;
    double width;
    int marker;
    char text[96];
} LegendEntry;

/* The number of data points of the picture inside the box (x, y, w, h), pixels. */
static long points_in_box(const Frame *f, const TrainLogRow *steps, int n_steps,
                          const ValidLogRow *epochs, int n_epochs, double x, double y, double w,
                          double h)
{
    long n = 0;
    for (int i = 0; i < n_steps; i++) {
        const double px = frame_x(f, (double)steps[i].step), py = frame_y(f, steps[i].loss);
        n += px >= x && px <= x + w && py >= y && py <= y + h;
    }
    for (int i = 0; i < n_epochs; i++) {
        const double px = frame_x(f, (double)epochs[i].step), py = frame_y(f, epochs[i].loss);
        /* A validation marker hidden is worse than a few training points. */
        n += 50 * (px >= x - 4 && px <= x + w + 4 && py >= y - 4 && py <= y + h + 4);
    }
    return n;
}

/* The legend, in the corner of the plot area where it hides the fewest points: top
 * right for a loss that falls, which is what it usually does. */
static void draw_legend(FILE *out, const Frame *f, const LegendEntry *e, int n,
                        const TrainLogRow *steps, int n_steps, const ValidLogRow *epochs,
                        int n_epochs)
{
    size_t longest = 0;
    for (int i = 0; i < n; i++)
        if (strlen(e[i].text) > longest)
            longest = strlen(e[i].text);
    /* About 6.3 pixels per character of an 11-pixel sans-serif font. */
    const double w = 44 + 6.3 * (double)longest, h = 10 + 18.0 * n;
    const double corners[4][2] = {
        {f->left + f->pw - w - 10, f->top + 24},      /* top right, below the epochs */
        {f->left + 10, f->top + f->ph - h - 10},      /* bottom left */
        {f->left + f->pw - w - 10, f->top + f->ph - h - 10}, /* bottom right */
        {f->left + 10, f->top + 24},                  /* top left */
    };
    int best = 0;
    long fewest = -1;
    for (int c = 0; c < 4; c++) {
        long k = points_in_box(f, steps, n_steps, epochs, n_epochs, corners[c][0],
                               corners[c][1], w, h);
        if (fewest < 0 || k < fewest)
            best = c, fewest = k;
    }
    const double x = corners[best][0], y = corners[best][1];
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" "
                 "fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#cccccc\"/>\n", x, y, w, h);
    for (int i = 0; i < n; i++) {
        const double cy = y + 14 + 18.0 * i;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"%.1f\"/>\n", x + 10, cy, x + 32, cy, e[i].color, e[i].width);
        if (e[i].marker)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
                         "stroke=\"#ffffff\"/>\n", x + 21, cy, e[i].color);
        text_at(out, x + 38, cy + 4, "start", 11, COLOR_TEXT, e[i].text);
    }
}

/* ---------------------------------------------------------------------------------------
 * The document
 */

/* The y axis: the data's positive losses, padded in log space (more at the top, where
 * the epoch numbers and the legend sit), and at least a factor of 1.5 tall. */
static void y_range(const TrainLogRow *steps, int n_steps, const ValidLogRow *epochs,
                    int n_epochs, double *log_lo, double *log_hi)
{
    double lo = HUGE_VAL, hi = 0;
    for (int i = 0; i < n_steps; i++)
        if (steps[i].loss > 0) {
            lo = fmin(lo, steps[i].loss);
            hi = fmax(hi, steps[i].loss);
        }
    for (int i = 0; i < n_epochs; i++)
        if (epochs[i].loss > 0) {
            lo = fmin(lo, epochs[i].loss);
            hi = fmax(hi, epochs[i].loss);
        }
    if (hi == 0) /* every loss is 0 */
        lo = 0.01, hi = 1;
    double a = log10(lo), b = log10(hi);
    if (b - a < log10(1.5)) {
        const double mid = 0.5 * (a + b);
        a = mid - 0.5 * log10(1.5);
        b = mid + 0.5 * log10(1.5);
    }
    const double span = b - a;
    *log_lo = a - 0.05 * span;
    *log_hi = b + 0.16 * span;
}

int plot_loss_svg(FILE *out, const TrainLogRow *steps, int n_steps, const ValidLogRow *epochs,
                  int n_epochs, const char *title, int width, int height)
{
    if (!out || n_steps < 0 || n_epochs < 0 || (n_steps == 0 && n_epochs == 0) ||
        (n_steps > 0 && !steps) || (n_epochs > 0 && !epochs) || width < PLOT_MIN_WIDTH ||
        width > PLOT_MAX_WIDTH || height < PLOT_MIN_HEIGHT || height > PLOT_MAX_HEIGHT)
        return TT_EINVAL;
    if (!title)
        title = "Training loss";
    const char *newline = strchr(title, '\n');
    const size_t title_len = newline ? (size_t)(newline - title) : strlen(title);
    const char *subtitle = newline ? newline + 1 : NULL;
    Line sub[SUBTITLE_LINES];
    const int n_sub =
        subtitle ? subtitle_lines(subtitle, (int)((width - 40) / SUBTITLE_CHAR_W), sub) : 0;

    Frame f;
    f.left = 78;
    f.top = n_sub ? 50 + 16 * n_sub : 46; /* 66 under one subtitle line, as before */
    f.pw = width - f.left - 24;
    f.ph = height - f.top - 52;
    f.x_max = 1;
    for (int i = 0; i < n_steps; i++)
        f.x_max = fmax(f.x_max, (double)steps[i].step);
    for (int i = 0; i < n_epochs; i++)
        f.x_max = fmax(f.x_max, (double)epochs[i].step);
    y_range(steps, n_steps, epochs, n_epochs, &f.log_lo, &f.log_hi);

    /* The moving average's half-width: a hundredth of the run, about 16 pixels of
     * window at any width — wide enough to average the noise of single batches away,
     * narrow enough to follow the steep fall of the first epochs. */
    const int h = n_steps / 100;
    /* The series as (step, loss) arrays: train_x, train_y, smooth (n_steps, smooth NULL
     * when h < 1), valid_x, valid_y (n_epochs), in one allocation. */
    double *xy = malloc(sizeof(double) * (3 * (size_t)n_steps + 2 * (size_t)n_epochs));
    double *train_x = NULL, *train_y = NULL, *smooth = NULL, *valid_x = NULL, *valid_y = NULL;
    Span *spans = NULL;
    int n_spans = 0;
    int rc = xy ? TT_OK : TT_ENOMEM;
    if (rc == TT_OK) {
        train_x = xy;
        train_y = train_x + n_steps;
        smooth = h >= 1 ? train_y + n_steps : NULL;
        valid_x = train_y + 2 * (size_t)n_steps;
        valid_y = valid_x + n_epochs;
        for (int i = 0; i < n_steps; i++)
            train_x[i] = (double)steps[i].step, train_y[i] = steps[i].loss;
        for (int i = 0; i < n_epochs; i++)
            valid_x[i] = (double)epochs[i].step, valid_y[i] = epochs[i].loss;
    }
    if (rc == TT_OK && smooth)
        rc = moving_average(train_y, n_steps, h, smooth);
    if (rc == TT_OK)
        rc = epoch_spans(steps, n_steps, epochs, n_epochs, f.x_max, &spans, &n_spans);
    if (rc != TT_OK)
        goto done;

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\">\n", width, height,
            width, height, FONT);
    fputs("<title>", out);
    xml_put_text(out, title, title_len, XML_APOS_ENTITY);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
            height);
    fprintf(out, "<defs><clipPath id=\"plot-area\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"%.1f\"/></clipPath></defs>\n", f.left, f.top, f.pw, f.ph);

    draw_grid_and_axes(out, &f);
    draw_epochs(out, &f, spans, n_spans);
    fputs("<g clip-path=\"url(#plot-area)\">\n", out);
    if (n_steps > 0)
        draw_series(out, &f, "train-loss", COLOR_RAW, 1.0, train_x, train_y, n_steps,
                    REDUCE_EXTREMES);
    if (smooth)
        draw_series(out, &f, "train-smooth", COLOR_SMOOTH, 2.0, train_x, smooth, n_steps,
                    REDUCE_MEAN);
    if (n_steps == 1) /* a line of one point is invisible */
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                frame_x(&f, train_x[0]), frame_y(&f, train_y[0]), COLOR_SMOOTH);
    if (n_epochs > 0)
        draw_series(out, &f, "valid-loss", COLOR_VALID, 2.0, valid_x, valid_y, n_epochs,
                    REDUCE_EXTREMES);
    fputs("</g>\n", out);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                 "stroke=\"%s\" stroke-width=\"1\"/>\n", f.left, f.top, f.pw, f.ph, COLOR_AXIS);
    draw_markers(out, &f, valid_x, valid_y, n_epochs);

    LegendEntry legend[3];
    int n_legend = 0;
    int every_step = 1; /* were the rows logged at every step? */
    for (int i = 1; i < n_steps; i++)
        every_step &= steps[i].step == steps[i - 1].step + 1;
    if (n_steps > 0) {
        legend[n_legend] = (LegendEntry){COLOR_RAW, 1.5, 0, ""};
        snprintf(legend[n_legend++].text, sizeof legend[0].text, "training loss, per %s",
                 every_step ? "step" : "logged step");
    }
    if (smooth) {
        legend[n_legend] = (LegendEntry){COLOR_SMOOTH, 2.0, 0, ""};
        snprintf(legend[n_legend++].text, sizeof legend[0].text, "moving average over %d %s",
                 2 * h + 1, every_step ? "steps" : "logged steps");
    }
    if (n_epochs > 0) {
        legend[n_legend] = (LegendEntry){COLOR_VALID, 2.0, 1, ""};
        snprintf(legend[n_legend++].text, sizeof legend[0].text, "validation loss, per epoch");
    }
    draw_legend(out, &f, legend, n_legend, steps, n_steps, epochs, n_epochs);

    fprintf(out, "<text x=\"%.1f\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" "
                 "font-weight=\"bold\" fill=\"%s\">", width / 2.0, COLOR_TEXT);
    xml_put_text(out, title, title_len, XML_APOS_ENTITY);
    fputs("</text>\n", out);
    for (int i = 0; i < n_sub; i++) {
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" "
                     "fill=\"%s\">", width / 2.0, 46 + 16 * i, COLOR_MUTED);
        xml_put_text(out, sub[i].s, sub[i].n, XML_APOS_ENTITY);
        fputs("</text>\n", out);
    }
    text_at(out, f.left + f.pw / 2, height - 12, "middle", 12, COLOR_TEXT, "optimiser step");
    const double cy = f.top + f.ph / 2;
    fprintf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" fill=\"%s\" "
                 "transform=\"rotate(-90 18 %.1f)\">loss per target token (log scale)</text>\n",
            cy, COLOR_TEXT, cy);
    fputs("</svg>\n", out);
    if (ferror(out))
        rc = TT_EIO;
done:
    free(spans);
    free(xy);
    return rc;
}
