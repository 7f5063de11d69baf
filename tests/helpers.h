/* helpers.h: shared by the Criterion suites: where the corpus is, temp folders, running the CLI
 * in-process with its output captured, and parsing a graph written inline. */
#ifndef EA_TEST_HELPERS_H
#define EA_TEST_HELPERS_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "measure/baseline.h"
#include "corpus/extract.h"
#include "corpus/fxgraph.h"
#include "measure/repro.h"
#include "target/target.h"

#define FIXTURE_CORPUS "tests/fixtures/corpus"

/* The unpacked better-benchmark corpus ($EXTERN_AUDIT_CORPUS, else build/corpus/better-benchmark),
 * or NULL when absent: callers skip with the reason. */
const char *test_corpus(void);
/* golden/occurrences loaded for ea_repro_resolve: docs (the caller deletes each) and their paths, kept in buf. */
void test_golden_docs(cJSON *docs[EA_AUDIT_OPS], const char *files[EA_AUDIT_OPS], char buf[EA_AUDIT_OPS][128]);
/* Skips the calling test, "no CUDA device: <reason>", on a machine without one: a GPU test never
 * passes without having run. With one, shares the device lock (device_lock.h) for the rest of the test, so
 * its GPU work never runs beside another process's timing; its own timings take the lock exclusive. */
void test_skip_without_gpu(void);
/* The committed golden's target as a command reading files resolves it on a GPU of model (target.h): 1 when it is
 * of model, 0 when it is another GPU's (a machine no target is for: why says so), -1 when none resolves or the
 * suite inherited a target of another GPU by name (err). */
int test_target_for(const char *model, ea_target *t, char *why, size_t n, ea_error *err);
/* 1, with why, on a GPU the committed golden holds no target for (test_target_for; its -1 fails the test). */
int test_gpu_without_target(char *why, size_t n);
/* test_skip_without_gpu, then skips with test_gpu_without_target's reason: what measures committed points compares
 * against baselines of the GPU it ran on. With t, the target a measuring command resolves, into t. */
void test_skip_without_target(ea_target *t);
/* A golden folder of the committed one's occurrences, old_rule.json and TEST_TARGET's target.json, captures,
 * baselines.json and torch_ops.json (test_mirror: real folders, a link per file), without its
 * classification.json (the caller writes one). */
const char *test_golden_links(void);
/* dst made as src: for a folder a real one of the same entries, for a file a link to it. */
void test_mirror(const char *src, const char *dst);
/* "<dir>/<name>" in one of eight rotating buffers: eight may be held at once. */
char *test_join(const char *dir, const char *name);
/* A fresh empty folder under /tmp; it and its path last until the test process ends, which removes it (unless
 * TEST_KEEP_TMP_ENV is set). */
const char *test_tmpdir(void);
#define TEST_KEEP_TMP_ENV "EXTERN_AUDIT_KEEP_TEST_TMP" /* set: test_tmpdir's folders stay after the process */
/* Write text to dir/name (creating parent folders); returns the path (static buffer per call site
 * is not kept: copy it if needed). */
char *test_write(const char *dir, const char *name, const char *text);
/* A whole file's bytes, NUL-terminated (the caller frees); asserts it reads. */
char *test_read(const char *path);
/* The committed golden's target, and a target written for a test: dir/targets/<gpu_model>-torch<torch>/
 * target.json (capability given); returns the target folder (the caller frees). */
#define TEST_TARGET "H200-torch2.11.0+cu130"
/* ci/gpu-check exports $EXTERN_AUDIT_TARGET for the suite; the runner moves it to this variable before any test
 * (occurrence_checks.c's PRE_ALL) so that the fixture folders tests build do not inherit it. */
#define TEST_INHERITED_TARGET_ENV "EA_TEST_TARGET"
/* The target the suite inherited, for golden when it is the committed folder ("golden"); NULL otherwise. */
const char *test_inherited_target(const char *golden);
char *test_target(const char *dir, const char *gpu_model, const char *torch, const char *capability);

/* family_points.c: f's results for point ($.points[index] of file, a document the test loaded) in a run
 * context like run's: the captures of the target of file's golden folder (none when it has no target),
 * file reloaded as f's document. The captures of the committed target, loaded once per process. */
cJSON *test_family_points(const ea_repro_family *f, const cJSON *point, const char *file, int index,
                          const ea_run_opts *o, int measure, ea_error *err);
const ea_captures *test_golden_captures(void);
/* The golden point id that family (its registry name) calls alias, "(no such alias)" if none; the alias
 * of a golden point id (NULL if none; the next call overwrites it). */
const char *test_point_id(const char *family, const char *alias);
const char *test_alias_of(const char *family, const char *point);

/* The whole file, NUL-terminated (the caller frees it); asserts it can be read. */
char *test_read(const char *path);

typedef struct {
    int status;
    char *out; /* captured stdout, NUL-terminated */
    char *err; /* captured stderr */
} cli_run;

/* ea_main on a NULL-terminated argument list (argv[0] added); frees nothing the caller keeps. */
cli_run test_cli(const char *arg, ...);
void cli_run_free(cli_run *r);

/* A run environment as an H200 run records it (4.0 TB/s copy kernel, 3.9 memcpy, 1.5 us launch, 60 MiB
 * L2), for the host half of run: annotation, the baselines document, the table. */
ea_run_env test_run_env(void);
/* What print writes of doc, malloc'd (a report's text, for the tests to search). */
char *test_printed(void (*print)(const cJSON *, FILE *), const cJSON *doc);

/* The extraction of corpus with cat cap cap; asserts success (the caller frees it). */
ea_extraction test_extract_corpus(const char *corpus, int cap);
/* x's document of the audited op op ("aten.cat.default", ...). */
const cJSON *test_extraction_doc(const ea_extraction *x, const char *op);
/* What print writes for obj, as a string the caller frees (e.g. ea_baseline_print's table). */
char *test_print_to_string(void (*print)(const cJSON *obj, FILE *f), const cJSON *obj);
/* ea_baseline_print's table of doc without a torch-ops file (its fidelity lines quote no torch time). */
void test_baseline_table(const cJSON *doc, FILE *f);

/* The node at a '/'-separated path of root ("scopes/0/fidelity/torch_op", an array's element by its index), NULL
 * when there is none; *parent and last (its key, or index, of n bytes) name its slot, for a test that edits it. */
cJSON *test_walk(cJSON *root, const char *path, cJSON **parent, char *last, size_t n);

/* The committed baselines of TEST_TARGET, the caller's to edit and delete. */
cJSON *test_committed_baselines(void);

/* A repro result's path named name (of mode, unless NULL); asserts there is one. */
const cJSON *test_path(const cJSON *result, const char *name, const char *mode);
/* A path's "check" (after 0) or "check after timing" (after 1): where schema 3 stores the id "same" there
 * (ea_paths_fold_checks), the first check's object, which is what the check after timing found. */
const cJSON *test_check(const cJSON *path, int after);

/* A classification document's $.summary recomputed from its occurrences entries, as classify writes it: what a
 * test that edits the entries calls before saving (a stored summary must agree with its entries). */
void test_resummarize(cJSON *classification);

/* Parse a graph given as text; asserts success. */
void test_parse(const char *text, fx_graph *g);
/* Index of the node named name; asserts it exists. */
int test_node(const fx_graph *g, const char *name);

#endif
