/*
 * util/grow.h: growing a malloc'd array by doubling, for builders that append one entry at
 * a time (the code generator's values and kernel bodies). The caller owns the array.
 */
#ifndef FFU_UTIL_GROW_H
#define FFU_UTIL_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *p (of *cap entries of elem bytes) hold at least `need`; false when out of memory
   (then *p and *cap are unchanged). */
bool ffu__grow(void **p, int *cap, int need, size_t elem);

#endif
