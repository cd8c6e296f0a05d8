/* device/launch.c: see launch.h. */
#include "device/launch.h"

#include <stdint.h>

static size_t min_nonzero(size_t a, size_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

size_t ffu__launch_pick(size_t n, size_t cap, size_t limit, size_t preferred)
{
	size_t pm = preferred ? preferred : 1;

	cap = min_nonzero(cap ? cap : FFU_WG_DEFAULT, limit);
	if (n == 0)
		n = 1;
	/* No multiple of the preferred size fits: the largest allowed size, or n if smaller. */
	if (pm > cap)
		return n < cap ? n : cap;
	size_t wg = cap - cap % pm;
	/* Small launches: a power of two not above n; the rest runs as the launch's tail. */
	if (n < wg) {
		wg = 1;
		while (wg * 2 <= n)
			wg *= 2;
	}
	return wg;
}

ffu_status ffu__launch_parse_wg(const char *s, size_t *out, ffu_error *e)
{
	size_t v = 0;

	*out = 0;
	if (!s || !*s)
		return FFU_STATUS_OK;
	for (const char *p = s; *p; p++) {
		unsigned digit = (unsigned)(*p - '0');
		if (*p < '0' || *p > '9' || v > (SIZE_MAX - digit) / 10)
			return ffu__err(e, FFU_STATUS_EINVAL,
					"FIELDFUSE_WG_SIZE must be a positive decimal integer, not '%.64s'", s);
		v = v * 10 + digit;
	}
	if (v == 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "FIELDFUSE_WG_SIZE must be a positive decimal integer, not '%.64s'", s);
	*out = v;
	return FFU_STATUS_OK;
}

ffu_status ffu__launch_plan(ffu_launch_plan *out, const ffu_device_info *d, const ffu_kernel_limits *k,
			    const ffu_profile *prof, const ffu_launch_request *r, ffu_error *e)
{
	size_t limit = min_nonzero(min_nonzero(k->max_wg, d->max_wg), d->max_work_item_sizes[0]);
	size_t preferred = k->preferred_multiple ? k->preferred_multiple : d->preferred_wg_multiple;
	size_t local = 0, n = r->n;
	const char *origin = NULL;

	out->local = out->whole = out->tail = 0;
	out->origin = "";
	if (n == 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "a launch needs at least one work-item");
	/* ids must fit the device's size_t (32-bit devices exist) */
	if (d->address_bits && d->address_bits < 64 &&
	    (r->offset > ((size_t)1 << d->address_bits) - 1 || n > ((size_t)1 << d->address_bits) - 1 - r->offset))
		return ffu__err(e, FFU_STATUS_ELIMIT, "%zu work-items exceed what %s can index (%u-bit addresses)", n,
				d->name, d->address_bits);

	if (r->wg)
		local = r->wg, origin = "explicit";
	else if (d->override.wg)
		local = d->override.wg, origin = "override";
	else if (r->env_wg)
		local = r->env_wg, origin = "FIELDFUSE_WG_SIZE";

	if (local) {
		/* a requested size is honoured or refused, never silently changed to fit a limit */
		if ((k->max_wg && local > k->max_wg) || (d->max_wg && local > d->max_wg) ||
		    (d->max_work_item_sizes[0] && local > d->max_work_item_sizes[0]))
			return ffu__err(e, FFU_STATUS_ELIMIT,
					"%s work-group size %zu exceeds the limit on %s (kernel %zu, device %zu, "
					"work-item size %zu)",
					origin, local, d->name, k->max_wg, d->max_wg, d->max_work_item_sizes[0]);
		if (local > n && !r->wg)
			local = ffu__launch_pick(n, local, 0, 1); /* an override larger than the launch */
		if (local > n)
			return ffu__err(e, FFU_STATUS_EINVAL,
					"%s work-group size %zu is larger than the launch (%zu work-items)", origin, local, n);
	} else {
		origin = prof && prof->wg_tuned ? "tuned" : "profile";
		local = ffu__launch_pick(n, prof ? prof->wg : 0, limit, preferred);
		/* below a whole group: groups of one where every local size is another compile */
		if (prof && prof->small_in_ones && local < ffu__launch_pick(SIZE_MAX, prof->wg, limit, preferred))
			local = 1;
	}
	out->local = local;
	out->whole = n - n % local;
	out->tail = n - out->whole;
	out->origin = origin;
	return FFU_STATUS_OK;
}
