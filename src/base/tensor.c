/* tensor.c: dtype tables and the annotation parser for strided tensor descriptors. */
#include "base/tensor.h"
#include "base/tensor_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int size;
    int is_float;
} dtype_info[EA_DTYPE_COUNT] = {
    [EA_BF16] = {"bf16", 2, 1}, [EA_F16] = {"f16", 2, 1}, [EA_F32] = {"f32", 4, 1},
    [EA_F64] = {"f64", 8, 1},   [EA_I8] = {"i8", 1, 0},   [EA_I16] = {"i16", 2, 0},
    [EA_I32] = {"i32", 4, 0},   [EA_I64] = {"i64", 8, 0}, [EA_U8] = {"u8", 1, 0},
    [EA_U64] = {"u64", 8, 0},   [EA_B8] = {"b8", 1, 0},   [EA_C64] = {"c64", 8, 0},
};

/* Graph literals name dtypes the way torch spells them, aliases included. */
static const struct {
    const char *name;
    ea_dtype dt;
} torch_dtypes[] = {
    {"torch.float32", EA_F32}, {"torch.float", EA_F32},    {"torch.float16", EA_F16},
    {"torch.half", EA_F16},    {"torch.bfloat16", EA_BF16}, {"torch.float64", EA_F64},
    {"torch.double", EA_F64},  {"torch.int8", EA_I8},      {"torch.int16", EA_I16},
    {"torch.int32", EA_I32},   {"torch.int", EA_I32},      {"torch.int64", EA_I64},
    {"torch.long", EA_I64},    {"torch.uint8", EA_U8},     {"torch.uint64", EA_U64},
    {"torch.bool", EA_B8},     {"torch.complex64", EA_C64},
};

static int valid_dtype(ea_dtype dt)
{
    return dt >= 0 && dt < EA_DTYPE_COUNT;
}

const char *ea_dtype_name(ea_dtype dt)
{
    return valid_dtype(dt) ? dtype_info[dt].name : "invalid";
}

int ea_dtype_size(ea_dtype dt)
{
    return valid_dtype(dt) ? dtype_info[dt].size : 0;
}

int ea_dtype_is_float(ea_dtype dt)
{
    return valid_dtype(dt) && dtype_info[dt].is_float;
}

static int span_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

ea_dtype ea_dtype_from_name(const char *s, size_t len)
{
    for (int dt = 0; dt < EA_DTYPE_COUNT; dt++)
        if (span_is(s, len, dtype_info[dt].name))
            return (ea_dtype)dt;
    return EA_DTYPE_INVALID;
}

ea_dtype ea_dtype_from_torch(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof torch_dtypes / sizeof torch_dtypes[0]; i++)
        if (span_is(s, len, torch_dtypes[i].name))
            return torch_dtypes[i].dt;
    return EA_DTYPE_INVALID;
}

/* ---- annotation parser ---- */

typedef struct {
    const char *p, *end;
    const char *where;
    ea_error *err;
} cursor;

/* Messages quote at most this much of the offending text, enough to recognise it. */
#define EXCERPT_MAX 40

/* "<where>: expected <what>, got '<text from at>'", what given printf-style. */
__attribute__((format(printf, 3, 4)))
static int fail(const cursor *c, const char *at, const char *fmt, ...)
{
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int n = (int)(c->end - at);
    return ea_fail(c->err, "%s: expected %s, got '%.*s%s'", c->where, what,
                   n > EXCERPT_MAX ? EXCERPT_MAX : n, at, n > EXCERPT_MAX ? "..." : "");
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_lower_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || is_digit(ch);
}

/* Characters a sympy-printed size expression may use ("(((s1 - 1)//2)) + 1", "Max(1, s0)"). */
static int is_expr_char(char ch)
{
    switch (ch) {
    case '_': case ' ': case '(': case ')': case '*': case '+': case '-': case '/': case '%': case ',':
        return 1;
    default:
        return is_lower_alnum(ch) || (ch >= 'A' && ch <= 'Z');
    }
}

static const char *skip_spaces(const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    return p;
}

static int span_within(const char *p, const char *q, const char *set)
{
    for (; p < q; p++)
        if (!strchr(set, *p))
            return 0;
    return 1;
}

/* A decimal literal spanning exactly [p, q); -1 if the span is anything else or overflows. */
static int parse_decimal(const char *p, const char *q, int64_t *out)
{
    int neg = p < q && *p == '-';
    p += neg;
    if (p == q)
        return -1;
    uint64_t v = 0, limit = (uint64_t)INT64_MAX + (uint64_t)neg;
    for (; p < q; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (!is_digit(*p) || v > (limit - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* One dimension of a size or stride list: a non-negative integer, or a symbolic expression
 * (stored as -1). Ends before the ',' or ']' that closes it at parenthesis depth 0. */
static int parse_dim(cursor *c, const char *kind, int64_t *out, int *symbolic)
{
    const char *start = skip_spaces(c->p, c->end), *q = start;
    int depth = 0;
    while (q < c->end && (depth > 0 || (*q != ',' && *q != ']'))) {
        depth += (*q == '(') - (*q == ')');
        if (!is_expr_char(*q) || depth < 0)
            return fail(c, start, "%s (integer or symbolic expression)", kind);
        q++;
    }
    if (q == c->end)
        return fail(c, c->p, "']' closing the dimension list");
    const char *last = q;
    while (last > start && last[-1] == ' ')
        last--;
    if (last == start)
        return fail(c, start, "%s (integer or symbolic expression)", kind);
    c->p = q;
    if (parse_decimal(start, last, out) == 0)
        return *out < 0 ? fail(c, start, "non-negative %s", kind)
               : *out > EA_TENSOR_MAX ? fail(c, start, "%s below 2^53", kind) : 0;
    if (span_within(start, last, "-0123456789")) /* digits only, yet no int64: an overflow */
        return fail(c, start, "%s within int64", kind);
    *out = -1;
    *symbolic = 1;
    return 0;
}

/* "[d0, d1, ...]" into dims; *n gets the count. */
static int parse_dims(cursor *c, const char *kind, int64_t *dims, int *n, int *symbolic)
{
    if (c->p >= c->end || *c->p != '[')
        return fail(c, c->p, "'['");
    c->p++;
    *n = 0;
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return 0;
    }
    for (;;) {
        if (*n == EA_MAX_DIMS)
            return fail(c, c->p, "at most %d dimensions", EA_MAX_DIMS);
        if (parse_dim(c, kind, &dims[*n], symbolic))
            return -1;
        (*n)++;
        if (*c->p++ == ']') /* parse_dim stopped on ',' or ']' */
            return 0;
    }
}

static int parse_device(cursor *c, char *device, size_t cap)
{
    const char *start = c->p, *q = start;
    while (q < c->end && *q >= 'a' && *q <= 'z')
        q++;
    if (q == start)
        return fail(c, start, "device (cuda:0, cpu)");
    if (q < c->end && *q == ':') {
        const char *idx = ++q;
        while (q < c->end && is_digit(*q))
            q++;
        if (q == idx)
            return fail(c, start, "device index after ':'");
    }
    if ((size_t)(q - start) >= cap)
        return fail(c, start, "device name of at most %zu characters", cap - 1);
    if (q != c->end)
        return fail(c, q, "end of annotation after device");
    memcpy(device, start, (size_t)(q - start));
    device[q - start] = '\0';
    c->p = q;
    return 0;
}

/* numel and extent at most EA_TENSOR_MAX, so ea_tensor_numel and ea_tensor_extent cannot overflow
 * and every count stays exact in a JSON number. Each size and stride is already at most that. */
static int within_bounds(cursor *c, const char *text, const ea_tensor *t)
{
    int64_t numel = 1, last = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 0)
            return 0;
        if (numel > EA_TENSOR_MAX / t->sizes[d])
            return fail(c, text, "a numel below 2^53");
        numel *= t->sizes[d];
    }
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] > 1 && t->strides[d] > (EA_TENSOR_MAX - last) / (t->sizes[d] - 1))
            return fail(c, text, "a storage extent below 2^53 elements");
        last += (t->sizes[d] - 1) * t->strides[d];
    }
    return 0;
}

int ea_tensor_parse(const char *text, size_t len, const char *where, ea_tensor *out, ea_error *err)
{
    cursor c = {text, text + len, where, err};
    ea_tensor t;
    memset(&t, 0, sizeof t);
    const char *q = text;
    while (q < c.end && is_lower_alnum(*q))
        q++;
    t.dtype = ea_dtype_from_name(text, (size_t)(q - text));
    if (t.dtype == EA_DTYPE_INVALID)
        return fail(&c, text, "dtype (bf16, f16, f32, f64, i8, i16, i32, i64, u8, u64, b8, c64)");
    c.p = q;
    int nstrides;
    const char *strides_at;
    if (parse_dims(&c, "size", t.sizes, &t.ndim, &t.symbolic))
        return -1;
    strides_at = c.p;
    if (parse_dims(&c, "stride", t.strides, &nstrides, &t.symbolic))
        return -1;
    if (nstrides != t.ndim)
        return fail(&c, strides_at, "%d strides, one per size", t.ndim);
    if (parse_device(&c, t.device, sizeof t.device) || (!t.symbolic && within_bounds(&c, text, &t)))
        return -1;
    *out = t;
    return 0;
}

/* ---- layout queries ---- */

/* Appends at buf + *at; *at stays below n so the text is always terminated and never overrun. */
__attribute__((format(printf, 4, 5)))
static void put(char *buf, size_t n, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *at, n - *at, fmt, ap);
    va_end(ap);
    if (w > 0)
        *at += (size_t)w < n - *at ? (size_t)w : n - *at - 1;
}

static void put_dims(char *buf, size_t n, size_t *at, const int64_t *dims, int ndim)
{
    put(buf, n, at, "[");
    for (int d = 0; d < ndim; d++) {
        const char *sep = d ? ", " : "";
        if (dims[d] < 0)
            put(buf, n, at, "%s?", sep);
        else
            put(buf, n, at, "%s%lld", sep, (long long)dims[d]);
    }
    put(buf, n, at, "]");
}

int ea_tensor_format(const ea_tensor *t, char *buf, size_t n)
{
    if (n == 0)
        return 0;
    size_t at = 0;
    buf[0] = '\0';
    put(buf, n, &at, "%s", ea_dtype_name(t->dtype));
    put_dims(buf, n, &at, t->sizes, t->ndim);
    put_dims(buf, n, &at, t->strides, t->ndim);
    put(buf, n, &at, "%s", t->device);
    return (int)at;
}

int64_t ea_tensor_numel(const ea_tensor *t)
{
    if (t->symbolic)
        return -1;
    int64_t numel = 1;
    for (int d = 0; d < t->ndim; d++)
        numel *= t->sizes[d];
    return numel;
}

int64_t ea_tensor_extent(const ea_tensor *t)
{
    int64_t numel = ea_tensor_numel(t);
    if (numel <= 0)
        return numel;
    int64_t last = t->offset;
    for (int d = 0; d < t->ndim; d++)
        last += (t->sizes[d] - 1) * t->strides[d];
    return last + 1;
}

/* True when every dim of size > 1, taken in order[], has the stride a dense layout in that order
 * would give it. Size-1 dims never move the address, so their strides are free. */
static int dense_in_order(const ea_tensor *t, const int *order)
{
    int64_t expected = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        int d = order[i];
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] != expected)
            return 0;
        expected *= t->sizes[d];
    }
    return 1;
}

int ea_tensor_is_contiguous(const ea_tensor *t)
{
    static const int row_major[EA_MAX_DIMS] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t numel = ea_tensor_numel(t);
    if (numel < 0)
        return 0;
    return numel == 0 || dense_in_order(t, row_major);
}

/* C > 1 needs no test of its own: with size-1 dims ignored, an NHWC-dense tensor with C == 1 is
 * NCHW-dense as well, and contiguous tensors are excluded. */
int ea_tensor_is_channels_last(const ea_tensor *t)
{
    static const int nhwc[4] = {0, 2, 3, 1};
    if (t->ndim != 4 || t->symbolic || ea_tensor_numel(t) == 0)
        return 0;
    return dense_in_order(t, nhwc) && !ea_tensor_is_contiguous(t);
}

int ea_tensor_check_storage(const ea_tensor *t, int64_t storage_numel, const char *where,
                            ea_error *err)
{
    int64_t need = ea_tensor_extent(t);
    if (need < 0)
        return ea_fail(err, "%s: expected concrete sizes and strides to check storage, got symbolic",
                       where);
    if (need > storage_numel)
        return ea_fail(err, "%s: stride overruns storage: view needs %lld elements, storage has %lld",
                       where, (long long)need, (long long)storage_numel);
    return 0;
}

int ea_tensor_equal(const ea_tensor *a, const ea_tensor *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || a->offset != b->offset)
        return 0;
    size_t n = (size_t)a->ndim * sizeof a->sizes[0];
    return memcmp(a->sizes, b->sizes, n) == 0 && memcmp(a->strides, b->strides, n) == 0;
}
