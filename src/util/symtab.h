/*
 * util/symtab.h: string -> pointer table, open addressing, power-of-two capacity, never
 * more than half full. Keys are borrowed (they must outlive the table: arena strings);
 * the table owns only its two arrays, freed by ffu__sym_free.
 */
#ifndef FFU_UTIL_SYMTAB_H
#define FFU_UTIL_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ffu_symtab {
	const char **keys;
	void **vals;
	size_t cap, n;
} ffu_symtab;

/* Value for the n-byte key s (not NUL-terminated), or NULL. */
void *ffu__sym_get(const ffu_symtab *t, const char *s, size_t n);
/* Adds key (NUL-terminated) -> val; false on out of memory. Does not check for duplicates. */
bool ffu__sym_put(ffu_symtab *t, const char *key, void *val);
void ffu__sym_free(ffu_symtab *t);

#endif
