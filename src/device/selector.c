/* device/selector.c: the device selector grammar (see selector.h). */
#include "device/selector.h"

#include <limits.h>
#include <string.h>

#include "util/text.h"

/* A whole decimal number of 1+ digits in [s, s+len) that fits an int; no signs or blanks. */
static bool parse_index(const char *s, size_t len, int *out)
{
	long v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > INT_MAX)
			return false;
	}
	*out = (int)v;
	return true;
}

/* Keywords win over name substrings, so "amd" means the AMD platform, not "...AMD EPYC". */
void ffu__selector_parse(ffu_selector *sp, const char *s, bool allow_all)
{
	static const struct {
		const char *word;
		ffu_vendor v;
	} vendors[] = {
		{"pocl", FFU_VENDOR_POCL},   {"rusticl", FFU_VENDOR_RUSTICL}, {"nvidia", FFU_VENDOR_NVIDIA},
		{"amd", FFU_VENDOR_AMD},     {"intel", FFU_VENDOR_INTEL},     {"apple", FFU_VENDOR_APPLE},
	};
	const char *colon = strchr(s, ':');

	memset(sp, 0, sizeof *sp);
	sp->text = s;
	sp->kind = FFU_SEL_NAME;
	if (allow_all && ffu__str_iequal(s, "all")) {
		sp->kind = FFU_SEL_ALL;
		return;
	}
	for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
		if (ffu__str_iequal(s, vendors[i].word)) {
			sp->kind = FFU_SEL_VENDOR;
			sp->vendor = vendors[i].v;
			return;
		}
	}
	if (ffu__str_iequal(s, "cpu") || ffu__str_iequal(s, "gpu")) {
		sp->kind = FFU_SEL_TYPE;
		sp->type = ffu__str_iequal(s, "cpu") ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
		return;
	}
	if (!colon && parse_index(s, strlen(s), &sp->a)) {
		sp->kind = FFU_SEL_FLAT;
		return;
	}
	if (colon && parse_index(s, (size_t)(colon - s), &sp->a) &&
	    parse_index(colon + 1, strlen(colon + 1), &sp->b))
		sp->kind = FFU_SEL_PAIR;
}

bool ffu__selector_match(const ffu_selector *sp, const ffu_device_info *d, int flat)
{
	switch (sp->kind) {
	case FFU_SEL_ALL:
		return true;
	case FFU_SEL_VENDOR:
		return d->vendor_class == sp->vendor;
	case FFU_SEL_TYPE:
		return (d->type & sp->type) != 0;
	case FFU_SEL_FLAT:
		return flat == sp->a;
	case FFU_SEL_PAIR:
		return d->platform_index == sp->a && d->device_index == sp->b;
	case FFU_SEL_NAME:
		return ffu__str_icontains(d->name, sp->text);
	}
	return false;
}

int ffu__selector_default(const ffu_device_info *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i].type & CL_DEVICE_TYPE_GPU)
			return i;
	for (int i = 0; i < n; i++)
		if (list[i].type & CL_DEVICE_TYPE_CPU)
			return i;
	return 0;
}
