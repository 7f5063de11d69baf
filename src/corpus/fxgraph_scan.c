/* fxgraph_scan.c: the cursor primitives of the graph-dump reader and the grammar of argument
 * values (literals, node names, lists, dtypes, layouts, devices). Everything here works within the
 * current line, which need not be NUL-terminated. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/fxgraph_impl.h"

/* Messages quote at most this much of the offending text, enough to recognise it. */
#define EXCERPT_MAX 48

int fxp_fail_span(fx_parser *ps, const char *what, const char *at, size_t len)
{
    if (len == 0)
        return ea_fail(ps->err, "%s:%d: expected %s, got end of line", ps->label, ps->line, what);
    int n = len > EXCERPT_MAX ? EXCERPT_MAX : (int)len;
    return ea_fail(ps->err, "%s:%d: expected %s, got '%.*s%s'", ps->label, ps->line, what, n, at,
                   len > EXCERPT_MAX ? "..." : "");
}

int fxp_fail(fx_parser *ps, const char *what)
{
    return fxp_fail_span(ps, what, ps->p, (size_t)(ps->eol - ps->p));
}

void fxp_skip_ws(fx_parser *ps)
{
    while (ps->p < ps->eol && (*ps->p == ' ' || *ps->p == '\t'))
        ps->p++;
}

static int looking_at(const fx_parser *ps, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(ps->eol - ps->p) >= n && memcmp(ps->p, lit, n) == 0;
}

int fxp_eat(fx_parser *ps, const char *lit)
{
    if (!looking_at(ps, lit))
        return 0;
    ps->p += strlen(lit);
    return 1;
}

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

size_t fxp_ident_len(const fx_parser *ps)
{
    const char *q = ps->p;
    if (q == ps->eol || (*q >= '0' && *q <= '9'))
        return 0;
    while (q < ps->eol && is_ident_char(*q))
        q++;
    return (size_t)(q - ps->p);
}

int fxp_eat_word(fx_parser *ps, const char *word)
{
    size_t n = strlen(word);
    if (fxp_ident_len(ps) != n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

void *fxp_alloc(fx_parser *ps, size_t size, size_t align)
{
    void *m = fx_arena_alloc(ps->g->arena, size, align);
    if (!m)
        ea_fail(ps->err, "%s:%d: out of memory", ps->label, ps->line);
    return m;
}

const char *fxp_strndup(fx_parser *ps, const char *s, size_t len)
{
    char *d = fxp_alloc(ps, len + 1, 1);
    if (d)
        memcpy(d, s, len); /* the arena is zeroed, so d[len] is already the terminator */
    return d;
}

int fxp_push(fx_parser *ps, const fx_arg *a)
{
    if (ps->nstack == ps->capstack) {
        int cap = ps->capstack ? 2 * ps->capstack : 64;
        fx_arg *s = realloc(ps->stack, (size_t)cap * sizeof *s);
        if (!s)
            return ea_fail(ps->err, "%s:%d: out of memory", ps->label, ps->line);
        ps->stack = s;
        ps->capstack = cap;
    }
    ps->stack[ps->nstack++] = *a;
    return 0;
}

int fxp_take(fx_parser *ps, int base, fx_arg **items, int *n)
{
    *n = ps->nstack - base;
    *items = NULL;
    if (*n > 0) {
        *items = fxp_alloc(ps, (size_t)*n * sizeof **items, _Alignof(fx_arg));
        if (!*items)
            return -1;
        memcpy(*items, ps->stack + base, (size_t)*n * sizeof **items);
    }
    ps->nstack = base;
    return 0;
}

/* ---- values ---- */

/* Layouts and memory formats: kept by name, they only need to be recognised. */
static const char *const torch_enums[] = {
    "torch.strided",       "torch.sparse_coo",      "torch.contiguous_format",
    "torch.channels_last", "torch.channels_last_3d", "torch.preserve_format",
};

static int parse_torch_literal(fx_parser *ps, fx_arg *out)
{
    const char *start = ps->p;
    ps->p += strlen("torch.");
    size_t len = (size_t)(ps->p - start) + fxp_ident_len(ps);
    ps->p = start + len;
    out->dtype = ea_dtype_from_torch(start, len);
    if (out->dtype != EA_DTYPE_INVALID) {
        out->kind = ARG_DTYPE;
        return 0;
    }
    for (size_t i = 0; i < sizeof torch_enums / sizeof torch_enums[0]; i++) {
        if (strlen(torch_enums[i]) == len && memcmp(torch_enums[i], start, len) == 0) {
            out->kind = ARG_ENUM;
            out->s = torch_enums[i];
            return 0;
        }
    }
    return fxp_fail_span(ps, "torch dtype, layout or memory format", start, len);
}

/* The text between matching quotes; the dumps print no escapes inside them. */
static int scan_string(fx_parser *ps, const char **s, size_t *len)
{
    char quote = *ps->p;
    const char *close = memchr(ps->p + 1, quote, (size_t)(ps->eol - ps->p - 1));
    if (!close)
        return fxp_fail(ps, "string closed on the same line");
    *s = ps->p + 1;
    *len = (size_t)(close - *s);
    ps->p = close + 1;
    return 0;
}

/* device(type='cuda', index=0) -> "cuda:0"; device(type='cpu') -> "cpu". */
static int parse_device(fx_parser *ps, fx_arg *out)
{
    const char *start = ps->p, *type = NULL;
    size_t type_len = 0;
    char buf[64];
    if (!fxp_eat(ps, "device(type=") || ps->p == ps->eol || (*ps->p != '\'' && *ps->p != '"'))
        return fxp_fail_span(ps, "device(type='...')", start, (size_t)(ps->eol - start));
    if (scan_string(ps, &type, &type_len))
        return -1;
    if (type_len == 0 || type_len > 16)
        return fxp_fail_span(ps, "device type such as 'cuda'", type, type_len);
    int n = snprintf(buf, sizeof buf, "%.*s", (int)type_len, type);
    if (fxp_eat(ps, ", index=")) {
        const char *idx = ps->p;
        while (ps->p < ps->eol && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
        if (ps->p == idx || ps->p - idx > 9)
            return fxp_fail(ps, "device index");
        n += snprintf(buf + n, sizeof buf - (size_t)n, ":%.*s", (int)(ps->p - idx), idx);
    }
    if (!fxp_eat(ps, ")"))
        return fxp_fail(ps, "')' closing device(...)");
    out->kind = ARG_DEVICE;
    out->s = fxp_strndup(ps, buf, (size_t)n);
    return out->s ? 0 : -1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static const char *skip_digits(const char *q, const char *end)
{
    while (q < end && is_digit(*q))
        q++;
    return q;
}

/* Python reprs: 3, -1, 0.125, 1e-05, 2.0, -inf. */
static int parse_number(fx_parser *ps, fx_arg *out)
{
    const char *start = ps->p, *eol = ps->eol;
    ps->p += *start == '-';
    if (fxp_eat_word(ps, "inf")) {
        out->kind = ARG_FLOAT;
        out->f = *start == '-' ? -HUGE_VAL : HUGE_VAL;
        return 0;
    }
    const char *q = skip_digits(ps->p, eol);
    size_t ndigits = (size_t)(q - ps->p);
    int is_float = 0;
    if (q < eol && *q == '.') {
        const char *frac = q + 1;
        q = skip_digits(frac, eol);
        ndigits += (size_t)(q - frac);
        is_float = 1;
    }
    if (ndigits && q < eol && (*q == 'e' || *q == 'E')) {
        const char *exp = q + 1 + (q + 1 < eol && (q[1] == '+' || q[1] == '-'));
        const char *exp_end = skip_digits(exp, eol);
        if (exp_end > exp) {
            q = exp_end;
            is_float = 1;
        }
    }
    char buf[64];
    size_t len = (size_t)(q - start);
    /* A dangling exponent or a trailing letter or dot leaves the literal glued to junk. */
    if (ndigits == 0 || len >= sizeof buf || (q < eol && (is_ident_char(*q) || *q == '.')))
        return fxp_fail_span(ps, "number", start, (size_t)(eol - start));
    memcpy(buf, start, len);
    buf[len] = '\0';
    errno = 0;
    if (is_float) {
        out->kind = ARG_FLOAT;
        out->f = strtod(buf, NULL);
    } else {
        out->kind = ARG_INT;
        out->i = strtoll(buf, NULL, 10);
    }
    if (errno == ERANGE && !is_float)
        return fxp_fail_span(ps, "integer within int64", start, len);
    ps->p = q;
    return 0;
}

/* A bare identifier: a Python constant or the name of an earlier node. */
static int parse_name(fx_parser *ps, fx_arg *out)
{
    if (fxp_eat_word(ps, "None")) {
        out->kind = ARG_NONE;
    } else if (fxp_eat_word(ps, "True")) {
        out->kind = ARG_BOOL;
        out->i = 1;
    } else if (fxp_eat_word(ps, "False")) {
        out->kind = ARG_BOOL;
    } else if (fxp_eat_word(ps, "inf")) {
        out->kind = ARG_FLOAT;
        out->f = HUGE_VAL;
    } else if (fxp_eat_word(ps, "nan")) {
        out->kind = ARG_FLOAT;
        out->f = NAN;
    } else {
        size_t len = fxp_ident_len(ps);
        out->node = fx_index_find(ps->g, ps->p, len);
        if (out->node < 0)
            return fxp_fail_span(ps, "name of an earlier node", ps->p, len);
        out->kind = ARG_NODE;
        ps->p += len;
    }
    return 0;
}

int fxp_parse_value(fx_parser *ps, fx_arg *out)
{
    memset(out, 0, sizeof *out);
    out->node = -1;
    out->dtype = EA_DTYPE_INVALID;
    if (ps->p == ps->eol)
        return fxp_fail(ps, "value");
    char c = *ps->p;
    if (c == '[') {
        out->kind = ARG_LIST;
        return fxp_parse_sequence(ps, ']', 0, &out->items, &out->nitems);
    }
    if (c == '\'' || c == '"') {
        const char *s = NULL;
        size_t len = 0;
        if (scan_string(ps, &s, &len))
            return -1;
        out->kind = ARG_STR;
        out->s = fxp_strndup(ps, s, len);
        return out->s ? 0 : -1;
    }
    if (c == '-' || c == '.' || is_digit(c))
        return parse_number(ps, out);
    size_t len = fxp_ident_len(ps);
    if (len == 0)
        return fxp_fail(ps, "value");
    if (looking_at(ps, "torch."))
        return parse_torch_literal(ps, out);
    if (looking_at(ps, "device("))
        return parse_device(ps, out);
    return parse_name(ps, out);
}

/* A keyword argument "key = value" starts with an identifier followed by a lone '='. */
static int parse_keyword(fx_parser *ps, const char **key)
{
    const char *start = ps->p;
    size_t len = fxp_ident_len(ps);
    ps->p += len;
    fxp_skip_ws(ps);
    if (len == 0 || !fxp_eat(ps, "=") || (ps->p < ps->eol && *ps->p == '=')) {
        ps->p = start;
        *key = NULL;
        return 0;
    }
    fxp_skip_ws(ps);
    *key = fxp_strndup(ps, start, len);
    return *key ? 0 : -1;
}

int fxp_parse_sequence(fx_parser *ps, char close, int keywords, fx_arg **items, int *n)
{
    int base = ps->nstack, seen_keyword = 0;
    if (ps->depth >= FX_MAX_NESTING)
    {
        char what[48];
        snprintf(what, sizeof what, "lists nested at most %d deep", FX_MAX_NESTING);
        return fxp_fail(ps, what);
    }
    ps->depth++;
    ps->p++; /* the opening bracket */
    for (;;) {
        fxp_skip_ws(ps);
        if (ps->p < ps->eol && *ps->p == close)
            break;
        const char *key = NULL, *start = ps->p;
        fx_arg a;
        if (keywords && parse_keyword(ps, &key))
            return -1;
        if (seen_keyword && !key)
            return fxp_fail_span(ps, "keyword argument after keyword arguments", start,
                                 (size_t)(ps->eol - start));
        seen_keyword |= key != NULL;
        if (fxp_parse_value(ps, &a))
            return -1;
        a.key = key;
        if (fxp_push(ps, &a))
            return -1;
        fxp_skip_ws(ps);
        if (!fxp_eat(ps, ",") && (ps->p == ps->eol || *ps->p != close))
            return fxp_fail(ps, close == ']' ? "',' or ']'" : "',' or ')'");
    }
    ps->p++;
    ps->depth--;
    return fxp_take(ps, base, items, n);
}
