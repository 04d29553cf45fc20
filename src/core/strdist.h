/* src/core/strdist.h
 *
 * How far apart two words are, for "did you mean" suggestions: the optimal
 * string alignment distance (Levenshtein plus the transposition of two
 * neighbouring characters, Damerau 1964), so `rnu` is one edit from `run`.
 */
#ifndef FABSIM_CORE_STRDIST_H
#define FABSIM_CORE_STRDIST_H

#include <stdbool.h>
#include <stddef.h>

/* Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`;
 * the words are cut at 63 characters; `fold` compares ASCII case-blind. */
size_t str_osa_distance(const char *a, const char *b, bool fold);

#endif /* FABSIM_CORE_STRDIST_H */
