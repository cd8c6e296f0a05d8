/* util/arena.c: chunked bump allocator (see arena.h). */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ffu_arena_block {
	ffu_arena_block *next;
	max_align_t align_;
	unsigned char data[];
};

enum { BLOCK_MIN = 64 * 1024 };

void *ffu__arena_alloc(ffu_arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	if (!a->head || a->cap - a->used < size) {
		size_t cap = size > BLOCK_MIN ? size : BLOCK_MIN;
		if (cap > SIZE_MAX - sizeof(ffu_arena_block))
			return NULL;
		ffu_arena_block *b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->cap = cap;
	}
	void *p = a->head->data + a->used;
	a->used += size;
	memset(p, 0, size);
	return p;
}

char *ffu__arena_strndup(ffu_arena *a, const char *s, size_t n)
{
	char *p = ffu__arena_alloc(a, n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

char *ffu__arena_strdup(ffu_arena *a, const char *s)
{
	return ffu__arena_strndup(a, s, strlen(s));
}

void ffu__arena_free(ffu_arena *a)
{
	ffu_arena_block *b = a->head;
	while (b) {
		ffu_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}
