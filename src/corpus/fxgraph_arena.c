/* fxgraph_arena.c: the graph's memory, one arena and one name index (fxgraph_impl.h), under the reader's
 * other pieces. */
#include <stdlib.h>
#include <string.h>

#include "corpus/fxgraph_impl.h"

/* ---- arena ---- */

/* Most graphs fit a few chunks; a request larger than a quarter chunk gets a chunk of its own so it
 * does not strand the free tail of the current one. */
#define CHUNK_SIZE (256 * 1024)

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
} chunk;

struct fx_arena {
    chunk *head;
};

fx_arena *fx_arena_new(void)
{
    return calloc(1, sizeof(fx_arena));
}

void fx_arena_free(fx_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

static chunk *chunk_new(size_t cap)
{
    chunk *c = calloc(1, sizeof(chunk) + cap);
    if (c)
        c->cap = cap;
    return c;
}

void *fx_arena_alloc(fx_arena *a, size_t size, size_t align)
{
    chunk *c = a->head;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at + size > c->cap) {
        int own = size > CHUNK_SIZE / 4;
        chunk *fresh = chunk_new(own ? size : CHUNK_SIZE);
        if (!fresh)
            return NULL;
        if (own && c) {
            fresh->next = c->next;
            c->next = fresh;
        } else {
            fresh->next = c;
            a->head = fresh;
        }
        c = fresh;
        at = 0;
    }
    c->used = at + size;
    return (char *)c->data + at;
}

/* ---- name index: open addressing, slots hold node index + 1 so zeroed memory is empty ---- */

typedef struct {
    size_t mask;
    int slots[];
} name_index;

static size_t hash_name(const char *s, size_t len)
{
    size_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void *fx_index_new(fx_arena *a, int cap)
{
    size_t nslots = 16;
    while (nslots < 2 * (size_t)cap) /* at most half full keeps probe runs short */
        nslots *= 2;
    name_index *ix = fx_arena_alloc(a, sizeof *ix + nslots * sizeof ix->slots[0], _Alignof(name_index));
    if (ix)
        ix->mask = nslots - 1;
    return ix;
}

/* The slot holding name, or the empty slot where it would go. */
static int *index_slot(const fx_graph *g, const char *name, size_t len)
{
    name_index *ix = g->index;
    for (size_t h = hash_name(name, len);; h++) {
        int *slot = &ix->slots[h & ix->mask];
        if (*slot == 0)
            return slot;
        const char *have = g->nodes[*slot - 1].name;
        if (strncmp(have, name, len) == 0 && have[len] == '\0')
            return slot;
    }
}

int fx_index_find(const fx_graph *g, const char *name, size_t len)
{
    return g->index ? *index_slot(g, name, len) - 1 : -1;
}

void fx_index_add(fx_graph *g, int node)
{
    const char *name = g->nodes[node].name;
    *index_slot(g, name, strlen(name)) = node + 1;
}
