#include "corpus/fxgraph_impl.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/classify_impl.h"
#include "target/target_impl.h"
#include "target/target_layout.h"
#include "base/landing.h"
#include "cli/cli.h"
#include "gpu/device.h"
#include "gpu/device_lock.h"
#include "gpu/device_lock_impl.h"
#include "measure/path.h"
#include "corpus/occurrences.h"

const char *test_corpus(void)
{
    const char *env = getenv("EXTERN_AUDIT_CORPUS");
    const char *dir = env && *env ? env : "build/corpus/better-benchmark";
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/repros/models", dir);
    struct stat st;
    return stat(probe, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* Every folder handed out stays reachable from here until the process ends (LeakSanitizer does not count it),
 * when remove_tmpdirs removes it and frees its entry. */
static struct kept_dir {
    struct kept_dir *next;
    pid_t owner; /* the process that made it removes it; a forked child that ends leaves it */
    char path[32];
} *kept_dirs;

const char *test_tmpdir(void)
{
    struct kept_dir *k = malloc(sizeof *k);
    cr_assert_not_null(k);
    snprintf(k->path, sizeof k->path, "/tmp/extern-audit-test-XXXXXX");
    cr_assert_not_null(mkdtemp(k->path), "mkdtemp failed");
    k->owner = getpid();
    k->next = kept_dirs;
    kept_dirs = k;
    return k->path;
}

/* test_tmpdir's folders go when the test's process ends: left, one CI=true .ci/run left 1.6 GB in some 1600
 * folders of /tmp, and every make test more. TEST_KEEP_TMP_ENV set keeps them, to look at after a failure. */
__attribute__((destructor)) static void remove_tmpdirs(void)
{
    const char *keep = getenv(TEST_KEEP_TMP_ENV);
    while (kept_dirs) {
        struct kept_dir *k = kept_dirs;
        kept_dirs = k->next;
        if (k->owner == getpid() && !(keep && *keep))
            ea_remove_tree(k->path);
        free(k);
    }
}

static void mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

char *test_write(const char *dir, const char *name, const char *text)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    mkdirs(path);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

char *test_target(const char *dir, const char *gpu_model, const char *torch, const char *capability)
{
    char name[512], text[2048];
    snprintf(name, sizeof name, "targets/%s-torch%s/target.json", gpu_model, torch);
    snprintf(text, sizeof text,
             "{\"schema\": \"extern-audit/target\", \"schema_version\": 1, \"name\": \"%s-torch%s\", "
             "\"gpu_model\": \"%s\", \"torch\": \"%s\", \"capability\": \"%s\", \"note\": \"written by a test\"}\n",
             gpu_model, torch, gpu_model, torch, capability);
    char *path = test_write(dir, name, text);
    *strrchr(path, '/') = '\0';
    return path;
}

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    char *s = malloc((size_t)n + 1);
    rewind(f);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    return s;
}

char *test_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    char *s = slurp(f);
    fclose(f);
    return s;
}

const char *test_inherited_target(const char *golden)
{
    return strcmp(golden, "golden") ? NULL : getenv(TEST_INHERITED_TARGET_ENV);
}

cli_run test_cli(const char *arg, ...)
{
    char *argv[32] = {"extern-audit"};
    int argc = 1;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);

    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    cli_run r = {ea_main(argc, argv), NULL, NULL};
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    fseek(out, 0, SEEK_END);
    fseek(err, 0, SEEK_END);
    r.out = slurp(out);
    r.err = slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

void cli_run_free(cli_run *r)
{
    free(r->out);
    free(r->err);
}

void test_parse(const char *text, fx_graph *g)
{
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_text("inline.py", text, strlen(text), g, &err), 0, "parse failed: %s", err.msg);
}

int test_node(const fx_graph *g, const char *name)
{
    int i = fx_graph_find(g, name);
    cr_assert_geq(i, 0, "no node %s", name);
    return i;
}

/* make test's device log names every section a test times by the test, whether or not it took the shared lock
 * (several GPU tests probe the device themselves); NULL in the runner, which has no test. */
static const char *running_test(void)
{
    static char who[256];
    const struct criterion_test *t = criterion_current_test;
    if (!t)
        return NULL;
    snprintf(who, sizeof who, "%s::%s", t->category, t->name);
    return who;
}

__attribute__((constructor)) static void name_sections_by_test(void)
{
    ea_device_lock_namer(running_test);
}

void test_skip_without_gpu(void)
{
    ea_device_info info;
    ea_error err;
    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    /* shared until the test's process ends: its GPU work never runs beside another process's timing */
    cr_assert_eq(ea_device_share(&err), 0, "%s", err.msg);
}

int test_target_for(const char *model, ea_target *t, char *why, size_t n, ea_error *err)
{
    const char *named = test_inherited_target("golden");
    if (ea_target_select("golden", NULL, named, model, 0, t, err))
        return -1;
    if (!strcmp(t->gpu_model, model))
        return 1;
    /* a target asked for by name would have its measurement refused here: the suite fails, it does not skip */
    if (named && *named)
        return ea_fail(err, "%s (%s) is the %s's target and this GPU is the %s: measuring on it is refused", named,
                       TEST_INHERITED_TARGET_ENV, t->gpu_model, model);
    snprintf(why, n, "no target for this GPU's model, %s, in golden/targets (%s is the %s's): stage one to measure "
             "here", model, t->name, t->gpu_model);
    return 0;
}

int test_gpu_without_target(char *why, size_t n)
{
    ea_device_info info;
    ea_target t;
    ea_error err;
    char model[64];
    if (!ea_device_probe(&info))
        return 0;
    ea_gpu_model(info.name, model, sizeof model);
    int rc = test_target_for(model, &t, why, n, &err);
    cr_assert_geq(rc, 0, "%s", err.msg);
    return !rc;
}

void test_skip_without_target(ea_target *t)
{
    char why[512];
    ea_error err;
    test_skip_without_gpu();
    if (test_gpu_without_target(why, sizeof why))
        cr_skip_test("%s", why);
    if (t)
        cr_assert_eq(ea_target_resolve("golden", test_inherited_target("golden"), 1, t, &err), 0, "%s", err.msg);
}

void test_golden_docs(cJSON *docs[EA_AUDIT_OPS], const char *files[EA_AUDIT_OPS], char buf[EA_AUDIT_OPS][128])
{
    ea_error err;
    cr_assert_eq(ea_occurrences_load("golden/occurrences", docs, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        snprintf(buf[i], 128, "golden/occurrences/%s.json", ea_audit_ops[i].short_name);
        files[i] = buf[i];
    }
}

cJSON *test_committed_baselines(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load("golden/targets/" TEST_TARGET "/" EA_BASELINES_NAME, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

const cJSON *test_path(const cJSON *result, const char *name, const char *mode)
{
    const cJSON *p = ea_path_named(result, name, mode);
    cr_assert_not_null(p, "no %s%s%s path", name, mode ? " " : "", mode ? mode : "");
    return p;
}

const cJSON *test_check(const cJSON *path, int after)
{
    const cJSON *c = cJSON_GetObjectItem(path, "check"), *a = cJSON_GetObjectItem(path, "check_after_timing");
    if (!after)
        return c;
    cr_assert(cJSON_IsObject(a) || (cJSON_IsString(a) && !strcmp(a->valuestring, "same")),
              "check_after_timing: expected an object or \"same\"");
    return cJSON_IsObject(a) ? a : c;
}

ea_run_env test_run_env(void)
{
    ea_run_env env = {.sm_count = 132, .l2_bytes = 62914560, .memory_bytes = 150000000000, .copy_bytes = 1 << 30,
                      .kernel_bytes_per_s = 4.0e12, .memcpy_bytes_per_s = 3.9e12, .launch_us = 1.5,
                      .warmup_ms = 100};
    snprintf(env.command, sizeof env.command, "extern-audit run --scope longformer-b");
    snprintf(env.gpu, sizeof env.gpu, "NVIDIA H200");
    ea_gpu_model(env.gpu, env.model, sizeof env.model);
    snprintf(env.capability, sizeof env.capability, "9.0");
    snprintf(env.driver, sizeof env.driver, "580.159.04");
    snprintf(env.toolkit, sizeof env.toolkit, "13.0");
    env.calls_per_replay = 3;
    env.replays = 30;
    return env;
}

char *test_printed(void (*print)(const cJSON *, FILE *), const cJSON *doc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    print(doc, f);
    fclose(f);
    return text;
}

ea_extraction test_extract_corpus(const char *corpus, int cap)
{
    ea_corpus c;
    ea_error err;
    ea_extraction x;
    cr_assert_eq(ea_corpus_open(corpus, &c, &err), 0, "%s", err.msg);
    ea_extract_opts o = {cap, NULL};
    cr_assert_eq(ea_extract(&c, &o, &x, &err), 0, "%s", err.msg);
    ea_corpus_free(&c);
    return x;
}

const cJSON *test_extraction_doc(const ea_extraction *x, const char *op)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, op))
            return x->docs[i];
    cr_assert_fail("%s is not audited", op);
    return NULL;
}

char *test_print_to_string(void (*print)(const cJSON *obj, FILE *f), const cJSON *obj)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    print(obj, f);
    fclose(f);
    return text;
}

cJSON *test_walk(cJSON *root, const char *path, cJSON **parent, char *last, size_t n)
{
    char seg[128] = "";
    cJSON *cur = root;
    *parent = NULL;
    while (*path) {
        size_t len = strcspn(path, "/");
        snprintf(seg, sizeof seg, "%.*s", (int)len, path);
        *parent = cur;
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(seg)) : cJSON_GetObjectItemCaseSensitive(cur, seg);
        path += len + (path[len] == '/');
    }
    snprintf(last, n, "%s", seg);
    return cur;
}

void test_baseline_table(const cJSON *doc, FILE *f)
{
    ea_baseline_print(doc, NULL, f);
}

void test_resummarize(cJSON *classification)
{
    cJSON_ReplaceItemInObjectCaseSensitive(
        classification, "summary",
        ea_classification_summary(cJSON_GetObjectItemCaseSensitive(classification, "occurrences")));
}

char *test_join(const char *dir, const char *name)
{
    static char buf[8][4400];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%.4000s/%.390s", dir, name);
    return p;
}

/* dst made as the committed src: a real folder of the same entries for a folder, a link for a file. A write into
 * the tree, a new file or one renamed over a link (an atomic write), lands in the tree: no folder of it is a link
 * into golden/ to write through. */
void test_mirror(const char *src, const char *dst)
{
    struct stat st;
    if (stat(src, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cr_assert_eq(symlink(src, dst), 0, "%s", dst);
        return;
    }
    cr_assert_eq(mkdir(dst, 0755), 0, "%s", dst);
    DIR *d = opendir(src);
    cr_assert_not_null(d, "%s", src);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char from[4400], to[4400];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
        test_mirror(from, to);
    }
    closedir(d);
}

const char *test_golden_links(void)
{
    static const char *const parts[] = {"occurrences", "old_rule.json", TEST_TARGET "/target.json",
                                        TEST_TARGET "/captures", TEST_TARGET "/baselines.json",
                                        TEST_TARGET "/torch_ops.json"};
    const char *dir = test_tmpdir();
    char cwd[2048], target[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(ea_make_dirs(test_join(dir, "targets/" TEST_TARGET), &(ea_error){{0}}), 0);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s%s", i < 2 ? "" : "targets/", parts[i]);
        snprintf(target, sizeof target, "%s/golden/%s", cwd, rel);
        test_mirror(target, test_join(dir, rel));
    }
    return dir;
}
