/* occurrence_cache.c: the per-occurrence checks' shared computations (contract in occurrence_cache.h). */
#include "occurrence_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "gpu/device.h"
#include "gpu/device_lock.h"
#include "gate/gate_run.h"
#include "base/hash.h"
#include "helpers.h"
#include "base/json.h"
#include "base/landing.h"
#include "occurrence_checks.h"
#include "measure/repro.h"
#include "measure/run.h"
#include "target/target.h"
#include "target/target_impl.h"

#define KEYED_ENV "EA_OCC_KEYED" /* the folders, as the runner made them, for the test processes */
#define RUN_ENV "EA_OCC_RUN"
#define OCC_RETRIES 2 /* as gate --run's default */

static char run_dir[4200]; /* the runner's, removed by occ_cache_finish */
static char skip_why[640]; /* why the runner disabled the GPU checks, "" when it did not */

static const char *env_dir(const char *name)
{
    const char *d = getenv(name);
    return d ? d : "";
}

static uint64_t hash_stat(uint64_t h, const char *path, const struct stat *st)
{
    int64_t meta[3] = {(int64_t)st->st_size, (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec};
    h = ea_fnv1a64(h, path, strlen(path) + 1);
    return ea_fnv1a64(h, meta, sizeof meta);
}

/* Every file under dir by name, size and modification time, in readdir's order (stable between two runs). */
static uint64_t hash_tree(uint64_t h, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    char p[4400];
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &st) != 0)
            continue;
        h = S_ISDIR(st.st_mode) ? hash_tree(h, p) : hash_stat(h, p, &st);
    }
    if (d)
        closedir(d);
    return h;
}

/* What the cross-run results depend on: this binary, the golden tree and the corpus (names, sizes, times). */
static uint64_t cache_key(void)
{
    struct stat st;
    uint64_t h = EA_FNV1A64_INIT;
    if (stat("/proc/self/exe", &st) == 0)
        h = hash_stat(h, "exe", &st);
    h = hash_tree(h, OCC_GOLDEN);
    const char *corpus = test_corpus();
    return corpus ? ea_fnv1a64(h, corpus, strlen(corpus) + 1) : h;
}

/* base/key-<hex>, made; other keys' folders removed (a binary or golden tree that is no more). */
static void make_keyed(const char *base, char *out, size_t n)
{
    char name[64];
    snprintf(name, sizeof name, "key-%016llx", (unsigned long long)cache_key());
    snprintf(out, n, "%s/%s", base, name);
    DIR *d = opendir(base);
    struct dirent *e;
    char p[4400];
    while (d && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "key-", 4) && strcmp(e->d_name, name)) {
            snprintf(p, sizeof p, "%s/%s", base, e->d_name);
            ea_remove_tree(p);
        }
    if (d)
        closedir(d);
    mkdir(out, 0755);
}

/* The cache's base: $EA_OCC_CACHE, else occ-cache beside the suite binary. */
static void base_dir(char *out, size_t n)
{
    const char *given = getenv("EA_OCC_CACHE");
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 16);
    if (given && *given)
        snprintf(out, n, "%s", given);
    else if (k > 0) {
        exe[k] = '\0';
        *strrchr(exe, '/') = '\0';
        snprintf(out, n, "%.4000s/occ-cache", exe);
    } else
        snprintf(out, n, "/tmp/extern-audit-occ-cache");
    mkdir(out, 0755);
}

/* Runs body(arg) in a child process and waits: CUDA starts there, never in the runner. */
static int in_child(void (*body)(const char *arg), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        body(arg);
        _exit(0);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void probe(const char *file)
{
    ea_device_info dev;
    ea_error err;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddBoolToObject(d, "present", ea_device_probe(&dev));
    cJSON_AddStringToObject(d, "name", dev.name);
    cJSON_AddStringToObject(d, "reason", dev.reason);
    ej_write_atomic(file, d, &err);
    cJSON_Delete(d);
}

int occ_device(char *model, size_t n, char *why, size_t nwhy, ea_error *err)
{
    char file[4400];
    ej_doc d;
    snprintf(file, sizeof file, "%s/device.json", env_dir(RUN_ENV));
    if (ej_load(file, &d, err))
        return -1;
    int present = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d.root, "present"));
    if (present)
        ea_gpu_model(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d.root, "name")), model, n);
    snprintf(why, nwhy, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d.root, "reason")));
    ej_free(&d);
    return present;
}

int occ_cached(const char *name, occ_make_fn make, const char *arg, char *file, size_t n, ea_error *err)
{
    char lock[4400], failed[4400], flat[256];
    snprintf(flat, sizeof flat, "%s", name); /* "extracted/summary.json": its folder is make's to create */
    for (char *c = flat; *c; c++)
        *c = *c == '/' ? '_' : *c;
    snprintf(file, n, "%s/%s", env_dir(KEYED_ENV), name);
    snprintf(lock, sizeof lock, "%s/%s.lock", env_dir(KEYED_ENV), flat);
    snprintf(failed, sizeof failed, "%s/%s.failed", env_dir(RUN_ENV), flat);
    int fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644), rc = 0;
    if (fd < 0 || flock(fd, LOCK_EX))
        return ea_fail(err, "%s: cannot lock: %s (is the suite's cache folder, %s, writable?)", lock, strerror(errno),
                       env_dir(KEYED_ENV));
    FILE *f;
    if (access(file, F_OK) == 0) {
        rc = 0;
    } else if ((f = fopen(failed, "r")) != NULL) {
        if (!fgets(err->msg, sizeof err->msg, f))
            snprintf(err->msg, sizeof err->msg, "%s: failed before in this run", name);
        fclose(f);
        rc = -1;
    } else if (make(arg, file, err)) {
        ea_error ignored;
        ea_write_file_atomic(failed, err->msg, strlen(err->msg), &ignored);
        rc = -1;
    }
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

/* Where occ_cache_prepare says why it measured nothing on a GPU no target is for. */
static const char *skip_file(void)
{
    static char file[4400];
    snprintf(file, sizeof file, "%s/measured.skip", env_dir(RUN_ENV));
    return file;
}

const char *occ_measured_file(void)
{
    static char file[4400];
    const char *given = getenv("EA_OCC_MEASURED");
    if (given && *given)
        return given;
    snprintf(file, sizeof file, "%s/measured.json", env_dir(RUN_ENV));
    return file;
}

cJSON *occ_measured_doc(const char *who)
{
    ea_error err;
    ej_doc d;
    char failed[4600];
    const char *file = occ_measured_file();
    if (access(skip_file(), F_OK) == 0 && access(file, F_OK) != 0) {
        char *why = test_read(skip_file());
        cr_skip_test("%s", why);
    }
    snprintf(failed, sizeof failed, "%s.failed", file);
    if (access(file, F_OK) != 0 && access(failed, F_OK) == 0) {
        char *why = test_read(failed);
        cr_assert_fail("%s: measuring the point: %s", who, why);
    }
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s: %s", who, err.msg);
    cJSON *doc = ej_doc_take_root(&d);
    cr_assert_eq(ea_baseline_validate(file, doc, &err), 0, "%s: %s", who, err.msg);
    return doc;
}

void occ_measure_note(char *buf, size_t n)
{
    char file[4400];
    snprintf(file, sizeof file, "%s/measured.note", env_dir(RUN_ENV));
    FILE *f = fopen(file, "r");
    if (!f || !fgets(buf, (int)n, f))
        snprintf(buf, n, "the device lock's record of the measurement is not at hand (%s)", file);
    if (f)
        fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* The measurement child: every point of csv as gate --run measures it (cold where the stored document is, a
 * point that moved measured again), into the run's measured.json; a failure into measured.json.failed; the lock's record into measured.note. */
static void measure(const char *csv)
{
    char file[4400], failed[4500], note[4400], model[64], why[512], msg[1024];
    ea_error err = {{0}};
    ea_target t;
    ea_run_points pts;
    ej_doc stored = {0};
    cJSON *doc = NULL;
    ea_lock_mark mark;
    snprintf(file, sizeof file, "%s/measured.json", run_dir);
    snprintf(failed, sizeof failed, "%s.failed", file);
    snprintf(note, sizeof note, "%s/measured.note", run_dir);
    int rc = occ_device(model, sizeof model, why, sizeof why, &err) == 1 ? 0 : -1;
    if (rc == 0)
        rc = ea_target_select(OCC_GOLDEN, NULL, test_inherited_target(OCC_GOLDEN), model, 1, &t, &err);
    char base[4400] = "";
    if (rc == 0) {
        snprintf(base, sizeof base, "%s/baselines.json", t.dir);
        if (access(base, F_OK) == 0)
            rc = ej_load(base, &stored, &err);
    }
    if (rc == 0 && (rc = ea_run_points_load(OCC_GOLDEN, t.dir, csv, &pts, &err)) == 0) {
        ea_run_opts ro = {.faithful = 1, .fabricated = 1, .log = stderr, .cold_from = stored.root};
        const char *command = "extern-audit gate --run (the occurrence checks' one measurement)";
        ea_drift_rule rule = ea_drift_default_rule(0);
        cJSON *report = NULL;
        ea_device_lock_label("the occurrence checks' measurement");
        ea_device_lock_mark(&mark);
        /* as gate --run measures: what moved is measured again before a timing check judges it */
        rc = (stored.root ? ea_gate_run(base, stored.root, &pts, &ro, &rule, OCC_RETRIES, command, &doc, &report, &err)
                          : ea_run_measure(&pts.ctx, command, &ro, pts.refs, pts.n, &doc, &err)) ||
             ej_write_atomic(file, doc, &err);
        ea_device_lock_note(&mark, msg, sizeof msg);
        ea_write_file_atomic(note, msg, strlen(msg), &err);
        cJSON_Delete(report);
        cJSON_Delete(doc);
        ea_run_points_free(&pts);
    }
    ej_free(&stored);
    if (rc) {
        ea_error ignored;
        ea_write_file_atomic(failed, err.msg, strlen(err.msg), &ignored);
    }
}

static int is_check(const struct criterion_test *t, const char *suite)
{
    return !strcmp(t->category, suite);
}

static const occ_ref *ref_of(const char *name)
{
    for (const occ_test *o = occ_tests; o->name; o++)
        if (!strcmp(o->name, name))
            return &o->ref;
    return NULL;
}

static int has_family(int op)
{
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++)
        if (!strcmp((*f)->op, ea_audit_ops[op].target))
            return 1;
    return 0;
}

/* The family GPU tests that judge the run's measurement (occ_shared_results) instead of measuring again: a
 * selected one adds every golden point of its op to it. */
static const struct {
    const char *suite, *test, *op;
} consumers[] = {
    {"cat_gpu", "every_golden_point", "cat"},
    {"cat_gpu", "infer_k25_at_copy_bandwidth", "cat"},
    {"cumsum_gpu", "mask_scopes", "cumsum"},
    {"cumsum_gpu", "packed_scopes", "cumsum"},
    {"cumsum_gpu", "const_scope", "cumsum"},
    {"index_add_gpu", "xlnet_full_scope", "index_add"},
    {"index_add_gpu", "longformer_a_full_scope", "index_add"},
    {"index_add_gpu", "longformer_b_full_scope", "index_add"},
    {"index_add_gpu", "longformer_b_div_full_scope", "index_add"},
    {"index_add_gpu", "replica_fidelity_against_torch_op", "index_add"},
    {"routing_gpu", "histc_point_all_configurations", "histc"},
    {"routing_gpu", "cumsum_point_all_configurations", "cumsum"},
};

static const char *consumer_op(const char *suite, const char *test)
{
    for (size_t i = 0; i < sizeof consumers / sizeof *consumers; i++)
        if (!strcmp(consumers[i].suite, suite) && !strcmp(consumers[i].test, test))
            return consumers[i].op;
    return NULL;
}

static void add_point(FILE *f, cJSON *seen, const char *point)
{
    if (cJSON_HasObjectItem(seen, point))
        return;
    cJSON_AddTrueToObject(seen, point);
    fprintf(f, "%s%s", cJSON_GetArraySize(seen) > 1 ? "," : "", point);
}

/* Every point of op's occurrences that a family measures. */
static void add_op_points(FILE *f, cJSON *seen, const char *op)
{
    for (const occ_test *o = occ_tests; o->name; o++)
        if (!strcmp(ea_audit_ops[o->ref.op].short_name, op) && has_family(o->ref.op))
            add_point(f, seen, o->ref.point);
}

/* The selected GPU checks: disabled with the reason why when nothing can be measured here (no device, or no target
 * of its model); else their points, once each, in csv, with every point of the selected consumers' ops. */
static int gpu_checks(struct criterion_test_set *set, int present, const char *why, char **csv)
{
    size_t len = 0;
    int selected = 0;
    FILE *f = open_memstream(csv, &len);
    cJSON *seen = cJSON_CreateObject();
    FOREACH_SET(struct criterion_suite_set *s, set->suites) {
        if (!s->tests)
            continue;
        FOREACH_SET(struct criterion_test *t, s->tests) {
            const occ_ref *r = ref_of(t->name);
            const char *op = consumer_op(t->category, t->name);
            if (!t->data->disabled && op && present)
                add_op_points(f, seen, op);
            if (t->data->disabled || !r || !(is_check(t, "correctness") || is_check(t, "timing")))
                continue;
            selected++;
            if (!present)
                t->data->disabled = true;
            else if (has_family(r->op))
                add_point(f, seen, r->point);
        }
    }
    fclose(f);
    if (!present && selected)
        snprintf(skip_why, sizeof skip_why, "%s", why);
    int points = cJSON_GetArraySize(seen);
    cJSON_Delete(seen);
    return points;
}

void occ_cache_prepare(struct criterion_test_set *set)
{
    char base[4096], keyed[4400], model[64], why[512];
    ea_error err;
    base_dir(base, sizeof base);
    make_keyed(base, keyed, sizeof keyed);
    snprintf(run_dir, sizeof run_dir, "%s/run-%ld", base, (long)getpid());
    ea_remove_tree(run_dir);
    mkdir(run_dir, 0755);
    setenv(KEYED_ENV, keyed, 1);
    setenv(RUN_ENV, run_dir, 1);
    char file[4400];
    snprintf(file, sizeof file, "%s/device.json", run_dir);
    in_child(probe, file);
    int present = occ_device(model, sizeof model, why, sizeof why, &err);
    char reason[sizeof skip_why];
    ea_target t;
    if (present < 0)
        snprintf(why, sizeof why, "the device probe failed: %.400s", err.msg);
    snprintf(reason, sizeof reason, "no CUDA device: %s", why);
    const char *given = getenv("EA_OCC_MEASURED");
    /* a measurement handed over (EA_OCC_MEASURED) is judged wherever it came from */
    if (present == 1 && !(given && *given) && test_target_for(model, &t, reason, sizeof reason, &err) == 0) {
        ea_write_file_atomic(skip_file(), reason, strlen(reason), &err);
        present = 0;
    }
    char *csv = NULL;
    int points = gpu_checks(set, present == 1, reason, &csv);
    if (points && !(given && *given)) {
        fprintf(stderr, "occurrence checks: measuring %d points on %s for their correctness and timing checks (as gate --run: "
                "a point that moved is measured again)\n",
                points, model);
        in_child(measure, csv);
    }
    free(csv);
}

void occ_cache_finish(void)
{
    if (run_dir[0])
        ea_remove_tree(run_dir);
}

const char *occ_skip_reason(const struct criterion_test *t)
{
    return skip_why[0] && (is_check(t, "correctness") || is_check(t, "timing")) && ref_of(t->name) ? skip_why : "";
}

cJSON *occ_shared_results(const char *op)
{
    const struct criterion_test *t = criterion_current_test;
    const char *registered = consumer_op(t->category, t->name);
    cr_assert(registered && !strcmp(registered, op),
              "%s::%s reads the shared measurement of %s: list it in occurrence_cache.c's consumers", t->category,
              t->name, op);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s-", op);
    cJSON *doc = occ_measured_doc(t->name), *all = cJSON_DetachItemFromObjectCaseSensitive(doc, "scopes"), *r, *next;
    cJSON *mine = cJSON_CreateArray();
    for (r = all ? all->child : NULL; r; r = next) {
        next = r->next;
        const cJSON *point = cJSON_GetObjectItemCaseSensitive(r, "point");
        if (cJSON_IsString(point) && !strncmp(point->valuestring, prefix, strlen(prefix)))
            cJSON_AddItemToArray(mine, cJSON_DetachItemViaPointer(all, r));
    }
    cJSON_Delete(all);
    cJSON_Delete(doc);
    cr_assert_gt(cJSON_GetArraySize(mine), 0, "%s holds no result for a point of %s", occ_measured_file(), op);
    return mine;
}
