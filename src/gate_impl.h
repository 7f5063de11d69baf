/* gate_impl.h: what the tests reach of gate_text.c beyond gate.h.
 * Contract: ea_gate_markdown is the markdown a CI job posts (summary, then every entry not SAME; malloc'd), what
 * ea_gate_write_texts writes. */
#ifndef EA_GATE_IMPL_H
#define EA_GATE_IMPL_H

#include <cjson/cJSON.h>

char *ea_gate_markdown(const cJSON *report);

#endif
