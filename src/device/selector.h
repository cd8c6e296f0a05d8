/*
 * device/selector.h: the grammar of device selectors (HLO.md section 5; --device,
 * FIELDFUSE_DEVICE): "all", a vendor keyword (pocl, rusticl, nvidia, amd, intel, apple),
 * "cpu" or "gpu", a flat index N, a platform:device pair P:D, else a case-insensitive
 * substring of the device name. Pure functions over device descriptions: listing the
 * devices and reporting no match is the runtime's (runtime/cl_list.c).
 *
 * Ownership: a parsed selector borrows its text (the caller's string must outlive it).
 */
#ifndef FFU_DEVICE_SELECTOR_H
#define FFU_DEVICE_SELECTOR_H

#include <stdbool.h>

#include "device/caps.h"

typedef enum {
	FFU_SEL_ALL, FFU_SEL_VENDOR, FFU_SEL_TYPE, FFU_SEL_FLAT, FFU_SEL_PAIR, FFU_SEL_NAME
} ffu_selector_kind;

typedef struct ffu_selector {
	ffu_selector_kind kind;
	ffu_vendor vendor;
	cl_device_type type;
	int a, b;          /* FFU_SEL_FLAT: a; FFU_SEL_PAIR: a:b */
	const char *text;  /* FFU_SEL_NAME: the substring (borrowed) */
} ffu_selector;

/* Parses s; "all" is a keyword only when allow_all (ffu__cl_select_all), else a name. */
void ffu__selector_parse(ffu_selector *sp, const char *s, bool allow_all);
/* Whether device d, at flat position flat in the listing, matches. */
bool ffu__selector_match(const ffu_selector *sp, const ffu_device_info *d, int flat);
/* The device used when nothing is asked for: the first GPU, else the first CPU, else the first listed. */
int ffu__selector_default(const ffu_device_info *list, int n);

#endif
