/*
 * cli_translate.c — `toytrans translate`: English in, German out, one word at a time.
 *
 * One output line per input line, always, flushed as soon as it is written, so the
 * command works inside a pipe. A line that cannot be translated (invalid UTF-8, too many
 * tokens) gets an error on stderr naming it — in --json an object with "error" — and the
 * run goes on; the exit status reports it at the end.
 *
 * What the translator reports as doubtful (translator.h, step 5) becomes one warning line
 * per input line and kind on stderr: words not in the vocabulary, content words the
 * decoder hardly attended to. With --strict an unknown word makes the line an error.
 */
#include "base/json.h"
#include "base/pool.h"
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_decode.h"
#include "model/config.h"
#include "model/model.h"
#include "show/heatmap.h"
#include "translate/decode.h"
#include "translate/translator.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


typedef struct {
    const char *model_path;
    TranslatorOptions to;  /* the decoding flags (cli_decode.h), --alternatives, --keep-unk,
                              --max-length-crop, --coverage-min; to.decode.n_best: --n-best
                              N, N lines per input in Marian's n-best format, 0 off */
    int json, scores;
    int strict;            /* --strict: a line with an unknown word is an error */
    int alignment;         /* --alignment: ALIGN_NONE, ALIGN_HARD or ALIGN_SOFT */
    long layer, head;      /* its decoder layer (-1: the last) and head
                              (TRANSLATION_HEAD_MEAN) */
    CliReadBackOptions read_back; /* --read-back and its kin */
    long batch;            /* --batch: sentences decoded at once */
    long threads;          /* --threads */
} TranslateOptions;

enum { ALIGN_NONE, ALIGN_HARD, ALIGN_SOFT };

/* The model file's two checks that read the whole file (model_load_checks), on a thread
 * of their own beside the first block's decoding when translate has more than one
 * thread: nothing is written before they pass. */
typedef struct {
    ModelChecks pending; /* the snapshot they read, until they start */
    pthread_t thread;
    int started, running; /* started: there is a result to take; running: on thread */
    int rc;
    char err[512];
} TranslateChecks;

/* What every line shares. */
typedef struct {
    const TranslateOptions *o;
    const Model *m;
    Translator tr;
    CliReadBack rb;     /* the read-back, when rb.rb.model is set */
    int from_stdin;     /* name inputs "line N" (stdin) or "argument N" */
    TranslateChecks checks;
    int fatal;          /* the exit code of checks that failed: every line gets it */
} TranslateRun;

static void translate_usage(FILE *out)
{
    /* Several calls: one string literal this long is more than C11 promises to take, and
     * the decoding flags' help comes from cli.c, as every command shows it. */
    fputs("Usage: toytrans translate [OPTIONS] [TEXT...]\n"
          "\n"
          "Translates each TEXT, or each line of standard input, from English to German,\n"
          "one output line per input line. The encoder reads the whole sentence; the\n"
          "decoder writes the German one word at a time.\n"
          "\n"
          "Options:\n"
          "  --model M          the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                     model, else the source tree's; 'toytrans help model')\n",
          out);
    cli_decode_help(out, CLI_DECODE_PREFIX, 21);
    cli_decode_help(out, CLI_DECODE_BEAM, 21);
    cli_decode_help(out, CLI_DECODE_MAX_LEN, 21);
    fputs("  --scores           after a TAB, each output word with its probability,\n"
          "                     marked (forced) for the prefix's words and (copied) for\n"
          "                     a source word shown for a generated <unk>\n"
          "  --alternatives K   after a TAB, the K most probable words at every step\n"
          "  --json             one JSON object per line: tokens, log-probabilities and the\n"
          "                     attention weights of every step\n"
          "  --keep-unk         show <unk> instead of copying the source word the decoder\n"
          "                     attended to most\n",
          out);
    cli_decode_help(out, CLI_DECODE_N_BEST, 21);
    fprintf(out,
          "  --max-length-crop  a line with more tokens than the model takes (its max_len,\n"
          "                     </s> included) is cut to the tokens that fit and\n"
          "                     translated, with a warning on stderr (default: refused)\n"
          "  --strict           a line with a word not in the vocabulary (not a name), or\n"
          "                     outside the grammar the model learned, is an error: an\n"
          "                     empty output line (--json: an \"error\" object), exit 4 at\n"
          "                     the end; the other lines are still translated\n"
          "  --no-grammar-check do not check sentences against the corpus grammar\n"
          "  --coverage-min X   warn about a content word whose coverage is below X\n"
          "                     (default %.2f; 0: never)\n"
          "  --alignment hard|soft  after ' ||| ', word alignments read from cross-attention\n"
          "                     (Marian's format, 0-based token indices):\n"
          "                     hard: 'src-tgt' pairs, the most attended source token per\n"
          "                     word (</s> left out on both sides); soft: a row per output\n"
          "                     token, </s> included, of the weights over every source\n"
          "                     token, </s> included (each row sums to 1), values joined\n"
          "                     by ',', rows by ' '\n"
          "  --layer L          the decoder layer alignments read, from 0 (default: the last)\n"
          "  --head H|mean      the head alignments read, from 0, or the mean (default)\n"
          "  --batch N          decode N sentences at once (default %d; 1: one at a\n"
          "                     time); lines are read in blocks of %d batches and sorted\n"
          "                     by length, and read back in batches too; every\n"
          "                     sentence's output is the same, bit for bit, whatever N;\n"
          "                     on a terminal each line answers at once\n"
          "  --threads N        threads for decoding (default 1; the output is the same)\n",
          (double)TRANSLATOR_COVERAGE_MIN, TRANSLATOR_DEFAULT_BATCH, TRANSLATOR_AHEAD_BLOCK);
    cli_read_back_help(out, 21);
    fprintf(out,
          "  -h, --help         show this help\n"
          "\n"
          "Warnings, one line per input line on stderr (\"argument N\" or \"line N\" of\n"
          "standard input), and in --json the lists \"unknown_words\", \"names\",\n"
          "\"not_translated\", \"coverage\" and \"coverage_rollout\":\n"
          "  line N: not in the vocabulary: W, ...   source words the model does not know.\n"
          "     An unknown word is a name, copied through and not warned about, when it is\n"
          "     written capitalised (Anna, not anna or NASA), is not a common English word\n"
          "     (Where, Thanks and Rose are: data/common-words.txt, compiled in) and is not\n"
          "     the first word, or is the first word and the translation copied it.\n"
          "  line N: not translated: W, ...   content words (not punctuation, not a\n"
          "     function word such as the, a, is, do, not) whose coverage, the last decoder\n"
          "     layer's cross-attention summed over the output words (heads averaged, the\n"
          "     final </s> left out), is below --coverage-min, and whose coverage through\n"
          "     the encoder (\"coverage_rollout\": attention rollout) is below %.2f as well.\n"
          "     Only a warning, even with --strict: attention is evidence, not proof.\n"
          "  line N: outside the grammar the model learned, at \"SPAN\" (WHY)   the model's\n"
          "     file records the lexicon its corpus was made from, and the sentence is not\n"
          "     one of that corpus's grammar (docs/corpus.md): the translation is a guess\n"
          "     (in --json: \"in_grammar\", \"grammar_note\"; models trained on other data\n"
          "     are not checked)\n"
          "  line N: reads back as \"TEXT\" ...   the reverse model reads the German as\n"
          "     TEXT, and the input scores more than --read-back-margin nats below that\n"
          "     reading: the German may not say what the input says (in --json:\n"
          "     \"read_back\"). Only a warning, even with --strict.\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 some line could not\n"
          "be translated, or had an unknown word with --strict (the others were), 5 output\n"
          "failed or the model could not be read (locked by another process's write for\n"
          "longer than 5 s).\n",
          (double)TRANSLATOR_ROLLOUT_MIN);
}

static int translate_parse(TranslateOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_JSON, O_SCORES, O_ALT, O_KEEP, O_ALIGN, O_LAYER, O_HEAD, O_STRICT,
           O_COVMIN, O_CROP, O_NO_GRAMMAR, O_BATCH, O_THREADS };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        CLI_DECODE_OPTION_PREFIX,
        CLI_DECODE_OPTION_BEAM,
        CLI_DECODE_OPTION_MAX_LEN,
        {"json", no_argument, NULL, O_JSON},
        {"scores", no_argument, NULL, O_SCORES},
        {"alternatives", required_argument, NULL, O_ALT},
        {"keep-unk", no_argument, NULL, O_KEEP},
        {"alignment", required_argument, NULL, O_ALIGN},
        {"layer", required_argument, NULL, O_LAYER},
        {"head", required_argument, NULL, O_HEAD},
        {"strict", no_argument, NULL, O_STRICT},
        {"max-length-crop", no_argument, NULL, O_CROP},
        CLI_DECODE_OPTION_N_BEST,
        {"coverage-min", required_argument, NULL, O_COVMIN},
        CLI_READ_BACK_OPTIONS,
        {"no-grammar-check", no_argument, NULL, O_NO_GRAMMAR},
        {"batch", required_argument, NULL, O_BATCH},
        {"threads", required_argument, NULL, O_THREADS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_decode_begin(&o->to);
    o->to.coverage_min = TRANSLATOR_COVERAGE_MIN;
    o->layer = -1;
    o->head = TRANSLATION_HEAD_MEAN;
    o->batch = TRANSLATOR_DEFAULT_BATCH;
    o->threads = 1;
    cli_read_back_begin(&o->read_back);
    optind = 1;
    opterr = 0;
    int c, rc;
    long n;
    double x;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            o->model_path = optarg;
            break;
        case CLI_DECODE_PREFIX:
        case CLI_DECODE_BEAM:
        case CLI_DECODE_MAX_LEN:
        case CLI_DECODE_N_BEST:
            if ((rc = cli_decode_flag("translate", c, optarg, &o->to)))
                return rc;
            break;
        case O_JSON:
            o->json = 1;
            break;
        case O_SCORES:
            o->scores = 1;
            break;
        case O_ALT:
            if ((rc = cli_parse_long("translate", "--alternatives", optarg, 0,
                                     DECODE_MAX_ALTERNATIVES, &n)))
                return rc;
            o->to.alternatives = (int)n;
            break;
        case O_KEEP:
            o->to.keep_unk = 1;
            break;
        case O_STRICT:
            o->strict = 1;
            break;
        case O_CROP:
            o->to.crop = 1;
            break;
        case O_NO_GRAMMAR:
            o->to.no_grammar_check = 1;
            break;
        case O_BATCH:
            if ((rc = cli_parse_long("translate", "--batch", optarg, 1, DECODE_MAX_BATCH,
                                     &o->batch)))
                return rc;
            break;
        case O_THREADS:
            if ((rc = cli_parse_long("translate", "--threads", optarg, 1, POOL_MAX_THREADS,
                                     &o->threads)))
                return rc;
            break;
        case O_COVMIN:
            if ((rc = cli_parse_double("translate", "--coverage-min", optarg, 0.0, 1e6, &x)))
                return rc;
            o->to.coverage_min = (float)x;
            break;
        case CLI_READ_BACK:
        case CLI_NO_READ_BACK:
        case CLI_READ_BACK_MODEL:
        case CLI_READ_BACK_MARGIN:
            if ((rc = cli_read_back_flag("translate", c, optarg, &o->read_back)))
                return rc;
            break;
        case O_ALIGN:
            if (strcmp(optarg, "hard") == 0)
                o->alignment = ALIGN_HARD;
            else if (strcmp(optarg, "soft") == 0)
                o->alignment = ALIGN_SOFT;
            else
                return cli_usage_error("translate", "--alignment: expected 'hard' or 'soft', "
                                       "got '%s'", optarg);
            break;
        case O_LAYER:
            if ((rc = cli_parse_long("translate", "--layer", optarg, 0, CONFIG_MAX_LAYERS - 1,
                                     &o->layer)))
                return rc;
            break;
        case O_HEAD:
            if ((rc = cli_parse_head("translate", optarg, &o->head)))
                return rc;
            break;
        case 'h':
            translate_usage(stdout);
            return -1;
        default:
            return cli_bad_option_in("translate", c, argv, LONG_OPTS);
        }
    }
    if ((rc = cli_decode_end("translate", &o->to)))
        return rc;
    o->to.rollout = o->json; /* the JSON shows coverage_rollout */
    if (o->to.decode.n_best && (o->json || o->scores || o->to.alternatives))
        return cli_usage_error("translate", "--n-best does not combine with --json, --scores "
                               "or --alternatives");
    if (o->alignment != ALIGN_NONE && o->json)
        return cli_usage_error("translate", "--alignment does not combine with --json (whose "
                               "steps hold the attention itself)");
    o->model_path = cli_model_path(o->model_path);
    return 0;
}

/* Whether --layer and --head fit the model: cli_check_layer_head's test, without its
 * message. */
static int layer_head_fit(const TranslateOptions *o, const ModelConfig *c)
{
    return o->layer < c->n_decoder_layers && o->head < c->n_heads;
}

/* --layer and --head against the model; returns 0 or TT_EXIT_USAGE. */
static int translate_check_model(const TranslateOptions *o, const ModelConfig *c)
{
    return cli_check_layer_head("translate", o->layer, o->head, c->n_decoder_layers, c->n_heads);
}

/* ---------------------------------------------------------------------------------------
 * The model file's checks
 */

static void *checks_main(void *arg)
{
    TranslateChecks *c = arg;
    c->rc = model_load_checks(&c->pending, c->err, sizeof c->err);
    return NULL;
}

/* Starts the checks of a model loaded with model_load_file_unchecked; without a thread,
 * runs them at once. */
static void checks_start(TranslateChecks *c)
{
    c->started = 1;
    if (pthread_create(&c->thread, NULL, checks_main, c) == 0)
        c->running = 1;
    else
        checks_main(c);
}

/* Waits for the checks, if they were started: 0 when they passed, else their exit code,
 * said on stderr as a model that fails to load is (once; then run->fatal holds it). */
static int checks_join(TranslateRun *run)
{
    TranslateChecks *c = &run->checks;
    if (c->running)
        pthread_join(c->thread, NULL);
    c->running = 0;
    if (c->started) {
        c->started = 0;
        if (c->rc != TT_OK) {
            fprintf(stderr, "toytrans translate: %s\n",
                    c->err[0] ? c->err : status_message(c->rc));
            cli_model_hint("translate", run->o->model_path, c->rc);
            run->fatal = status_exit_code(c->rc);
        }
    }
    return run->fatal;
}

/* ---------------------------------------------------------------------------------------
 * One line
 */

static void write_json(const TranslateRun *run, const char *line, size_t len,
                       const TranslatorResult *r)
{
    (void)run;
    translator_write_json(stdout, r, line, len);
}

/* " ||| " and the alignment read from the chosen layer's cross-attention, as Marian
 * prints it (src/translator/output_printer.cpp):
 *   hard: a src-tgt pair per token of the text (not a final </s>), the most attended
 *         source token, </s> left out;
 *   soft: a row per output token, </s> included, each a value per source token, </s>
 *         included, so that every row is the whole attention distribution and sums to
 *         1; values as C++'s ostream writes a float (6 significant digits, "%g"),
 *         joined by ',', rows by ' '. */
static void write_alignment(const TranslateRun *run, const TranslatorResult *r)
{
    const Translation *t = r->t;
    const ModelConfig *c = &run->m->config;
    const int L = c->n_decoder_layers;
    const int layer = run->o->layer < 0 ? L - 1 : (int)run->o->layer;
    const int head = (int)run->o->head;
    fputs(" |||", stdout);
    if (run->o->alignment == ALIGN_SOFT) {
        for (int i = 0; i < t->n; i++) {
            putchar(' ');
            for (int j = 0; j < t->S; j++)
                printf("%s%g", j ? "," : "",
                       (double)translation_weight(t, TRANSLATION_CROSS, i, j, layer, head));
        }
        return;
    }
    const int words = t->S - 1; /* source tokens without </s> */
    for (int i = 0; i < r->n_text && words > 0; i++) {
        int best = 0;
        float best_w = -1.0f;
        for (int j = 0; j < words; j++) {
            const float w = translation_weight(t, TRANSLATION_CROSS, i, j, layer, head);
            if (w > best_w) { /* ties: the lower index */
                best_w = w;
                best = j;
            }
        }
        printf(" %d-%d", best, i);
    }
}

static void write_plain(const TranslateRun *run, const TranslatorResult *r)
{
    const Translation *t = r->t;
    fputs(r->text, stdout);
    if (run->o->alignment != ALIGN_NONE)
        write_alignment(run, r);
    if (run->o->scores) {
        putchar('\t');
        for (int i = 0; i < t->n; i++)
            printf("%s%s:%.3f%s", i ? " " : "", r->words[i], exp((double)t->logprob[i]),
                   i < t->n_forced ? "(forced)" : r->copied[i] ? "(copied)" : "");
    }
    if (t->alt_k) {
        putchar('\t');
        for (int i = 0; i < t->n; i++) {
            printf("%s[", i ? " " : "");
            for (int j = 0; j < t->alt_k; j++) {
                const int id = t->alt_ids[(size_t)i * t->alt_k + j];
                printf("%s%s %.3f", j ? ", " : "", run->m->tgt_vocab.tokens[id],
                       (double)t->alt_prob[(size_t)i * t->alt_k + j]);
            }
            putchar(']');
        }
    }
    putchar('\n');
}

/* The name of input number no in messages: "line N" of standard input, "argument N". */
static const char *input_kind(const TranslateRun *run)
{
    return run->from_stdin ? "line" : "argument";
}

/* Writes into buf (size bytes) "WHAT: w1, w2, ..." for the source words j with
 * pick(r, j), as typed; returns the number of words. */
typedef int (*WordPick)(const TranslatorResult *r, int j);
static int pick_unknown(const TranslatorResult *r, int j)
{
    return r->kind[j] == TR_WORD_UNKNOWN;
}
static int pick_uncovered(const TranslatorResult *r, int j)
{
    return r->uncovered[j] != 0;
}
static int word_list(char *buf, size_t size, const char *what, const TranslatorResult *r,
                     WordPick pick)
{
    int n = 0;
    size_t used = (size_t)snprintf(buf, size, "%s:", what);
    for (int j = 0; j < r->src->n; j++) {
        if (!pick(r, j))
            continue;
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s %s", n ? "," : "",
                                     r->surface->tok[j]);
        n++;
    }
    if (used >= size && size > 4)
        memcpy(buf + size - 4, "...", 4); /* a cut list says so */
    return n;
}

/* When a sentence the English model does not know looks German — most of its words
 * are not English words it knows but are German words of its own target vocabulary —
 * says so, and names the German→English model beside it. Cheap: one lookup a word. */
static void hint_german(const TranslateRun *run, const TranslatorResult *r, long no)
{
    if (config_is_reverse(&run->m->config))
        return;
    int words = 0, german = 0;
    for (int j = 0; j < r->src->n; j++) {
        const char *w = r->surface->tok[j];
        if (!isalpha((unsigned char)w[0]) && (unsigned char)w[0] < 0x80)
            continue; /* punctuation and numbers say nothing about the language */
        words++;
        german += r->kind[j] != TR_WORD_KNOWN && vocab_lookup(&run->m->tgt_vocab, w) != VOCAB_UNK;
    }
    if (german < 2 || 2 * german <= words)
        return;
    const char *slash = strrchr(run->o->model_path, '/');
    fprintf(stderr, "toytrans translate: %s %ld: this looks German; this model translates "
                    "English to German (German to English: --model %.*sde-en.db)\n",
            input_kind(run), no, slash ? (int)(slash - run->o->model_path + 1) : 0,
            run->o->model_path);
}

/* Reports a line that cannot be translated, keeping the output aligned. */
static int line_error(const TranslateRun *run, const char *line, size_t len, long no, int code,
                      const char *what)
{
    fprintf(stderr, "toytrans translate: %s %ld: %s\n", input_kind(run), no, what);
    if (run->o->json) {
        JsonWriter w;
        json_init(&w, stdout);
        json_begin_object(&w);
        json_key(&w, "source");
        json_string_n(&w, line, len);
        json_key(&w, "error");
        json_string(&w, what);
        json_end_object(&w);
        json_finish(&w);
    }
    if (run->o->to.decode.n_best) /* one empty hypothesis, as for an empty line */
        printf("%ld |||  ||| F0= 0 ||| 0\n", no - 1);
    else
        putchar('\n');
    return code;
}

/* --n-best: the line's hypotheses, best first, in Marian's format. */
static int write_n_best(TranslateRun *run, const TranslatorResult *best, long no)
{
    const int n = translator_n_best(&run->tr);
    if (n == 0) { /* an empty line: one empty translation */
        printf("%ld ||| %s ||| F0= 0 ||| 0\n", no - 1, best->text);
        return 0;
    }
    char err[256];
    for (int k = 0; k < n && k < run->o->to.decode.n_best; k++) {
        TranslatorResult r;
        double logprob, score;
        const int rc = translator_hypothesis(&run->tr, k, &r, &logprob, &score, err, sizeof err);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans translate: %s %ld: %s\n", input_kind(run), no, err);
            return status_exit_code(rc);
        }
        printf("%ld ||| %s", no - 1, r.text);
        if (run->o->alignment != ALIGN_NONE)
            write_alignment(run, &r);
        printf(" ||| F0= %g ||| %g\n", logprob, score);
    }
    return 0;
}

/* A block of lines decoded in batches before translate_line shows each; with the
 * read-back, their translations are read back in batches too, which needs every text
 * first: a first pass takes them (decoding nothing), and translate_line's runs the block
 * again. What fails here is left to translate_line, which reports it. */
static void translate_ahead(const char *const *texts, const size_t *lens, int n, void *ctx)
{
    TranslateRun *run = ctx;
    if (run->fatal)
        return;
    /* An n-best list is not read back. */
    cli_decode_ahead(&run->tr, run->o->to.decode.n_best ? NULL : &run->rb.rb, texts, lens, n);
    /* The first block was decoded beside the model file's checks; its lines wait for
     * them. */
    checks_join(run);
}

/* Whether the next block is decoded on the other threads while translate_line shows
 * this one's: not with the read-back, whose block needs its translations first, not for
 * n-best lists (each its own search, never decoded ahead), nor on one thread. */
static int translate_overlaps(const TranslateRun *run)
{
    return run->tr.threads > 1 && !run->o->to.decode.n_best && !run->rb.rb.model;
}

/* Lines read at a time: what the translator decodes ahead, or half of it when the blocks
 * overlap, so that the lines of a block that ends the input wait less on their own (on
 * data/test.tsv's 1,800 lines two blocks of up to 1,024 became four of up to 512); the
 * memory stays what one block of the whole capacity takes. */
static int translate_block(const TranslateRun *run)
{
    const int cap = translator_ahead_capacity(&run->tr);
    return translate_overlaps(run) && cap > 1 ? cap / 2 : cap;
}

static int translate_start(const char *const *texts, const size_t *lens, int n, void *ctx)
{
    TranslateRun *run = ctx;
    return !checks_join(run) && translate_overlaps(run) &&
           translator_ahead_start(&run->tr, texts, lens, n) == TT_OK;
}

static void translate_join(void *ctx)
{
    TranslateRun *run = ctx;
    translator_ahead_join(&run->tr);
}

static int translate_stop(void *ctx)
{
    const TranslateRun *run = ctx;
    return run->fatal;
}

static int translate_line(const char *line, size_t len, long no, void *ctx)
{
    TranslateRun *run = ctx;
    /* Nothing is written before the model file passed its checks, nor after it failed. */
    if (checks_join(run))
        return run->fatal;
    TranslatorResult r;
    char err[256];
    int rc = translator_run(&run->tr, line, len, &r, err, sizeof err);
    if (rc != TT_OK)
        return line_error(run, line, len, no, status_exit_code(rc), err);
    if (r.cropped)
        fprintf(stderr, "toytrans translate: %s %ld: %d tokens, more than the model's max_len "
                        "of %d takes: translated the first %d\n", input_kind(run), no,
                r.src->n + r.cropped, run->m->config.max_len, r.src->n);
    char words[1024];
    if (r.n_unknown) {
        word_list(words, sizeof words, "not in the vocabulary", &r, pick_unknown);
        if (run->o->strict)
            return line_error(run, line, len, no, TT_EXIT_INPUT, words);
        fprintf(stderr, "toytrans translate: %s %ld: %s\n", input_kind(run), no, words);
        hint_german(run, &r, no);
    }
    if (r.grammar == TR_GRAMMAR_OUT) {
        snprintf(words, sizeof words, "outside the grammar the model learned, %s",
                 r.grammar_note);
        if (run->o->strict)
            return line_error(run, line, len, no, TT_EXIT_INPUT, words);
        fprintf(stderr, "toytrans translate: %s %ld: %s\n", input_kind(run), no, words);
    }
    if (r.n_uncovered) {
        word_list(words, sizeof words, "not translated", &r, pick_uncovered);
        fprintf(stderr, "toytrans translate: %s %ld: %s\n", input_kind(run), no, words);
    }
    if (run->rb.rb.model && !run->o->to.decode.n_best) {
        rc = readback_run(&run->rb.rb, line, len, r.text, &r.read_back, err, sizeof err);
        if (rc != TT_OK)
            return line_error(run, line, len, no, status_exit_code(rc), err);
        if (r.read_back.done && r.read_back.disagrees)
            fprintf(stderr, "toytrans translate: %s %ld: reads back as \"%s\" (the input is "
                            "%.1f nats less likely): the German may say something else\n",
                    input_kind(run), no, r.read_back.text, r.read_back.margin);
    }
    if (run->o->to.decode.n_best)
        return write_n_best(run, &r, no);
    if (run->o->json)
        write_json(run, line, len, &r);
    else
        write_plain(run, &r);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The command
 */

int cli_translate(int argc, char **argv)
{
    TranslateOptions o;
    int code = translate_parse(&o, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;
    assert(o.model_path); /* translate_parse sets it when it returns 0 */

    Model m;
    TranslateRun run = {.o = &o, .m = &m, .from_stdin = optind >= argc};
    /* The reverse model loads on another core while this one does. */
    cli_read_back_load_ahead(&run.rb, &o.read_back, o.model_path);
    char err[512];
    /* With more than one thread, and texts that are all there (arguments, or a regular
     * file on standard input), the checks that read the whole model file run beside the
     * first block (TranslateChecks). A terminal or a pipe waits for them, as on one
     * thread: a person, or a program waiting for its answer, learns at once. */
    struct stat st;
    const int checks_beside =
        o.threads > 1 &&
        (!run.from_stdin || (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)));
    int rc = checks_beside ? model_load_file_unchecked(&m, &run.checks.pending, o.model_path,
                                                       err, sizeof err)
                           : model_load_file(&m, o.model_path, err, sizeof err);
    if (rc == TT_OK && checks_beside)
        checks_start(&run.checks);
    if (rc != TT_OK) {
        cli_read_back_close(&run.rb);
        fprintf(stderr, "toytrans translate: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("translate", o.model_path, rc);
        return status_exit_code(rc);
    }
    /* A set-up step that fails waits for the checks first: a file they refuse gets their
     * message alone, as on one thread, and nothing read from it is shown before. */
    if (!layer_head_fit(&o, &m.config) && checks_join(&run)) {
        code = run.fatal;
    } else if ((code = translate_check_model(&o, &m.config)) == 0) {
        rc = translator_init(&run.tr, &m, &o.to, err, sizeof err);
        if (rc != TT_OK)
            code = checks_join(&run) ? run.fatal : cli_translator_report("translate", rc, err);
    }
    if (code != 0) {
        checks_join(&run);
        cli_read_back_close(&run.rb);
        model_free(&m);
        return code;
    }
    Pool *pool = NULL;
    const CliBlockHooks hooks = {translate_ahead, translate_start, translate_join,
                                 translate_stop};
    /* An n-best list is one sentence's search: those are decoded one at a time. */
    const int batch = o.to.decode.n_best ? 1 : (int)o.batch;
    rc = cli_batch_try(&run.tr, batch, (int)o.threads, &pool);
    if (rc != TT_OK)
        code = checks_join(&run) ? run.fatal
                                 : cli_batch_report("translate", batch, (int)o.threads, rc);
    /* The read-back's messages can name this model's settings: the checks come first. */
    if (code == 0 && o.read_back.mode != CLI_READ_BACK_OFF && checks_join(&run))
        code = run.fatal;
    if (code == 0)
        code = cli_read_back_open("translate", &run.rb, &o.read_back, &m, o.model_path, batch,
                                  pool);
    if (code == 0)
        code = cli_for_each_block_hooks(argc - optind, argv + optind, translate_block(&run),
                                        &hooks, translate_line, &run);
    /* An input without a line: the checks still decide. */
    if (checks_join(&run))
        code = run.fatal;
    cli_read_back_close(&run.rb);
    translator_free(&run.tr);
    pool_close(pool);
    model_free(&m);
    return code;
}
