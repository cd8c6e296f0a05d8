/* bench/report.c: the terminal table, JSON (HLO.md section 6, via jansson) and CSV. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "bench/bench.h"

#ifndef FFU_VERSION
#define FFU_VERSION "unknown"
#endif

static const ffu_bench_result *find(const ffu_bench_report *rep, int dev, const char *w, int k, ffu_bench_mode m)
{
	for (int i = 0; i < rep->n_results; i++) {
		const ffu_bench_result *r = &rep->results[i];
		if (r->device == dev && r->k == k && r->mode == m && strcmp(r->workload, w) == 0)
			return r;
	}
	return NULL;
}

/* --baseline-only: the c_baseline rows alone (no device ran) */
static void print_baselines(FILE *out, const ffu_bench_report *rep, int wl)
{
	const ffu_bench_device *dev = &rep->devices[0];
	fprintf(out, "\n%s: %s (%s): c_baseline only, not checked by a device\n", dev->id, dev->name,
		dev->platform_name);
	fprintf(out, "%-*s %3s %10s %10s %10s %9s %12s\n", wl, "workload", "k", "c_base ms", "min ms", "max ms",
		"Gmul/s", "Mpoints/s");
	for (int i = 0; i < rep->n_results; i++) {
		const ffu_bench_result *b = &rep->results[i];
		fprintf(out, "%-*s %3d %10.3f %10.3f %10.3f %9.3f %12.3f\n", wl, b->workload, b->k, b->ms, b->min_ms,
			b->max_ms, b->mul_per_s / 1e9, b->points_per_s / 1e6);
	}
}

void ffu__bench_print_table(FILE *out, const ffu_bench_report *rep)
{
	fprintf(out, "timing: %s\n", rep->baseline_only ? "host clock, c_baseline only"
				      : rep->timing == FFU_TIMING_KERNEL ? "kernel (OpenCL profiling events)"
									: "end_to_end (host clock: upload + kernels + download)");
	/* the workload column as wide as the longest name; the Gmul/s column only when some
	 * workload multiplies */
	int wl = 12;
	bool muls = false, points = false;
	for (int i = 0; i < rep->n_results; i++) {
		int len = (int)strlen(rep->results[i].workload);
		wl = len > wl ? len : wl;
		muls = muls || rep->results[i].mul_per_s > 0;
		points = points || rep->results[i].points_per_s > 0;
	}
	if (rep->baseline_only) {
		print_baselines(out, rep, wl);
		return;
	}
	for (int d = 0; d < rep->n_devices; d++) {
		const ffu_bench_device *dev = &rep->devices[d];
		fprintf(out, "\ndevice %s: %s (%s), copy roof %.1f GB/s\n", dev->id, dev->name, dev->platform_name,
			rep->copy_gbps[d]);
		fprintf(out, "%-*s %3s %9s %9s %9s %9s %8s %8s %7s %7s%s%s\n", wl, "workload", "k", "unfused", "fused",
			"c_base", "copy", "unf/fus", "fused", "fused/", "kernels", muls ? "    fused   c_base" : "",
			points ? "     fused    c_base" : "");
		fprintf(out, "%-*s %3s %9s %9s %9s %9s %8s %8s %7s %7s%s%s\n", wl, "", "", "ms", "ms", "ms", "ms",
			"speedup", "GB/s", "copy", "unf/fus", muls ? "   Gmul/s   Gmul/s" : "",
			points ? " Mpoint/s  Mpoint/s" : "");
		for (int i = 0; i < rep->n_results; i++) {
			const ffu_bench_result *f = &rep->results[i];
			if (f->device != d || f->mode != FFU_BENCH_FUSED)
				continue;
			const ffu_bench_result *u = find(rep, d, f->workload, f->k, FFU_BENCH_UNFUSED);
			const ffu_bench_result *b = find(rep, d, f->workload, f->k, FFU_BENCH_C_BASELINE);
			const ffu_bench_result *c = find(rep, d, f->workload, f->k, FFU_BENCH_COPY);
			if (!u || !c)
				continue;
			char base[16] = "-", kern[24], gmul[40] = "", mpts[40] = "";
			if (b)
				snprintf(base, sizeof base, "%.3f", b->ms);
			snprintf(kern, sizeof kern, "%d/%d", u->kernels, f->kernels);
			if (muls && f->mul_per_s > 0) {
				char bg[16] = "-";
				if (b)
					snprintf(bg, sizeof bg, "%.3f", b->mul_per_s / 1e9);
				snprintf(gmul, sizeof gmul, " %8.3f %8s", f->mul_per_s / 1e9, bg);
			} else if (muls) {
				snprintf(gmul, sizeof gmul, " %8s %8s", "-", "-");
			}
			if (points) {
				char bp[16] = "-", fp[16] = "-";
				if (b && b->points_per_s > 0)
					snprintf(bp, sizeof bp, "%.3f", b->points_per_s / 1e6);
				if (f->points_per_s > 0)
					snprintf(fp, sizeof fp, "%.3f", f->points_per_s / 1e6);
				snprintf(mpts, sizeof mpts, " %9s %9s", fp, bp);
			}
			fprintf(out, "%-*s %3d %9.3f %9.3f %9s %9.3f %7.2fx %8.1f %6.0f%% %7s%s%s%s\n", wl, f->workload,
				f->k, u->ms, f->ms, base, c->ms, u->ms / f->ms, f->gbps, 100.0 * f->gbps / c->gbps, kern,
				gmul, mpts, f->host_timer ? "  (host-timed)" : "");
		}
	}
	if (rep->n_devices > 1) {
		fprintf(out, "\nfused time relative to device %s (lower is faster):\n", rep->devices[0].id);
		for (int i = 0; i < rep->n_results; i++) {
			const ffu_bench_result *r = &rep->results[i];
			if (r->device == 0 || r->mode != FFU_BENCH_FUSED)
				continue;
			const ffu_bench_result *b = find(rep, 0, r->workload, r->k, FFU_BENCH_FUSED);
			if (b)
				fprintf(out, "  %s %-12s 2^%d: %.2fx\n", rep->devices[r->device].id, r->workload, r->k,
					r->ms / b->ms);
		}
	}
}

ffu_status ffu__bench_write_json(const char *path, const ffu_bench_report *rep, ffu_error *e)
{
	json_t *root = json_object(), *devs = json_array(), *res = json_array();
	char *text = NULL;
	ffu_status st = FFU_STATUS_OK;
	if (!root || !devs || !res) {
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	json_object_set_new(root, "tool", json_string("fieldfuse"));
	json_object_set_new(root, "version", json_string(FFU_VERSION));
	json_object_set_new(root, "timing", json_string(rep->timing == FFU_TIMING_KERNEL ? "kernel" : "end_to_end"));
	for (int d = 0; d < rep->n_devices; d++) {
		const ffu_bench_device *dev = &rep->devices[d];
		json_array_append_new(devs, json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "id", dev->id, "name", dev->name,
						      "vendor", dev->vendor, "platform", dev->platform_name, "driver",
						      dev->driver, "copy_gbps", rep->copy_gbps[d]));
	}
	for (int i = 0; i < rep->n_results; i++) {
		const ffu_bench_result *r = &rep->results[i];
		json_array_append_new(res, json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:i, s:s}",
						     "device", rep->devices[r->device].id, "workload", r->workload,
						     "field", r->field, "k", r->k, "mode",
						     ffu__bench_mode_names[r->mode], "kernels", r->kernels, "ms", r->ms,
						     "min_ms", r->min_ms, "max_ms", r->max_ms, "gbps", r->gbps,
						     "mul_per_s", r->mul_per_s, "runs", r->runs, "timer",
						     r->host_timer ? "host" : "events"));
	}
	/* points_per_s came after the others (msm workloads): a key added, none changed */
	for (int i = 0; i < rep->n_results; i++)
		json_object_set_new(json_array_get(res, (size_t)i), "points_per_s",
				    json_real(rep->results[i].points_per_s));
	json_object_set(root, "devices", devs);
	json_object_set(root, "results", res);
	/* the whole text first, then one write: a failure leaves no partial file */
	text = json_dumps(root, JSON_INDENT(2));
	size_t len = text ? strlen(text) : 0;
	char *line = text ? realloc(text, len + 2) : NULL;
	if (!line) {
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	text = line;
	memcpy(text + len, "\n", 2);
	st = ffu_tool_write_file(path, text, len + 1, e);
out:
	free(text);
	json_decref(devs);
	json_decref(res);
	json_decref(root);
	return st;
}

ffu_status ffu__bench_write_csv(const char *path, const ffu_bench_report *rep, ffu_error *e)
{
	/* the whole text in memory, then one write: a failure leaves no partial file */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	fprintf(f, "device,device_name,workload,field,k,mode,kernels,ms,min_ms,max_ms,gbps,runs,timer,mul_per_s,"
		   "points_per_s\n");
	for (int i = 0; i < rep->n_results; i++) {
		const ffu_bench_result *r = &rep->results[i];
		const ffu_bench_device *dev = &rep->devices[r->device];
		/* device names never contain '"'; quote them for the commas some have */
		fprintf(f, "%s,\"%s\",%s,%s,%d,%s,%d,%.6f,%.6f,%.6f,%.3f,%d,%s,%.0f,%.0f\n", dev->id, dev->name,
			r->workload, r->field, r->k, ffu__bench_mode_names[r->mode], r->kernels, r->ms, r->min_ms,
			r->max_ms, r->gbps, r->runs, r->host_timer ? "host" : "events", r->mul_per_s, r->points_per_s);
	}
	bool failed = ferror(f) != 0;
	ffu_status st = fclose(f) != 0 || failed ? ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory")
						 : ffu_tool_write_file(path, text, len, e);
	free(text);
	return st;
}
