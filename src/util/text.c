/* util/text.c: see text.h. */
#include "util/text.h"

#include <ctype.h>
#include <string.h>

bool ffu__str_icontains(const char *hay, const char *needle)
{
	if (!hay || !needle)
		return false;
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return n == 0;
}

bool ffu__str_iequal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

void ffu__str_copy_trimmed(char *dst, size_t cap, const char *src)
{
	while (*src && isspace((unsigned char)*src))
		src++;
	size_t n = strlen(src);
	while (n > 0 && isspace((unsigned char)src[n - 1]))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}
