/*
 * cli_tokenize.c — `toytrans tokenize`: what the model sees of a text.
 *
 * Prints one line per input text: its tokens separated by spaces. With --model, each
 * token is followed by ":id", and a token the vocabulary does not know by ":<unk>", so a
 * learner sees at once which words the model will not recognise.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "model/config.h"
#include "model/store.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    TokLang lang;
    const Vocab *vocab; /* NULL without --model */
} TokenizeCtx;

static void tokenize_usage(FILE *out)
{
    fputs("Usage: toytrans tokenize [--lang src|tgt] [--model M] [TEXT...]\n"
          "\n"
          "Prints the tokens of each TEXT (or of each line of standard input), separated\n"
          "by spaces, one line of output per text.\n"
          "\n"
          "Rules: the text must be valid UTF-8; it is normalised to NFC; the source side\n"
          "(English) is case-folded, the target side (German) keeps its case; whitespace\n"
          "separates tokens; every punctuation character is a token of its own, except an\n"
          "apostrophe or hyphen inside a word (dog's, well-known). On the source side the\n"
          "contractions don't, doesn't, isn't, aren't, i'm, you're, he's, she's, it's,\n"
          "we're and they're (with ' or \xe2\x80\x99) become two words: do not, does not, ...\n"
          "\n"
          "Options:\n"
          "  --lang src|tgt   which side's rules and vocabulary (default: src); with\n"
          "                   --model, the rules of that side's language (English: folded,\n"
          "                   contractions expanded; German: case kept)\n"
          "  --model M        also print each token's id in M's vocabulary as token:id;\n"
          "                   unknown tokens print as token:<unk>\n"
          "  -h, --help       show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 invalid text (the\n"
          "other texts are still tokenized; the message names the line and byte).\n",
          out);
}

static int tokenize_one(const char *text, size_t len, long line_no, void *pctx)
{
    const TokenizeCtx *ctx = pctx;
    TokenList list;
    TokError te;
    int rc = tokenize(&list, text, len, ctx->lang, &te);
    if (rc != TT_OK) {
        /* The output keeps one line per input, so the others stay aligned. */
        putchar('\n');
        fprintf(stderr, "toytrans tokenize: input %ld: %s\n", line_no,
                rc == TT_EINPUT ? te.message : status_message(rc));
        return status_exit_code(rc);
    }
    for (int i = 0; i < list.n; i++) {
        if (i)
            putchar(' ');
        fputs(list.tok[i], stdout);
        if (ctx->vocab) {
            int id = vocab_lookup(ctx->vocab, list.tok[i]);
            if (id == VOCAB_UNK)
                fputs(":<unk>", stdout);
            else
                printf(":%d", id);
        }
    }
    putchar('\n');
    tokenlist_free(&list);
    return 0;
}

int cli_tokenize(int argc, char **argv)
{
    static const struct option LONG_OPTS[] = {
        {"lang", required_argument, NULL, 'l'},
        {"model", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    TokenizeCtx ctx = {.lang = TOK_SRC};
    const char *model = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (strcmp(optarg, "src") == 0)
                ctx.lang = TOK_SRC;
            else if (strcmp(optarg, "tgt") == 0)
                ctx.lang = TOK_TGT;
            else
                return cli_usage_error("tokenize", "--lang: '%s' is not src or tgt", optarg);
            break;
        case 'm':
            model = optarg;
            break;
        case 'h':
            tokenize_usage(stdout);
            return TT_EXIT_OK;
        default:
            return cli_bad_option_in("tokenize", c, argv, LONG_OPTS);
        }
    }

    Vocab vocab = {0};
    if (model) {
        char err[512];
        Store *s = NULL;
        int rc = store_open(&s, model, STORE_READ, err, sizeof err);
        const int src_side = ctx.lang == TOK_SRC;
        if (rc == TT_OK)
            rc = store_vocab_read(s, src_side ? "src" : "tgt", &vocab, err, sizeof err);
        /* The side's rules are its language's: a German→English model's source is
         * German, tokenized with the cased rules. */
        ModelConfig config;
        if (rc == TT_OK && (rc = config_read(s, &config, err, sizeof err)) == TT_OK)
            ctx.lang = config_lang_rules(src_side ? config.src_lang : config.tgt_lang);
        store_close(s, NULL, 0);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans tokenize: %s\n", err[0] ? err : status_message(rc));
            return status_exit_code(rc);
        }
        ctx.vocab = &vocab;
    }
    int code = cli_for_each_input(argc - optind, argv + optind, tokenize_one, &ctx);
    vocab_free(&vocab);
    return code;
}
