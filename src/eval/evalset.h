/*
 * evalset.h — a test set for evaluation: sentence pairs from a TSV file, each with its
 * references, loaded and checked before any translation starts.
 *
 * The folder eval/ measures: test sets (here), BLEU and chrF as sacreBLEU computes them,
 * and the regression cases and golden files of `check`. It stands on translate/, model/,
 * text/ and base/. docs/design.md lists the folders and their modules.
 *
 * The TSV file (read with tsv.h) gives each pair its source and its first reference,
 * the target column. Extra reference files give more references: plain text, one
 * reference per line, aligned with the TSV file line by line — line k of every
 * reference file belongs to line k of the TSV file, so a reference file made with
 * `cut -f2` of the TSV stays aligned even when the TSV has blank or malformed lines
 * (their references are simply not used). A reference file must therefore have exactly
 * as many lines as the TSV file. Lines end at "\n"; a "\r" before it is dropped; a last
 * line without a newline counts. An empty reference line is no reference (BLEU drops it,
 * as sacreBLEU does); the target column is never empty.
 *
 * A line may have a third column, a label naming the sentence's construction
 * ("coord-clause", tsv.h); the labels let evaluation report exact match per
 * construction. A file without any has n_labels 0 and is evaluated as a whole only; in a
 * file with some, a line without one belongs to no construction.
 *
 * Blank lines and comment lines (whose first character is '#', tsv_is_comment: the same
 * rule as `toytrans check`'s files) are skipped; they still count as lines, so reference
 * files stay aligned with the test file line by line.
 *
 * A malformed TSV line (tsv.h says which) either stops the load, or, with skip_bad, is
 * reported and left out, and counted.
 */
#ifndef TOYTRANS_EVALSET_H
#define TOYTRANS_EVALSET_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    size_t n;            /* sentence pairs, >= 0 */
    int n_refs;          /* references per pair: 1 (the target column) + reference files */
    char **src;          /* (n) source sentences, NUL-terminated UTF-8; owned */
    char **tgt;          /* (n) target column, never empty; owned */
    long *line_no;       /* (n) the TSV line of each pair, 1-based, increasing */
    int *label_of;       /* (n) each pair's construction, an index into labels, or -1 */
    size_t n_labels;     /* distinct construction labels, >= 0 */
    char **labels;       /* (n_labels) the labels in the order they first appear; owned */
    const char **refs;   /* (n, n_refs) pair i's references at [i * n_refs + k]; k = 0 is
                            tgt[i], k >= 1 the line of reference file k; views */
    long lines;          /* lines in the TSV file, blank and malformed ones included */
    long bad_lines;      /* malformed TSV lines left out (skip_bad only) */
    int ref_files;       /* reference files read: n_refs - 1, or n_refs for a hypothesis
                            file (evalset_load_hyp) */
    char **ref_lines;    /* (ref_files, lines) every line of every reference file; owned */
    char **hyp;          /* (n) the hypotheses of evalset_load_hyp, else NULL; owned */
    size_t cap;          /* slots allocated in src, tgt, line_no */
} EvalSet;

/* Loads the TSV file tsv_path ("-" for standard input) and the n_ref_files reference
 * files ref_paths. Malformed TSV lines: with skip_bad, each is reported on report (if not
 * NULL) as "FILE:LINE: ..." and counted in bad_lines; without, the load fails.
 * Returns TT_OK; TT_EINPUT (a malformed TSV line, a reference line that is not valid
 * UTF-8, or a reference file whose line count differs — err names file and line);
 * TT_EIO (a file cannot be read; err says which); TT_ENOMEM. On failure s owns nothing.
 * Free with evalset_free, which accepts a zeroed or freed set. */
int evalset_load(EvalSet *s, const char *tsv_path, const char *const *ref_paths,
                 int n_ref_files, int skip_bad, FILE *report, char *err, size_t errlen);
void evalset_free(EvalSet *s);

/* Turns a loaded set around for a German→English model (config_is_reverse): each pair's
 * source becomes the German column and its first reference the English one. Reference
 * files, if any, stay references (of the English side, then). Calling it twice restores
 * the set. */
void evalset_reverse(EvalSet *s);

/* Loads translations to score without translating, as `sacrebleu REF... < HYP` reads
 * them: line k of the file hyp_path ("-": standard input) is sentence k's hypothesis
 * (hyp[k]), line k of each of the n_ref_files >= 1 reference files one of its references
 * (refs[k * n_refs + j], n_refs = n_ref_files); every line counts, an empty one too (an
 * empty reference is no reference). src, tgt and labels are not used (NULL, n_labels 0),
 * line_no[k] is k + 1. Returns TT_OK; TT_EINPUT (a line that is not valid UTF-8, or a
 * reference file whose line count differs; err names file and line); TT_EIO; TT_ENOMEM;
 * TT_EINVAL for n_ref_files < 1. On failure s owns nothing. Free with evalset_free. */
int evalset_load_hyp(EvalSet *s, const char *hyp_path, const char *const *ref_paths,
                     int n_ref_files, char *err, size_t errlen);

#endif
