/* The rollup's reports (report.h) on the committed golden data: the same totals in the terminal,
 * markdown, HTML and v3 forms, and the HTML page loaded in a real headless browser (Debian's
 * chromium): no console message, a screenshot that is not blank, the key totals in the rendered DOM. */
#include <criterion/criterion.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "base/json.h"
#include "report/report.h"
#include "report/rollup.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%.3000s", (needle), (s))

static cJSON *golden_rollup(void)
{
    ea_rollup_opts o = {"golden", NULL, NULL};
    ea_error err;
    cJSON *doc;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    return doc;
}

/* The after total as every report prints it. */
static void after_total(const cJSON *doc, char *buf, size_t n)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "us");
    snprintf(buf, n, "%.1f us", cJSON_GetObjectItemCaseSensitive(u, "after")->valuedouble);
}

Test(report, text_and_markdown_carry_the_same_tables)
{
    cJSON *doc = golden_rollup();
    char total[64];
    after_total(doc, total, sizeof total);
    char *text = ea_report_text(doc, 10), *md = ea_report_markdown(doc);
    has(text, "Per model: the top 10 of 28"); /* 23 models of the first four ops, 5 of the ops added since */
    has(text, total);
    has(text, "seed B200 us");
    has(md, "| op | occ. | false extern |");
    has(md, "| --- | ---: |");
    has(md, "Per model (28)");
    has(md, total);
    has(md, "| aten.histc.default | 24 | 0 | true_fallback 24 | 197.4 |");
    free(text);
    free(md);
    cJSON_Delete(doc);
}

Test(report, v3_records_name_their_gpu_and_never_mix)
{
    cJSON *doc = golden_rollup(), *v3 = ea_report_v3(doc), *r;
    int after = 0, before = 0;
    cr_assert_gt(cJSON_GetArraySize(v3), 0);
    cJSON_ArrayForEach(r, v3)
    {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "benchmark"), *x = cJSON_GetObjectItemCaseSensitive(b, "extra_info");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "metric"), *v = cJSON_GetObjectItemCaseSensitive(m, "benchmark_values");
        cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring, "extern-audit-rollup");
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "model"), "name")));
        cr_assert_eq(cJSON_GetArraySize(v), 1);
        cr_assert(cJSON_IsNumber(cJSON_GetArrayItem(v, 0)));
        const char *gpu = cJSON_GetObjectItemCaseSensitive(x, "gpu")->valuestring;
        const char *kind = cJSON_GetObjectItemCaseSensitive(x, "record_type")->valuestring;
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "torch")));
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "class")));
        if (!strcmp(kind, "after")) {
            cr_assert_str_eq(gpu, "NVIDIA H200");
            after++;
        } else {
            cr_assert_str_eq(gpu, "NVIDIA B200");
            before++;
        }
    }
    cr_assert_gt(after, 0);
    cr_assert_gt(before, 0);
    cJSON_Delete(v3);
    cJSON_Delete(doc);
}

Test(report, html_is_self_contained)
{
    cJSON *doc = golden_rollup();
    char *html = ea_report_html(doc), total[64];
    after_total(doc, total, sizeof total);
    has(html, "<svg");
    has(html, total);
    cr_assert_null(strstr(html, "<script"), "the page runs no script");
    cr_assert_null(strstr(html, "src="), "the page loads nothing");
    cr_assert_null(strstr(html, "href="), "the page links nothing");
    /* the only URL is the SVG namespace, which is a name, not a fetch */
    for (const char *p = strstr(html, "http"); p; p = strstr(p + 1, "http"))
        cr_assert_eq(strncmp(p, "http://www.w3.org/2000/svg", 26), 0, "a URL in the page: %.60s", p);
    free(html);
    cJSON_Delete(doc);
}

/* ---- the page in a real browser ---- */

static const char *chromium(void)
{
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", NULL};
    for (const char *const *n = names; *n; n++)
        if (access(*n, X_OK) == 0)
            return *n;
    return NULL;
}

/* Runs chromium headless on page with what (e.g. "--dump-dom"); stdout to out, stderr to log. */
static int browse(const char *browser, const char *page, const char *what, const char *out, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-background-networking "
             "--disable-component-update --disable-sync --no-first-run --hide-scrollbars --window-size=1000,3400 "
             "--user-data-dir=%s --enable-logging=stderr --v=0 %s file://%s >%s 2>%s",
             browser, test_tmpdir(), what, page, out, log);
    return system(cmd);
}

/* Distinct RGB colours among the screenshot's pixels, up to 16 (1: a blank page). */
static int colours(const char *png)
{
    png_image img = {.version = PNG_IMAGE_VERSION};
    cr_assert(png_image_begin_read_from_file(&img, png), "%s: %s", png, img.message);
    img.format = PNG_FORMAT_RGB;
    png_bytep px = malloc(PNG_IMAGE_SIZE(img));
    cr_assert(png_image_finish_read(&img, NULL, px, 0, NULL), "%s: %s", png, img.message);
    unsigned seen[16];
    int n = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height && n < 16; i++) {
        unsigned c = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
        int k = 0;
        while (k < n && seen[k] != c)
            k++;
        if (k == n)
            seen[n++] = c;
    }
    free(px);
    return n;
}

/* Any console line in chromium's log: the page has no script, so anything logged there is an error
 * (a failed load, a parse problem). */
static void no_console(const char *log_path)
{
    char *log = test_read(log_path);
    cr_assert_null(strstr(log, ":CONSOLE"), "console output:\n%s", log);
    free(log);
}

/* The screenshots and the page the browser test looked at stay here (build/ is ignored by git). */
#define ARTEFACTS "build/test-artefacts"

/* How many times needle occurs in [s, end). */
static int count_in(const char *s, const char *end, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p && p < end; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Every bar's value in [s, end) (data-us, or data-count for a share of occurrences) is a positive number:
 * nothing is drawn as a bar of zero. Returns the bars. */
static int positive_bars(const char *s, const char *end)
{
    int n = 0;
    for (const char *p = strstr(s, "class=\"bar\""); p && p < end; p = strstr(p + 1, "class=\"bar\"")) {
        const char *v = strstr(p, "data-us=\""), *c = strstr(p, "data-count=\"");
        v = v && v < strchr(p, '>') ? v + 9 : c && c < strchr(p, '>') ? c + 12 : NULL;
        cr_assert(v, "a bar without its value: %.120s", p);
        double us = strtod(v, NULL);
        cr_assert_gt(us, 0, "a bar of %g us: %.160s", us, p);
        n++;
    }
    return n;
}

/* The rendered DOM's charts: a legend in every SVG; in every chart a log axis whose ticks carry labels with a
 * unit and gridlines; no bar of zero; an op none of whose occurrences is priced drawn with no after bar, its
 * absence written ("unpriced"). */
static void svg_checks(const char *dom, const cJSON *doc)
{
    int svgs = 0, charts = 0;
    for (const char *p = strstr(dom, "<svg"); p; p = strstr(p + 1, "<svg")) {
        const char *end = strstr(p, "</svg>");
        cr_assert(end, "an SVG that does not end");
        svgs++;
        cr_assert_gt(count_in(p, end, "class=\"key\""), 0, "SVG %d has no legend entry", svgs);
        cr_assert_eq(count_in(p, end, "class=\"legend\""), 1, "SVG %d: one legend", svgs);
        positive_bars(p, end);
        if (!count_in(p, strchr(p, '>'), "class=\"chart\""))
            continue;
        charts++;
        cr_assert_eq(count_in(p, end, "class=\"axis\" data-scale=\"log\" data-unit=\"us\""), 1, "chart %d: a log axis", charts);
        cr_assert_geq(count_in(p, end, "class=\"tick\""), 3, "chart %d: ticks", charts);
        cr_assert_eq(count_in(p, end, "class=\"tick\""), count_in(p, end, "class=\"grid\""), "chart %d: a gridline a tick", charts);
        cr_assert_eq(count_in(p, end, "microseconds, log scale"), 1, "chart %d: the axis names its unit", charts);
        for (const char *u = (const char *)strstr(p, "class=\"tick\""); u && u < end; u = strstr(u + 1, "class=\"tick\"")) {
            const char *label = strstr(u, "</text>");
            cr_assert(label && (!strncmp(label - 3, " us", 3) || !strncmp(label - 3, " ms", 3) || !strncmp(label - 2, " s", 2)),
                      "chart %d: a tick label without its unit: %.200s", charts, u);
        }
    }
    cr_assert_geq(svgs, 5, "three headline bars and two charts");
    /* one colour per class or measure: every legend key of one name has one fill on the whole page */
    for (const char *k = strstr(dom, "<g class=\"key\">"); k; k = strstr(k + 1, "<g class=\"key\">")) {
        const char *fill = strstr(k, "fill=\""), *name = strstr(k, "</text>");
        cr_assert(fill && name, "a legend key without its colour and name: %.200s", k);
        const char *start = name;
        while (start > k && start[-1] != '>')
            start--;
        for (const char *o = strstr(dom, "<g class=\"key\">"); o; o = strstr(o + 1, "<g class=\"key\">")) {
            const char *ofill = strstr(o, "fill=\""), *oname = strstr(o, "</text>"), *ostart = oname;
            while (ostart > o && ostart[-1] != '>')
                ostart--;
            if (oname - ostart == name - start && !strncmp(ostart, start, (size_t)(name - start)))
                cr_assert_eq(strncmp(ofill, fill, 14), 0, "'%.*s' drawn in two colours", (int)(name - start), start);
        }
    }
    cr_assert_eq(charts, 2, "the per-model and the per-op chart");
    const cJSON *o;
    int unpriced = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
    {
        char key[256];
        snprintf(key, sizeof key, "<g class=\"op\" data-op=\"%s\"", ej_str(o, "op"));
        const char *g = strstr(dom, key), *end = g ? strstr(g, "</g>") : NULL;
        cr_assert(g && end, "%s has its group in the op chart", ej_str(o, "op"));
        int figures = 0;
        double v[] = {ej_num(cJSON_GetObjectItemCaseSensitive(o, "seed"), "total_us"),
                      ej_num(cJSON_GetObjectItemCaseSensitive(o, "gap"), "pipeline"),
                      ej_num(cJSON_GetObjectItemCaseSensitive(o, "us"), "fabricated"),
                      ej_num(cJSON_GetObjectItemCaseSensitive(o, "us"), "after"),
                      ej_num(cJSON_GetObjectItemCaseSensitive(o, "us"), "oracle")};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            figures += v[i] > 0;
        cr_assert_eq(positive_bars(g, end), figures, "%s: a bar for each figure it has, none for those it lacks", ej_str(o, "op"));
        if (ej_num(o, "unpriced") == ej_num(o, "occurrences")) {
            unpriced++;
            cr_assert_eq(count_in(g, end, "data-why=\"unpriced\""), 2, "%s: faithful and oracle written unpriced", ej_str(o, "op"));
        }
    }
    cr_assert_geq(unpriced, 4, "the committed golden's unpriced ops are checked");
}

/* doc's page rendered by chromium: no console message, the DOM's charts checked (svg_checks), and the page and
 * its screenshot kept as ARTEFACTS/<name>.html and .png; returns the rendered DOM (malloc'd). */
static char *render_and_check(const char *browser, const cJSON *doc, const char *name)
{
    char *html = ea_report_html(doc), path[512], out[512], log[512], shot[600], keep[256];
    const char *dir = test_tmpdir();
    snprintf(path, sizeof path, "%s/%s.html", dir, name);
    snprintf(out, sizeof out, "%s/%s.dom.html", dir, name);
    snprintf(log, sizeof log, "%s/%s.chromium.log", dir, name);
    ea_error err;
    cr_assert_eq(ea_write_file_atomic(path, html, strlen(html), &err), 0, "%s", err.msg);
    /* the screenshot is kept as the test's artefact, for a person to look at; one launch gives both */
    cr_assert_eq(system("mkdir -p " ARTEFACTS), 0);
    snprintf(keep, sizeof keep, ARTEFACTS "/%s.png", name);
    snprintf(shot, sizeof shot, "--dump-dom --screenshot=%s", keep);
    unlink(keep); /* a screenshot of an earlier run must not stand in for this one's */
    cr_assert_eq(browse(browser, path, shot, out, log), 0, "chromium failed; log in %s", log);
    no_console(log);
    char *dom = test_read(out);
    svg_checks(dom, doc);
    cr_assert_gt(colours(keep), 4, "the screenshot is (nearly) blank");
    snprintf(keep, sizeof keep, ARTEFACTS "/%s.html", name);
    cr_assert_eq(ea_write_file_atomic(keep, html, strlen(html), &err), 0, "%s", err.msg);
    free(html);
    return dom;
}

Test(report_browser, the_page_renders_in_headless_chromium, .timeout = 300)
{
    const char *browser = chromium();
    if (!browser)
        cr_skip_test("chromium not installed: make deps installs it (Debian package chromium)");
    cJSON *doc = golden_rollup();
    char total[64];
    after_total(doc, total, sizeof total);
    char *dom = render_and_check(browser, doc, "rollup");
    has(dom, total);
    has(dom, "aten.index_add.default");
    has(dom, "NVIDIA B200");
    has(dom, "NVIDIA H200");
    free(dom);
    cJSON_Delete(doc);
}

/* Without baselines nothing is priced: every op and model is written unpriced, and no bar of zero is drawn. */
Test(report_browser, a_page_without_baselines_draws_no_zero, .timeout = 300)
{
    const char *browser = chromium();
    if (!browser)
        cr_skip_test("chromium not installed: make deps installs it (Debian package chromium)");
    char g[600], cmd[1400];
    snprintf(g, sizeof g, "%s/golden", test_tmpdir());
    snprintf(cmd, sizeof cmd, "mkdir -p %s/targets && cp -r golden/occurrences %s/", g, g);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    ea_rollup_opts o = {g, NULL, NULL};
    ea_error err;
    cJSON *doc;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    char *dom = render_and_check(browser, doc, "rollup-no-baselines");
    cr_assert_null(strstr(dom, "class=\"bar\" data-us"), "a time drawn without baselines");
    cr_assert_null(strstr(dom, "0.0 us"), "an unpriced figure written as 0.0 us");
    has(dom, "after on no GPU (no baselines)");
    free(dom);
    cJSON_Delete(doc);
}

/* The console check can fail: a page that logs an error is caught. */
Test(report_browser, a_console_error_is_caught, .timeout = 300)
{
    const char *browser = chromium();
    if (!browser)
        cr_skip_test("chromium not installed: make deps installs it (Debian package chromium)");
    char *page = test_write(test_tmpdir(), "bad.html", "<html><body><script>console.error('boom')</script></body></html>");
    char path[512], out[600], log[600];
    snprintf(path, sizeof path, "%s", page);
    free(page);
    snprintf(out, sizeof out, "%s.dom", path);
    snprintf(log, sizeof log, "%s.log", path);
    cr_assert_eq(browse(browser, path, "--dump-dom", out, log), 0);
    char *text = test_read(log);
    has(text, ":CONSOLE");
    free(text);
}

/* The line of text that starts (after its indent) with word, or NULL. */
static const char *line_of(const char *text, const char *word)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *q = p;
        while (*q == ' ' || *q == '|')
            q++;
        if (!strncmp(q, word, strlen(word)) && (q[strlen(word)] == ' '))
            return p;
    }
    return NULL;
}

/* The cells of a text line (split at runs of two or more blanks) or a markdown row (at " | "), joined by
 * '|' into out. */
static void cells_of(const char *line, int markdown, char *out, size_t n)
{
    size_t k = 0;
    const char *p = line;
    while (*p == ' ' || *p == '|')
        p++;
    for (; *p && *p != '\n' && k + 1 < n; p++) {
        if (markdown ? (*p == ' ' && p[1] == '|') : (*p == ' ' && p[1] == ' ')) {
            while (*p == ' ' || (markdown && *p == '|'))
                p++;
            if (*p == '\n' || !*p)
                break;
            out[k++] = '|';
        }
        out[k++] = *p;
    }
    out[k] = '\0';
}

/* Every op's row reads the same in the terminal and in markdown, and an op none of whose occurrences is priced
 * says "unpriced" in both, never 0.0 (the FFT, the views, _operator.mul). */
Test(report, text_and_markdown_rows_agree_and_unpriced_is_never_zero)
{
    cJSON *doc = golden_rollup();
    char *text = ea_report_text(doc, 0), *md = ea_report_markdown(doc);
    const cJSON *o;
    int unpriced = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
    {
        const char *op = ej_str(o, "op"), *t = line_of(text, op), *m = line_of(md, op);
        char a[1024], b[1024];
        cr_assert(t && m, "%s in both", op);
        cells_of(t, 0, a, sizeof a);
        cells_of(m, 1, b, sizeof b);
        cr_assert_str_eq(a, b, "%s: the terminal and markdown rows differ", op);
        if (ej_num(o, "unpriced") == ej_num(o, "occurrences")) {
            unpriced++;
            cr_assert_null(strstr(a, "|0.0"), "%s: unpriced printed as 0.0: %s", op, a);
            has(a, "|unpriced");
        }
    }
    cr_assert_geq(unpriced, 4, "the committed golden has four unpriced ops");
    has(text, "unpriced, not 0 us: aten._fft_c2c.default (library extern");
    free(text);
    free(md);
    cJSON_Delete(doc);
}

/* A gap term below zero is explained by a note naming the op and its figure; each staged candidate its own row. */
Test(report, negative_gap_terms_are_explained_and_candidates_have_rows)
{
    cJSON *doc = golden_rollup();
    char *text = ea_report_text(doc, 0), note[256];
    const cJSON *o;
    int negative = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
        for (const char *const *k = (const char *const[]){"lone_op_launch", "fabricated_contention", "scope", NULL}; *k; k++)
            if (ej_num(cJSON_GetObjectItemCaseSensitive(o, "gap"), *k) < 0) {
                snprintf(note, sizeof note, "%s %.1f us", ej_str(o, "op"), ej_num(cJSON_GetObjectItemCaseSensitive(o, "gap"), *k));
                has(text, note);
                negative++;
            }
    cr_assert_gt(negative, 0, "the committed golden has negative terms (histc's scope, index_add's launch)");
    has(text, "scope below zero: the faithful scope does more than the op");
    int rows = 0;
    for (const char *p = strstr(text, "\n  staged candidate "); p; p = strstr(p + 1, "\n  staged candidate "))
        rows++;
    cr_assert_eq(rows, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "candidates"), "staged")));
    free(text);
    cJSON_Delete(doc);
}
