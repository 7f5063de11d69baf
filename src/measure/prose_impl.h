/* prose_impl.h: test-only entry point of prose.c.
 * ea_prose_reword(id, text): from now on the note, verdict or unmeasured-reason id renders as text (a verdict's
 * text is its printf format: its speedup, then its launches); NULL id restores every text. What a reworded sentence
 * must not change, the tests check: nothing stored, nothing gated. */
#ifndef EA_PROSE_IMPL_H
#define EA_PROSE_IMPL_H

void ea_prose_reword(const char *id, const char *text);

#endif
