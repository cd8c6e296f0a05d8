/*
 * util/text.h: the small string tests device discovery, classification and profile
 * lookup share (driver strings differ in case and padding between vendors). Pure; no
 * allocation. Owned by the runtime engineer.
 */
#ifndef FFU_UTIL_TEXT_H
#define FFU_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Does hay contain needle, ignoring ASCII case? An empty needle is found; NULL is not. */
bool ffu__str_icontains(const char *hay, const char *needle);
/* Are a and b equal, ignoring ASCII case? */
bool ffu__str_iequal(const char *a, const char *b);
/*
 * Copies src into dst (cap bytes, NUL-terminated, truncated) without leading and trailing
 * blanks: drivers pad some strings (Rusticl's "OpenCL 3.0 ", Intel's leading blanks).
 */
void ffu__str_copy_trimmed(char *dst, size_t cap, const char *src);

#endif
