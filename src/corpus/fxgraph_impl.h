/* fxgraph_impl.h: internals shared by the graph-dump reader's pieces; not part of the contract.
 * fxgraph_arena.c owns the arena and the name index; fxgraph.c the public calls; fxgraph_lines.c reads the
 * dump line by line; fxgraph_scan.c reads argument values. All of them report through fxp_fail so every
 * message has the "<file>:<line>: expected ..., got '...'" shape. */
#ifndef EA_FXGRAPH_IMPL_H
#define EA_FXGRAPH_IMPL_H

#include <stddef.h>

#include "corpus/fxgraph.h"

/* fx_graph_parse_file on text in memory (the tests and the fuzz harness): label names the text in
 * messages; text need not be NUL-terminated. */
int fx_graph_parse_text(const char *label, const char *text, size_t len, fx_graph *g, ea_error *err);

/* An empty arena (NULL when out of memory) and its release with every block it gave out. */
fx_arena *fx_arena_new(void);
void fx_arena_free(fx_arena *a);
/* Zeroed memory that lives until fx_graph_free; NULL when out of memory. */
void *fx_arena_alloc(fx_arena *a, size_t size, size_t align);

/* Name -> node index table sized once for at most `cap` nodes. */
void *fx_index_new(fx_arena *a, int cap);
int fx_index_find(const fx_graph *g, const char *name, size_t len);
void fx_index_add(fx_graph *g, int node);

typedef struct {
    fx_graph *g;
    ea_error *err;
    const char *label;
    int line;
    const char *p, *eol; /* cursor within the current line, and that line's end */
    /* Scratch for argument values until a list or call knows its length. */
    fx_arg *stack;
    int nstack, capstack;
    int depth; /* brackets open around the cursor, bounded by FX_MAX_NESTING */
} fx_parser;

/* Lists in real dumps nest a few levels; each level is a C stack frame, so a hostile dump could
 * otherwise overflow the stack. */
#define FX_MAX_NESTING 64

/* Reads the whole dump into ps->g. */
int fxp_parse_lines(fx_parser *ps, const char *text, size_t len);

/* "<label>:<line>: expected <what>, got '<text at the cursor>'"; returns -1. */
int fxp_fail(fx_parser *ps, const char *what);
/* Same, quoting exactly [at, at + len). */
int fxp_fail_span(fx_parser *ps, const char *what, const char *at, size_t len);

void fxp_skip_ws(fx_parser *ps);
/* Consumes lit when the cursor starts with it. */
int fxp_eat(fx_parser *ps, const char *lit);
/* Consumes word only when it is a whole identifier ("None", not "None_1"). */
int fxp_eat_word(fx_parser *ps, const char *word);
/* Length of the identifier at the cursor, 0 if none. */
size_t fxp_ident_len(const fx_parser *ps);
/* Arena copy with a terminating NUL; NULL (and ps->err set) when out of memory. */
const char *fxp_strndup(fx_parser *ps, const char *s, size_t len);
void *fxp_alloc(fx_parser *ps, size_t size, size_t align);

/* One value: literal, node name, list, dtype, layout, device. */
int fxp_parse_value(fx_parser *ps, fx_arg *out);
/* "(a, b, key = c)" at the cursor into *items / *n; keywords only where allowed. */
int fxp_parse_sequence(fx_parser *ps, char close, int keywords, fx_arg **items, int *n);
/* Appends to the scratch stack; fxp_take moves everything above base into the arena. */
int fxp_push(fx_parser *ps, const fx_arg *a);
int fxp_take(fx_parser *ps, int base, fx_arg **items, int *n);

#endif
