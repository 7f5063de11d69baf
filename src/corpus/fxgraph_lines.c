/* fxgraph_lines.c: the line grammar of a graph dump: the class header, the forward() signature
 * (placeholders), node lines, provenance comments and the closing return. */
#include <stdio.h>
#include <string.h>

#include "corpus/fxgraph_impl.h"

typedef enum { WANT_CLASS, WANT_DEF, IN_BODY, AFTER_RETURN } section;

typedef struct {
    fx_parser *ps;
    fx_graph *g;
    size_t nlines;
    int source; /* provenance of the nodes that follow, -1 after "# No stacktrace found" */
    /* "<label>:<line>" for annotation messages; the label part is written once per file because
     * formatting it per node costs more than the rest of the annotation parse. */
    char where[4096 + 16];
    size_t where_label_len;
} reader;

static size_t count_char(const char *p, const char *end, char c)
{
    size_t n = 0;
    while ((p = memchr(p, c, (size_t)(end - p)))) {
        n++;
        p++;
    }
    return n;
}

static const char *find_str(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, lit, n) == 0)
            return p;
    return NULL;
}

static int expect_eol(fx_parser *ps)
{
    fxp_skip_ws(ps);
    return ps->p == ps->eol ? 0 : fxp_fail(ps, "end of line");
}

/* Sized once, before the first node: every line after the signature yields at most one node or
 * source, and every placeholder in the signature follows a comma. */
static int alloc_graph(reader *r, size_t max_placeholders)
{
    fx_graph *g = r->g;
    size_t cap = r->nlines + max_placeholders;
    g->nodes = fxp_alloc(r->ps, cap * sizeof *g->nodes, _Alignof(fx_node));
    g->sources = fxp_alloc(r->ps, r->nlines * sizeof *g->sources, _Alignof(fx_source));
    if (!g->nodes || !g->sources)
        return -1;
    g->index = fx_index_new(g->arena, (int)cap);
    return g->index ? 0 : ea_fail(r->ps->err, "%s: out of memory", r->ps->label);
}

/* Claims the next node slot for the name at the cursor; fx_index_add publishes it once its
 * right-hand side parsed, so a node can never reference itself. */
static fx_node *start_node(reader *r)
{
    fx_parser *ps = r->ps;
    size_t len = fxp_ident_len(ps);
    if (len == 0) {
        fxp_fail(ps, "node name");
        return NULL;
    }
    if (fx_index_find(r->g, ps->p, len) >= 0) {
        fxp_fail_span(ps, "a name not defined before", ps->p, len);
        return NULL;
    }
    fx_node *n = &r->g->nodes[r->g->nnodes];
    n->name = fxp_strndup(ps, ps->p, len);
    n->line = ps->line;
    n->source = r->source;
    ps->p += len;
    return n->name ? n : NULL;
}

static const char *where_here(reader *r)
{
    char digits[16], *d = digits + sizeof digits;
    unsigned line = (unsigned)r->ps->line;
    do
        *--d = (char)('0' + line % 10);
    while (line /= 10);
    size_t n = (size_t)(digits + sizeof digits - d);
    memcpy(r->where + r->where_label_len, d, n);
    r->where[r->where_label_len + n] = '\0';
    return r->where;
}

/* ': "<annotation>"' after a node or placeholder name. */
static int parse_annotation(reader *r, fx_node *n)
{
    fx_parser *ps = r->ps;
    fxp_skip_ws(ps);
    if (!fxp_eat(ps, "\""))
        return fxp_fail(ps, "'\"' opening the annotation");
    const char *text = ps->p, *close = memchr(text, '"', (size_t)(ps->eol - text));
    if (!close)
        return fxp_fail(ps, "'\"' closing the annotation");
    size_t len = (size_t)(close - text);
    ps->p = close + 1;
    n->has_ann = 1;
    n->ann_text = fxp_strndup(ps, text, len);
    if (!n->ann_text)
        return -1;
    if (len > 5 && memcmp(text, "Sym(", 4) == 0 && text[len - 1] == ')')
        return 0;
    n->ann_is_tensor = 1;
    return ea_tensor_parse(text, len, where_here(r), &n->ann, ps->err);
}

static int parse_class(reader *r)
{
    fx_parser *ps = r->ps;
    static const char *const what = "'class GraphModule(torch.nn.Module):'";
    size_t len;
    if (!fxp_eat(ps, "class "))
        return fxp_fail(ps, what);
    /* torch prints a module built from a lambda (some MoE and backward graphs) as class <lambda> */
    if (!fxp_eat(ps, "<lambda>")) {
        if ((len = fxp_ident_len(ps)) == 0)
            return fxp_fail(ps, what);
        ps->p += len;
    }
    if (!fxp_eat(ps, "(torch.nn.Module):"))
        return fxp_fail(ps, what);
    return expect_eol(ps);
}

static int parse_signature(reader *r)
{
    fx_parser *ps = r->ps;
    if (!fxp_eat(ps, "def forward(self"))
        return fxp_fail(ps, "'def forward(self, ...):'");
    if (alloc_graph(r, count_char(ps->p, ps->eol, ',')))
        return -1;
    for (;;) {
        fxp_skip_ws(ps);
        if (fxp_eat(ps, ")"))
            break;
        if (!fxp_eat(ps, ","))
            return fxp_fail(ps, "',' or ')' in the forward() signature");
        fxp_skip_ws(ps);
        fx_node *n = start_node(r);
        if (!n)
            return -1;
        n->kind = FX_PLACEHOLDER;
        if (fxp_eat(ps, ":") && parse_annotation(r, n))
            return -1;
        fx_index_add(r->g, r->g->nnodes++);
    }
    if (!fxp_eat(ps, ":"))
        return fxp_fail(ps, "':' ending the forward() signature");
    return expect_eol(ps);
}

/* "torch.ops.<namespace>.<op>.<overload>(args)"; the target keeps the part meta.json spells. */
static int parse_op_call(reader *r, fx_node *n)
{
    fx_parser *ps = r->ps;
    static const char *const what = "torch.ops.<namespace>.<op>.<overload>(...)";
    const char *target = ps->p;
    for (int part = 0; part < 3; part++) {
        size_t len = fxp_ident_len(ps);
        ps->p += len;
        if (len == 0 || (part < 2 && !fxp_eat(ps, ".")))
            return fxp_fail_span(ps, what, target, (size_t)(ps->eol - target));
    }
    if (ps->p == ps->eol || *ps->p != '(')
        return fxp_fail(ps, "'(' opening the call arguments");
    n->target = fxp_strndup(ps, target, (size_t)(ps->p - target));
    if (!n->target)
        return -1;
    return fxp_parse_sequence(ps, ')', 1, &n->args, &n->nargs);
}

/* "_tensor_constant0 = self._tensor_constant0": the target is the attribute name. */
static int parse_get_attr(reader *r, fx_node *n)
{
    fx_parser *ps = r->ps;
    size_t len = fxp_ident_len(ps);
    if (len == 0)
        return fxp_fail(ps, "attribute name after 'self.'");
    n->kind = FX_GET_ATTR;
    n->target = fxp_strndup(ps, ps->p, len);
    ps->p += len;
    return n->target ? 0 : -1;
}

/* Symbolic arithmetic; "//" goes before any one-character operator it could be mistaken for. */
static const struct {
    const char *op, *target;
} sym_ops[] = {
    {"//", "_operator.floordiv"}, {"*", "_operator.mul"}, {"+", "_operator.add"}, {"-", "_operator.sub"},
};

/* "getitem = sort[0]" or symbolic arithmetic "mul_2 = arg2_1 * arg3_1". */
static int parse_operator(reader *r, fx_node *n)
{
    fx_parser *ps = r->ps;
    const char *start = ps->p;
    int base = ps->nstack;
    fx_arg lhs, rhs;
    if (fxp_parse_value(ps, &lhs) || fxp_push(ps, &lhs))
        return -1;
    if (fxp_eat(ps, "[")) {
        if (lhs.kind != ARG_NODE)
            return fxp_fail_span(ps, "node name before '['", start, (size_t)(ps->eol - start));
        if (fxp_parse_value(ps, &rhs))
            return -1;
        if (rhs.kind != ARG_INT || !fxp_eat(ps, "]"))
            return fxp_fail_span(ps, "integer index in '[...]'", start, (size_t)(ps->eol - start));
        n->target = "_operator.getitem";
    } else {
        fxp_skip_ws(ps);
        for (size_t i = 0; i < sizeof sym_ops / sizeof sym_ops[0] && !n->target; i++)
            if (fxp_eat(ps, sym_ops[i].op))
                n->target = sym_ops[i].target;
        if (!n->target)
            return fxp_fail(ps, "'torch.ops...', 'self...', '[' or an operator (*, +, -, //)");
        fxp_skip_ws(ps);
        if (fxp_parse_value(ps, &rhs))
            return -1;
    }
    if (fxp_push(ps, &rhs))
        return -1;
    return fxp_take(ps, base, &n->args, &n->nargs);
}

/* After ';' FX prints only "a = b = None" to drop references; anything else is not understood. */
static int parse_cleanup(reader *r)
{
    fx_parser *ps = r->ps;
    do {
        fxp_skip_ws(ps);
        size_t len = fxp_ident_len(ps);
        if (len == 0 || fx_index_find(r->g, ps->p, len) < 0)
            return fxp_fail_span(ps, "name of an earlier node in 'x = None' cleanup", ps->p,
                                 len ? len : (size_t)(ps->eol - ps->p));
        ps->p += len;
        fxp_skip_ws(ps);
        if (!fxp_eat(ps, "="))
            return fxp_fail(ps, "'=' in 'x = None' cleanup");
        fxp_skip_ws(ps);
    } while (!fxp_eat_word(ps, "None"));
    return 0;
}

static int parse_node(reader *r)
{
    fx_parser *ps = r->ps;
    fx_node *n = start_node(r);
    if (!n)
        return -1;
    if (fxp_eat(ps, ":") && parse_annotation(r, n))
        return -1;
    fxp_skip_ws(ps);
    if (!fxp_eat(ps, "="))
        return fxp_fail(ps, "':' or '=' after the node name");
    fxp_skip_ws(ps);
    int rc;
    n->kind = FX_CALL;
    if (fxp_eat(ps, "torch.ops.")) {
        rc = parse_op_call(r, n);
    } else if (fxp_eat(ps, "self.")) {
        rc = parse_get_attr(r, n);
    } else {
        rc = parse_operator(r, n);
    }
    if (rc)
        return -1;
    fx_index_add(r->g, r->g->nnodes++);
    fxp_skip_ws(ps);
    if (fxp_eat(ps, ";") && parse_cleanup(r))
        return -1;
    return expect_eol(ps);
}

static int parse_line_number(const char *p, const char *end, int *out)
{
    if (p == end || end - p > 9)
        return -1;
    *out = 0;
    for (; p < end; p++)
        *out = *out * 10 + (*p - '0');
    return 0;
}

/* "# File: <path>:<line> in <func>, code: <code>"; the path may itself hold ':'. */
static int parse_file_comment(reader *r)
{
    fx_parser *ps = r->ps;
    const char *path = ps->p, *colon = path, *digits_end = NULL;
    for (; (colon = memchr(colon, ':', (size_t)(ps->eol - colon))); colon++) {
        digits_end = colon + 1;
        while (digits_end < ps->eol && *digits_end >= '0' && *digits_end <= '9')
            digits_end++;
        if (digits_end > colon + 1 && find_str(digits_end, ps->eol, " in ") == digits_end)
            break;
    }
    const char *func = colon ? digits_end + 4 : NULL;
    const char *sep = func ? find_str(func, ps->eol, ", code: ") : NULL;
    fx_source *s = &r->g->sources[r->g->nsources];
    if (!sep || colon == path || sep == func || parse_line_number(colon + 1, digits_end, &s->line))
        return fxp_fail(ps, "'<path>:<line> in <function>, code: <code>'");
    s->file = fxp_strndup(ps, path, (size_t)(colon - path));
    s->func = fxp_strndup(ps, func, (size_t)(sep - func));
    sep += strlen(", code: ");
    s->code = fxp_strndup(ps, sep, (size_t)(ps->eol - sep));
    if (!s->file || !s->func || !s->code)
        return -1;
    r->source = r->g->nsources++;
    ps->p = ps->eol;
    return 0;
}

static int parse_comment(reader *r)
{
    fx_parser *ps = r->ps;
    if (fxp_eat(ps, "# No stacktrace found for following nodes")) {
        r->source = -1;
        return expect_eol(ps);
    }
    if (!fxp_eat(ps, "# File: "))
        return fxp_fail(ps, "'# File: ...' or '# No stacktrace found for following nodes'");
    return parse_file_comment(r);
}

/* "return (a, None, b)", "return (a,)", "return ()" or "return a": outputs are node indices, -1
 * for None. */
static int parse_return(reader *r)
{
    fx_parser *ps = r->ps;
    fx_graph *g = r->g;
    fx_arg single, *items = &single;
    int n = 1;
    fxp_skip_ws(ps);
    const char *start = ps->p;
    int rc = ps->p < ps->eol && *ps->p == '(' ? fxp_parse_sequence(ps, ')', 0, &items, &n)
                                              : fxp_parse_value(ps, &single);
    if (rc)
        return -1;
    if (n > 0 && !(g->outputs = fxp_alloc(ps, (size_t)n * sizeof *g->outputs, _Alignof(int))))
        return -1;
    for (int i = 0; i < n; i++) {
        if (items[i].kind != ARG_NODE && items[i].kind != ARG_NONE)
            return fxp_fail_span(ps, "node names or None as return values", start,
                                 (size_t)(ps->eol - start));
        g->outputs[i] = items[i].node;
    }
    g->noutputs = n;
    return expect_eol(ps);
}

static int parse_line(reader *r, section *sec)
{
    fx_parser *ps = r->ps;
    switch (*sec) {
    case WANT_CLASS:
        *sec = WANT_DEF;
        return parse_class(r);
    case WANT_DEF:
        *sec = IN_BODY;
        return parse_signature(r);
    case IN_BODY:
        if (*ps->p == '#')
            return parse_comment(r);
        if (fxp_eat_word(ps, "return")) {
            *sec = AFTER_RETURN;
            return parse_return(r);
        }
        return parse_node(r);
    case AFTER_RETURN:
        break;
    }
    return fxp_fail(ps, "end of file after the return statement");
}

int fxp_parse_lines(fx_parser *ps, const char *text, size_t len)
{
    static const char *const missing[] = {
        [WANT_CLASS] = "'class GraphModule(torch.nn.Module):'",
        [WANT_DEF] = "'def forward(self, ...):'",
        [IN_BODY] = "'return' closing forward()",
    };
    const char *end = text + len;
    reader r = {.ps = ps, .g = ps->g, .nlines = count_char(text, end, '\n') + 1, .source = -1};
    section sec = WANT_CLASS;
    size_t room = sizeof r.where - 16; /* the line number's digits go after the label */
    int w = snprintf(r.where, room, "%s:", ps->label);
    r.where_label_len = w < 0 ? 0 : (size_t)w < room ? (size_t)w : room - 1;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        ps->line++;
        ps->p = p;
        ps->eol = nl ? nl : end;
        p = nl ? nl + 1 : end;
        const char *nul = memchr(ps->p, '\0', (size_t)(ps->eol - ps->p));
        if (nul) /* the message would stop quoting at it and hide why the line failed */
            return ea_fail(ps->err, "%s:%d: expected text, got a NUL byte at column %d", ps->label, ps->line,
                           (int)(nul - ps->p) + 1);
        fxp_skip_ws(ps);
        if (ps->p != ps->eol && parse_line(&r, &sec))
            return -1;
    }
    if (sec == AFTER_RETURN)
        return 0;
    return ea_fail(ps->err, "%s:%d: expected %s, got end of file", ps->label, ps->line + 1,
                   missing[sec]);
}
