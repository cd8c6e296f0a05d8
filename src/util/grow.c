/* util/grow.c: see grow.h. */
#include "util/grow.h"

#include <stdlib.h>

bool ffu__grow(void **p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return true;
	int nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return false;
	*p = q;
	*cap = nc;
	return true;
}
