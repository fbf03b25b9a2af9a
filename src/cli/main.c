/*
 * main.c — the `toytrans` binary: finds the subcommand and runs it.
 *
 * git-style: `toytrans COMMAND [OPTIONS] [ARGS]`. Every command parses its own options
 * (getopt_long), and every command's output goes through stdout, whose final flush and
 * close are checked here: a full disk or a closed pipe is an error, not a silent success.
 */
#include "base/status.h"
#include "base/suggest.h"
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static int cli_help(int argc, char **argv);

typedef struct {
    const char *name;
    CliCommandFn run;
    const char *summary;
} Command;

static const Command COMMANDS[] = {
    {"trace", cli_trace, "walk through self-attention stage by stage"},
    {"corpus", cli_corpus, "write the English→German corpus (train, valid, test .tsv)"},
    {"tokenize", cli_tokenize, "show the tokens (and ids) a text becomes"},
    {"translate", cli_translate, "translate English to German, one word at a time"},
    {"inspect", cli_inspect, "show where the decoder looked for each word (attention heatmaps)"},
    {"eval", cli_eval, "translate a test set and score it: BLEU, chrF, exact match, speed"},
    {"bleu", cli_bleu, "score existing translations: BLEU and chrF against reference files"},
    {"vocab", cli_vocab, "count a corpus's tokens and start a model file"},
    {"init", cli_init, "create a randomly initialised model"},
    {"train", cli_train, "train a model on a parallel corpus"},
    {"check", cli_check, "regression-test fixed sentences (and numbers)"},
    {"info", cli_info, "describe a model: configuration, size, provenance, training"},
    {"plot", cli_plot, "draw a model's training and validation loss as an SVG file"},
    {"help", cli_help, "show help for toytrans, a command, 'exit-codes' or 'model'"},
};
enum { N_COMMANDS = sizeof COMMANDS / sizeof COMMANDS[0] };

static void print_usage(FILE *out)
{
    fputs("Usage: toytrans COMMAND [OPTIONS] [ARGS]\n"
          "       toytrans --help | --version\n"
          "\n"
          "toytrans is a small English→German Transformer translator that shows its work.\n"
          "\n"
          "Commands:\n",
          out);
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fputs("\n"
          "'toytrans COMMAND --help' describes a command's options;\n"
          "'toytrans help exit-codes' lists what the exit status means;\n"
          "'toytrans help model' says where the default model is looked for.\n",
          out);
}

/* git's "The most similar command is": the commands nearest to a misspelled name, on
 * stderr (suggest.h says how near is near enough). */
static void print_similar(const char *name)
{
    const char *names[N_COMMANDS];
    for (int i = 0; i < N_COMMANDS; i++)
        names[i] = COMMANDS[i].name;
    int near[N_COMMANDS];
    const int k = suggest_nearest(name, names, N_COMMANDS, near, N_COMMANDS);
    if (k == 0)
        return;
    fprintf(stderr, "\nThe most similar command%s\n", k == 1 ? " is" : "s are");
    for (int i = 0; i < k; i++)
        fprintf(stderr, "\t%s\n", names[near[i]]);
}

static const Command *find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

static int cli_help(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stdout);
        return TT_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error("help", "expected one topic, got %d", argc - 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs("Usage: toytrans help [COMMAND | exit-codes | model]\n"
              "Shows the list of commands, one command's help, the exit-code table, or\n"
              "where the default model is looked for.\n",
              stdout);
        return TT_EXIT_OK;
    }
    if (strcmp(argv[1], "exit-codes") == 0) {
        cli_print_exit_codes();
        return TT_EXIT_OK;
    }
    if (strcmp(argv[1], "model") == 0) {
        cli_print_model_search(stdout);
        return TT_EXIT_OK;
    }
    const Command *cmd = find_command(argv[1]);
    if (!cmd || cmd->run == cli_help)
        return cli_usage_error("help", "no help topic '%s' (commands: see 'toytrans help')",
                               argv[1]);
    char *sub_argv[] = {argv[1], "--help", NULL};
    return cmd->run(2, sub_argv);
}

/* Flushes and closes stdout; a failure there turns success into an I/O error. A reader
 * that went away (EPIPE: `toytrans translate < big.txt | head -1`) is not worth a
 * message, only the status. */
static int finish_stdout(int code)
{
    /* errno still holds the cause when an earlier flush (cli_for_each_input) failed. */
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        if (errno != EPIPE)
            fprintf(stderr, "toytrans: error writing standard output: %s\n",
                    errno ? strerror(errno) : "write error");
        return code == TT_EXIT_OK ? TT_EXIT_IO : code;
    }
    return code;
}

int main(int argc, char **argv)
{
    /* A closed pipe is a write error (EPIPE) that each command handles: output commands
     * stop with exit 5, training goes on without its progress lines and saves. SIGPIPE's
     * default action would kill the process instead, without a checkpoint. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        print_usage(stderr);
        return TT_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_usage(stdout);
        return finish_stdout(TT_EXIT_OK);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("toytrans %s\n", TOYTRANS_VERSION);
        return finish_stdout(TT_EXIT_OK);
    }
    const Command *cmd = find_command(name);
    if (!cmd) {
        fprintf(stderr, "toytrans: '%s' is not a command. See 'toytrans help'.\n", name);
        print_similar(name);
        return TT_EXIT_USAGE;
    }
    return finish_stdout(cmd->run(argc - 1, argv + 1));
}
