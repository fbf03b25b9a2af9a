/*
 * cli_translate.c — `toytrans translate`: English in, German out, one word at a time.
 *
 * One output line per input line, always, flushed as soon as it is written, so the
 * command works inside a pipe. A line that cannot be translated (invalid UTF-8, too many
 * tokens) gets an error on stderr naming it — in --json an object with "error" — and the
 * run goes on; the exit status reports it at the end.
 */
#include "cli.h"
#include "decode.h"
#include "json.h"
#include "model.h"
#include "status.h"
#include "translator.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    const char *model_path;
    const char *prefix_text;
    long beam, max_len, alternatives;
    int json, scores, keep_unk;
} TranslateOptions;

/* What every line shares. */
typedef struct {
    const TranslateOptions *o;
    const Model *m;
    Translator tr;
    int from_stdin;     /* name inputs "line N" (stdin) or "argument N" */
} TranslateRun;

static void translate_usage(FILE *out)
{
    fputs("Usage: toytrans translate [OPTIONS] [TEXT...]\n"
          "\n"
          "Translates each TEXT, or each line of standard input, from English to German,\n"
          "one output line per input line. The encoder reads the whole sentence; the\n"
          "decoder writes the German one word at a time.\n"
          "\n"
          "Options:\n"
          "  --model M          the model file (default: $TOYTRANS_MODEL, else " CLI_DEFAULT_MODEL ")\n"
          "  --prefix TEXT      the start of the translation: fed to the decoder as given,\n"
          "                     scored, and continued (\"Das ist ein\")\n"
          "  --beam N           beam search with N hypotheses (default 1: greedy)\n"
          "  --max-len N        stop at N output tokens, prefix and </s> included\n"
          "                     (default: the model's max_len)\n"
          "  --scores           after a TAB, each output word with its probability\n"
          "  --alternatives K   after a TAB, the K most probable words at every step\n"
          "  --json             one JSON object per line: tokens, log-probabilities and the\n"
          "                     attention weights of every step\n"
          "  --keep-unk         show <unk> instead of copying the source word the decoder\n"
          "                     attended to most\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 some line could not\n"
          "be translated (the others were), 5 output failed.\n",
          out);
}

static int translate_parse(TranslateOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_PREFIX, O_BEAM, O_MAXLEN, O_JSON, O_SCORES, O_ALT, O_KEEP };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"prefix", required_argument, NULL, O_PREFIX},
        {"beam", required_argument, NULL, O_BEAM},
        {"max-len", required_argument, NULL, O_MAXLEN},
        {"json", no_argument, NULL, O_JSON},
        {"scores", no_argument, NULL, O_SCORES},
        {"alternatives", required_argument, NULL, O_ALT},
        {"keep-unk", no_argument, NULL, O_KEEP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->beam = 1;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            o->model_path = optarg;
            break;
        case O_PREFIX:
            o->prefix_text = optarg;
            break;
        case O_BEAM:
            if ((rc = cli_parse_long("translate", "--beam", optarg, 1, DECODE_MAX_BEAM, &o->beam)))
                return rc;
            break;
        case O_MAXLEN:
            if ((rc = cli_parse_long("translate", "--max-len", optarg, 2, CONFIG_MAX_LEN, &o->max_len)))
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
                                     DECODE_MAX_ALTERNATIVES, &o->alternatives)))
                return rc;
            break;
        case O_KEEP:
            o->keep_unk = 1;
            break;
        case 'h':
            translate_usage(stdout);
            return -1;
        default:
            return cli_bad_option("translate", c, argv);
        }
    }
    o->model_path = cli_model_path(o->model_path);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * One line
 */

static void write_json(const TranslateRun *run, const char *line, size_t len,
                       const TranslatorResult *r)
{
    const Translation *t = r->t;
    const ModelConfig *c = &run->m->config;
    const int L = c->n_decoder_layers, H = c->n_heads, N = c->max_len;
    JsonWriter w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "source");
    json_string_n(&w, line, len);
    json_key(&w, "source_tokens");
    json_begin_array(&w);
    for (int i = 0; i < r->src->n; i++)
        json_string(&w, r->src->tok[i]);
    if (r->src->n)
        json_string(&w, VOCAB_SPECIAL[VOCAB_EOS]);
    json_end_array(&w);
    json_key(&w, "translation");
    json_string(&w, r->text);
    json_key(&w, "tokens");
    json_begin_array(&w);
    for (int i = 0; i < t->n; i++)
        json_string(&w, r->tokens[i]);
    json_end_array(&w);
    json_key(&w, "steps");
    json_begin_array(&w);
    for (int i = 0; i < t->n; i++) {
        json_begin_object(&w);
        json_key(&w, "token");
        json_string(&w, r->words[i]);
        json_key(&w, "id");
        json_int(&w, t->ids[i]);
        json_key(&w, "logprob");
        json_float(&w, t->logprob[i]);
        json_key(&w, "forced");
        json_bool(&w, i < t->n_forced);
        static const char *const KINDS[2] = {"cross_attention", "self_attention"};
        for (int kind = 0; kind < 2; kind++) {
            const float *base = (kind == 0 ? t->cross : t->self) + (size_t)i * L * H * N;
            const int width = kind == 0 ? t->S : i + 1;
            json_key(&w, KINDS[kind]);
            json_begin_array(&w);
            for (int l = 0; l < L; l++) {
                json_begin_array(&w);
                for (int h = 0; h < H; h++)
                    json_float_array(&w, base + ((size_t)l * H + h) * N, width);
                json_end_array(&w);
            }
            json_end_array(&w);
        }
        if (t->alt_k) {
            json_key(&w, "alternatives");
            json_begin_array(&w);
            for (int j = 0; j < t->alt_k; j++) {
                const int id = t->alt_ids[(size_t)i * t->alt_k + j];
                json_begin_object(&w);
                json_key(&w, "token");
                json_string(&w, run->m->tgt_vocab.tokens[id]);
                json_key(&w, "id");
                json_int(&w, id);
                json_key(&w, "prob");
                json_float(&w, t->alt_prob[(size_t)i * t->alt_k + j]);
                json_end_object(&w);
            }
            json_end_array(&w);
        }
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
    putchar('\n');
}

static void write_plain(const TranslateRun *run, const TranslatorResult *r)
{
    const Translation *t = r->t;
    fputs(r->text, stdout);
    if (run->o->scores) {
        putchar('\t');
        for (int i = 0; i < t->n; i++)
            printf("%s%s:%.3f%s", i ? " " : "", r->words[i], exp((double)t->logprob[i]),
                   i < t->n_forced ? "(forced)" : "");
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

/* Reports a line that cannot be translated, keeping the output aligned. */
static int line_error(const TranslateRun *run, const char *line, size_t len, long no, int code,
                      const char *what)
{
    fprintf(stderr, "toytrans translate: %s %ld: %s\n", run->from_stdin ? "line" : "argument",
            no, what);
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
    putchar('\n');
    return code;
}

static int translate_line(const char *line, size_t len, long no, void *ctx)
{
    TranslateRun *run = ctx;
    TranslatorResult r;
    char err[256];
    int rc = translator_run(&run->tr, line, len, &r, err, sizeof err);
    if (rc != TT_OK)
        return line_error(run, line, len, no, status_exit_code(rc), err);
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

    Model m;
    char err[512];
    int rc = model_load_file(&m, o.model_path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans translate: %s\n", err[0] ? err : status_message(rc));
        if (strstr(err, "no such model file"))
            fprintf(stderr, "toytrans translate: pass --model M or set TOYTRANS_MODEL%s\n",
                    strcmp(o.model_path, CLI_DEFAULT_MODEL) == 0 ? "; 'make model' trains the default" : "");
        return status_exit_code(rc);
    }
    TranslateRun run = {.o = &o, .m = &m, .from_stdin = optind >= argc};
    const TranslatorOptions to = {
        .beam = (int)o.beam,
        .max_len = (int)o.max_len,
        .alternatives = (int)o.alternatives,
        .keep_unk = o.keep_unk,
        .prefix = o.prefix_text,
    };
    rc = translator_init(&run.tr, &m, &to, err, sizeof err);
    if (rc == TT_EINPUT) {
        /* Only the prefix can be bad input here; its messages begin with "prefix". */
        code = cli_usage_error("translate", "--%s", err);
    } else if (rc != TT_OK) {
        fprintf(stderr, "toytrans translate: %s\n", err);
        code = status_exit_code(rc);
    }
    if (code == 0)
        code = cli_for_each_input(argc - optind, argv + optind, translate_line, &run);
    translator_free(&run.tr);
    model_free(&m);
    return code;
}
