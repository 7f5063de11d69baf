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
#include "json.h"
#include "report.h"
#include "rollup.h"

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
             "--disable-component-update --disable-sync --no-first-run --hide-scrollbars --window-size=1000,1800 "
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

Test(report_browser, the_page_renders_in_headless_chromium, .timeout = 300)
{
    const char *browser = chromium();
    if (!browser)
        cr_skip_test("chromium not installed: make deps installs it (Debian package chromium)");
    cJSON *doc = golden_rollup();
    char *html = ea_report_html(doc), total[64], path[512], out[512], log[512], shot[600];
    after_total(doc, total, sizeof total);
    const char *dir = test_tmpdir();
    snprintf(path, sizeof path, "%s/rollup.html", dir);
    snprintf(out, sizeof out, "%s/dom.html", dir);
    snprintf(log, sizeof log, "%s/chromium.log", dir);
    ea_error err;
    cr_assert_eq(ea_write_file_atomic(path, html, strlen(html), &err), 0, "%s", err.msg);
    cr_assert_eq(browse(browser, path, "--dump-dom", out, log), 0, "chromium failed; log in %s", log);
    no_console(log);
    char *dom = test_read(out);
    has(dom, total);
    has(dom, "aten.index_add.default");
    has(dom, "NVIDIA B200");
    has(dom, "NVIDIA H200");
    free(dom);
    snprintf(shot, sizeof shot, "--screenshot=%s/shot.png", dir);
    cr_assert_eq(browse(browser, path, shot, out, log), 0, "chromium failed; log in %s", log);
    snprintf(shot, sizeof shot, "%s/shot.png", dir);
    cr_assert_gt(colours(shot), 4, "the screenshot is (nearly) blank");
    free(html);
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
