/*
 * util/arena.h: bump allocator. A module owns one arena; every IR node, name, shape and
 * literal of the module lives in it and dies with ffu__arena_free(). Allocation failure
 * returns NULL (callers turn it into FFU_STATUS_ENOMEM); nothing is freed individually.
 */
#ifndef FFU_UTIL_ARENA_H
#define FFU_UTIL_ARENA_H

#include <stddef.h>

typedef struct ffu_arena_block ffu_arena_block;
typedef struct ffu_arena {
	ffu_arena_block *head;
	size_t used, cap; /* of head */
} ffu_arena;

void *ffu__arena_alloc(ffu_arena *a, size_t size); /* zeroed, 16-byte aligned */
char *ffu__arena_strndup(ffu_arena *a, const char *s, size_t n);
char *ffu__arena_strdup(ffu_arena *a, const char *s);
void ffu__arena_free(ffu_arena *a);

#endif
