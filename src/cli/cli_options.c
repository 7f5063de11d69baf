/* cli_options.c: the option parsing and the messages every command shares (cli.h), kept out of cli.c
 * so the commands (cmd_*.c) and the dispatch table (cli.c) do not depend on each other. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"

typedef ea_cli_options options;

int ea_cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "extern-audit %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see extern-audit help %s)\n", cmd);
    return 2;
}

/* Is name a whole space-separated word of allowed? */
static int allows(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *hit = strstr(allowed, name); hit; hit = strstr(hit + 1, name))
        if ((hit == allowed || hit[-1] == ' ') && (hit[n] == ' ' || hit[n] == '\0'))
            return 1;
    return 0;
}

/* A word of allowed that names a flag here though the option takes a value elsewhere ("--check!": rollup's
 * --check checks, extract's --check DIR names a folder). */
static int allows_flag(const char *allowed, const char *name)
{
    char word[40];
    snprintf(word, sizeof word, "%s!", name);
    return allows(allowed, word);
}

/* Accepts only the options named in `allowed` (space-separated, e.g. "--corpus --json"). */
int ea_cli_parse(const char *cmd, const char *allowed, int argc, char **argv, options *o, int *help)
{
    const char *env = getenv("EXTERN_AUDIT_CORPUS");
    *o = (options){.corpus = env && *env ? env : EA_CLI_DEFAULT_CORPUS, .golden = EA_CLI_DEFAULT_GOLDEN, .cat_cap = 8};
    const struct {
        const char *name;
        const char **value;
    } strings[] = {{"--corpus", &o->corpus}, {"--out", &o->out},       {"--check", &o->check},
                   {"--rule", &o->rule},     {"--golden", &o->golden}, {"--scope", &o->scope},
                   {"--record", &o->record}, {"--mode", &o->mode},     {"--target", &o->target},
                   {"--keep-from", &o->keep_from}, {"--baseline", &o->baseline}, {"--against", &o->against},
                   {"--propose", &o->propose},     {"--markdown", &o->markdown}, {"--save", &o->save},
                   {"--margin", &o->margin},       {"--retries", &o->retries},   {"--html", &o->html},
                   {"--v3", &o->v3},               {"--shard", &o->shard},       {"--shard-plan", &o->shard_plan},
                   {"--junit", &o->junit}};
    const struct {
        const char *name;
        int *flag;
    } flags[] = {{"--json", &o->json}, {"--quiet", &o->quiet}, {"--update", &o->update}, {"--plan", &o->plan},
                 {"--check-only", &o->check_only}, {"--run", &o->run}, {"--cold", &o->cold},
                 {"--any-gpu", &o->any_gpu}};
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *inline_value = NULL;
        char name[32];
        /* --golden=DIR as well as --golden DIR */
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            inline_value = eq + 1;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            return 0;
        }
        if (a[0] != '-' && allows(allowed, "ARGS")) {
            if (!*a || o->nargs >= (int)(sizeof o->args / sizeof o->args[0]))
                return ea_cli_usage_error(cmd, "unexpected argument '%s'", a);
            o->args[o->nargs++] = a;
            continue;
        }
        if (strncmp(a, "--", 2) || !(allows(allowed, a) || allows_flag(allowed, a)))
            return ea_cli_usage_error(cmd, "unknown option '%s'", a);
        int known = allows_flag(allowed, a) && (o->check_flag = 1);
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(a, flags[k].name))
                known = *flags[k].flag = 1;
        if (known && inline_value)
            return ea_cli_usage_error(cmd, "option '%s' takes no value", a);
        if (known)
            continue;
        if (!inline_value && i + 1 >= argc)
            return ea_cli_usage_error(cmd, "option '%s' needs a value", a);
        const char *v = inline_value ? inline_value : argv[++i];
        if (!*v) /* --golden '' would read /occurrences */
            return ea_cli_usage_error(cmd, "option '%s' needs a non-empty value", a);
        for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++)
            if (!strcmp(a, strings[k].name)) {
                *strings[k].value = v;
                known = 1;
            }
        o->corpus_given |= !strcmp(a, "--corpus");
        o->golden_given |= !strcmp(a, "--golden");
        if (known)
            continue;
        char *end;
        long cap = strtol(v, &end, 10);
        if (*end || end == v || cap < 0 || cap > 100000)
            return ea_cli_usage_error(cmd, "--cat-cap expects an integer 0..100000, got '%s'", v);
        o->cat_cap = (int)cap;
    }
    if (o->out && o->check)
        return ea_cli_usage_error(cmd, "%s", "--out and --check exclude each other");
    struct stat st; /* a folder named wrong is said in the user's words, before any work */
    if (o->golden_given && (stat(o->golden, &st) || !S_ISDIR(st.st_mode)))
        return ea_cli_usage_error(cmd, "--golden %s: not a folder (expected the golden folder, holding occurrences/ and "
                                       "targets/)", o->golden);
    return 0;
}

int ea_cli_each_name(const char *list, int (*each)(const char *name, size_t len, void *ctx), void *ctx)
{
    if (!*list)
        return 0;
    for (const char *a = list;; a++) {
        size_t n = strcspn(a, ",");
        int rc = each(a, n, ctx);
        if (rc || !a[n])
            return rc;
        a += n;
    }
}

int ea_cli_fail(const ea_error *err)
{
    fprintf(stderr, "extern-audit: %s\n", err->msg);
    return 2;
}

void ea_cli_print_json(const cJSON *j)
{
    char *s = cJSON_Print(j);
    if (s)
        printf("%s\n", s);
    free(s);
}

int ea_cli_write_output(const char *cmd, const char *what, const char *file, const char *text, FILE *said,
                        ea_error *err)
{
    if (!text)
        return ea_fail(err, "%s: %s: out of memory", file, what);
    if (!strcmp(file, "-"))
        return fputs(text, stdout) < 0 ? ea_fail(err, "standard output: cannot write the %s", what) : 0;
    if (ea_write_file_atomic(file, text, strlen(text), err))
        return -1;
    fprintf(said, "%s: wrote %s (%s, %zu bytes)\n", cmd, file, what, strlen(text));
    return 0;
}

int ea_cli_stdout_once(const char *cmd, int json, const char *const *files, int n, int *taken)
{
    int dashes = 0;
    for (int i = 0; i < n; i++)
        dashes += files[i] && !strcmp(files[i], "-");
    *taken = dashes > 0;
    if (dashes + !!json > 1)
        return ea_cli_usage_error(cmd, "%s", "one output at most on standard output: --json or one FILE of -");
    return 0;
}
