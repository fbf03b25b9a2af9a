/*
 * jsonl_check.c — a test tool: checks that every line of standard input is exactly one
 * valid JSON value (RFC 8259, strict), with the independent validator in jsoncheck.h.
 *
 *   jsonl_check [KEY...] < lines
 *   jsonl_check --print KEY < lines
 * With KEYs, every line must also be an object holding each of them at the top level;
 * with --print, the raw JSON text of KEY's value is printed for each line.
 * Prints each failure as "line N: message" and exits 1 if any line failed, else 0.
 */
#include "jsoncheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int main(int argc, char **argv)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0, bad = 0;
    const int print = argc == 3 && strcmp(argv[1], "--print") == 0;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        no++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        char err[256];
        if (jsoncheck_validate(line, (size_t)len, err, sizeof err) != 0) {
            printf("line %ld: %s\n", no, err);
            bad++;
            continue;
        }
        char *value = malloc((size_t)len + 1);
        if (!value)
            return 2;
        for (int k = print ? 2 : 1; k < argc; k++) {
            if (jsoncheck_get(line, (size_t)len, argv[k], value, (size_t)len + 1) < 0) {
                printf("line %ld: no top-level key '%s'\n", no, argv[k]);
                bad++;
            } else if (print) {
                printf("%s\n", value);
            }
        }
        free(value);
    }
    free(line);
    if (no == 0) {
        printf("no input\n");
        return 1;
    }
    return bad ? 1 : 0;
}
