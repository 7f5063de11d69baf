/* corpus.h: the graph files of a better-benchmark checkout, in a stable order.
 * Contract: ea_corpus_open accepts the checkout root (holding repros/models) or repros/models itself,
 * lists every full_graph_NNN.py with its identity (suite/mode/model/graph; model names may hold '/'),
 * sorted by path, and fails with the folder named when it is missing, unreadable or holds no graph.
 * Links are followed, but a folder reached twice (a link cycle) is refused, as is a graph name that is
 * not a regular file and a full_graph_NNN.meta.json whose full_graph_NNN.py is missing or not one. */
#ifndef EA_CORPUS_H
#define EA_CORPUS_H

#include <stdint.h>

#include "base/error.h"

typedef struct {
    char *path;      /* full path of full_graph_NNN.py */
    char *meta_path; /* full_graph_NNN.meta.json beside it */
    char *suite, *mode, *model, *graph; /* graph: "full_graph_005" */
} ea_graph_ref;

typedef struct {
    char *models_dir; /* .../repros/models */
    ea_graph_ref *graphs;
    int ngraphs;
} ea_corpus;

int ea_corpus_open(const char *dir, ea_corpus *c, ea_error *err);
void ea_corpus_free(ea_corpus *c);
/* FNV-1a 64 over every graph file's relative path and bytes, in corpus order: golden files record it
 * so a test can tell whether they were extracted from this very corpus. */
int ea_corpus_digest(const ea_corpus *c, uint64_t *digest, ea_error *err);
/* "suite/mode/model/graph" */
int ea_graph_ref_id(const ea_graph_ref *r, char *buf, size_t n);

#endif
