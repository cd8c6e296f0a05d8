/* util/symtab.c: see symtab.h. FNV-1a hashing, linear probing. */
#include "util/symtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (size_t)h;
}

void *ffu__sym_get(const ffu_symtab *t, const char *s, size_t n)
{
	if (t->cap == 0)
		return NULL;
	for (size_t i = hash_bytes(s, n) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (!t->keys[i])
			return NULL;
		if (strlen(t->keys[i]) == n && memcmp(t->keys[i], s, n) == 0)
			return t->vals[i];
	}
}

bool ffu__sym_put(ffu_symtab *t, const char *key, void *val)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		const char **keys = calloc(cap, sizeof *keys);
		void **vals = calloc(cap, sizeof *vals);
		if (!keys || !vals) {
			free(keys);
			free(vals);
			return false;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t j = hash_bytes(t->keys[i], strlen(t->keys[i])) & (cap - 1);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = t->keys[i];
			vals[j] = t->vals[i];
		}
		free(t->keys);
		free(t->vals);
		t->keys = keys;
		t->vals = vals;
		t->cap = cap;
	}
	size_t i = hash_bytes(key, strlen(key)) & (t->cap - 1);
	while (t->keys[i])
		i = (i + 1) & (t->cap - 1);
	t->keys[i] = key;
	t->vals[i] = val;
	t->n++;
	return true;
}

void ffu__sym_free(ffu_symtab *t)
{
	free(t->keys);
	free(t->vals);
	memset(t, 0, sizeof *t);
}
