/*
 * cli_shape.c — the model-shape options, from config.h's table (see cli_shape.h).
 */
#include "cli/cli_shape.h"

#include "base/status.h"
#include "cli/cli.h"

#include <assert.h>
#include <string.h>

/* Whether row p is a switch (no value; sets 1). */
static int is_switch(const ConfigParam *p)
{
    return p->type == CONFIG_INT && p->min == 0 && p->max == 1;
}

void cli_shape_options(struct option *out, size_t cap, const struct option *own)
{
    size_t n = 0;
    while (own[n].name) {
        assert(n < cap);
        out[n] = own[n];
        n++;
    }
    assert(n + 1 < cap);
    out[n++] = (struct option){"direction", required_argument, NULL, CLI_SHAPE_DIRECTION};
    int rows;
    const ConfigParam *p = config_params(&rows);
    for (int i = 0; i < rows; i++) {
        if (!p[i].flag)
            continue;
        assert(n + 1 < cap && p[i].type == CONFIG_INT);
        out[n++] = (struct option){p[i].flag + 2, is_switch(&p[i]) ? no_argument
                                                                   : required_argument,
                                   NULL, CLI_SHAPE_OPT + i};
    }
    assert(n < cap);
    out[n] = (struct option){NULL, 0, NULL, 0};
}

int cli_shape_opt(const char *key)
{
    int rows;
    const ConfigParam *p = config_params(&rows);
    for (int i = 0; i < rows; i++)
        if (p[i].flag && strcmp(p[i].key, key) == 0)
            return CLI_SHAPE_OPT + i;
    return -1;
}

int cli_shape_parse(const char *cmd, int opt, const char *arg, ModelConfig *c)
{
    if (opt == CLI_SHAPE_DIRECTION) {
        if (config_set_direction(c, arg) == TT_OK)
            return 1;
        return -cli_usage_error(cmd, "--direction: '%s' is not a direction; give %s", arg,
                                CONFIG_DIRECTION_HELP);
    }
    int rows;
    const ConfigParam *p = config_params(&rows);
    const int i = opt - CLI_SHAPE_OPT;
    if (i < 0 || i >= rows || !p[i].flag)
        return 0;
    int *field = (int *)((char *)c + p[i].offset);
    if (is_switch(&p[i])) {
        *field = 1;
        return 1;
    }
    long v;
    int rc = cli_parse_long(cmd, p[i].flag, arg, (long)p[i].min, (long)p[i].max, &v);
    if (rc)
        return -rc;
    *field = (int)v;
    return 1;
}

void cli_shape_usage(FILE *out, int width)
{
    fprintf(out, "  %-*s%s; a corpus file is\n  %*sEnglish TAB German either way (default en-de)\n",
            width, "--direction D", CONFIG_DIRECTION_HELP, width, "");
    int rows;
    const ConfigParam *p = config_params(&rows);
    for (int i = 0; i < rows; i++) {
        if (!p[i].flag)
            continue;
        char opt[64];
        snprintf(opt, sizeof opt, "%s%s", p[i].flag, is_switch(&p[i]) ? "" : " N");
        fprintf(out, "  %-*s%s", width, opt, p[i].help);
        if (!is_switch(&p[i]))
            fprintf(out, " (default %.0f)", p[i].def);
        for (const char *s = p[i].help_end; *s; s++) {
            if (*s == '\n')
                fprintf(out, "\n  %*s", width, "");
            else
                fputc(*s, out);
        }
        fputc('\n', out);
    }
}
