/*
 * bench/plot.c: `fieldfuse bench --plot F.png`. Writes the results as gnuplot data and a
 * script into a private temporary folder, runs gnuplot (Debian's gnuplot-nox), and moves the
 * finished PNG into place, so a failed plot never leaves a partial image under the name.
 * Left panel: time against k for every device, workload and mode (log scale); right panel:
 * fused time per device for each workload at its largest k (the vendor comparison).
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/tool.h"
#include "bench/bench.h"

extern char **environ;

/* A gnuplot single-quoted string: quotes doubled, nothing else special. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static int largest_k(const ffu_bench_report *rep, const char *workload)
{
	int k = -1;
	for (int i = 0; i < rep->n_results; i++)
		if (strcmp(rep->results[i].workload, workload) == 0 && rep->results[i].k > k)
			k = rep->results[i].k;
	return k;
}

static ffu_status write_files(const char *dir, const char *png, const ffu_bench_report *rep, ffu_error *e)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/data", dir);
	FILE *d = fopen(path, "w");
	snprintf(path, sizeof path, "%s/plot.gp", dir);
	FILE *g = fopen(path, "w");
	ffu_status st = FFU_STATUS_OK;
	if (!d || !g) {
		st = ffu_tool_error(e, FFU_STATUS_EIO, "plot: cannot write in %s: %s", dir, strerror(errno));
		goto out;
	}
	fprintf(g, "set terminal pngcairo size 1400,560 noenhanced\nset output ");
	put_quoted(g, png);
	fprintf(g, "\nset multiplot layout 1,2\nset key outside below\nset logscale y\nset grid\n"
		   "set xtics 1\nset xlabel 'k (2^k elements)'\nset ylabel 'median ms'\nset title 'time vs size (%s timing)'\nplot ",
		rep->timing == FFU_TIMING_KERNEL ? "kernel" : "end_to_end");
	/* one data block per (device, workload, mode) series, in order of first appearance */
	int series = 0;
	for (int i = 0; i < rep->n_results; i++) {
		const ffu_bench_result *r = &rep->results[i];
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = rep->results[j].device == r->device && rep->results[j].mode == r->mode &&
			       strcmp(rep->results[j].workload, r->workload) == 0;
		if (seen)
			continue;
		for (int j = i; j < rep->n_results; j++) {
			const ffu_bench_result *q = &rep->results[j];
			if (q->device == r->device && q->mode == r->mode && strcmp(q->workload, r->workload) == 0)
				fprintf(d, "%d %.6f\n", q->k, q->ms);
		}
		fprintf(d, "\n\n");
		char title[512];
		snprintf(title, sizeof title, "%s %s %s", rep->devices[r->device].id, r->workload,
			 ffu__bench_mode_names[r->mode]);
		fprintf(g, "%s'data' index %d using 1:2 with linespoints title ", series ? ", \\\n     " : "", series);
		put_quoted(g, title);
		series++;
	}
	fprintf(g, "\n");
	/* vendor comparison: fused ms per workload (rows) and device (columns) at the largest k */
	fprintf(g, "set title 'fused time per device at the largest k'\nunset logscale y\nset logscale y\n"
		   "set style data histograms\nset style fill solid 0.8\nset xlabel ''\nset xtics rotate by -20\n"
		   "plot ");
	for (int dev = 0; dev < rep->n_devices; dev++) {
		fprintf(g, "%s'data' index %d using 2:xtic(1) title ", dev ? ", " : "", series + dev);
		put_quoted(g, rep->devices[dev].name);
		for (int i = 0; i < rep->n_results; i++) {
			const ffu_bench_result *r = &rep->results[i];
			if (r->device == dev && r->mode == FFU_BENCH_FUSED && r->k == largest_k(rep, r->workload))
				fprintf(d, "%s@2^%d %.6f\n", r->workload, r->k, r->ms);
		}
		fprintf(d, "\n\n");
	}
	fprintf(g, "\nunset multiplot\n");
	if (ferror(d) || ferror(g))
		st = ffu_tool_error(e, FFU_STATUS_EIO, "plot: write failed in %s", dir);
out:
	if (d && fclose(d) != 0 && st == FFU_STATUS_OK)
		st = ffu_tool_error(e, FFU_STATUS_EIO, "plot: write failed in %s", dir);
	if (g && fclose(g) != 0 && st == FFU_STATUS_OK)
		st = ffu_tool_error(e, FFU_STATUS_EIO, "plot: write failed in %s", dir);
	return st;
}

static ffu_status run_gnuplot(const char *dir, ffu_error *e)
{
	char *argv[] = {"gnuplot", "plot.gp", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	pid_t pid;
	int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return ffu_tool_error(e, FFU_STATUS_EIO, "plot: cannot run gnuplot (%s); install gnuplot-nox",
				      strerror(rc));
	int status = 0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ffu_tool_error(e, FFU_STATUS_EIO, "plot: gnuplot failed (script and data in %s)", dir);
	return FFU_STATUS_OK;
}

ffu_status ffu__bench_write_plot(const char *path, const ffu_bench_report *rep, ffu_error *e)
{
	char dir[] = "/tmp/fieldfuse-plot.XXXXXX";
	if (!mkdtemp(dir))
		return ffu_tool_error(e, FFU_STATUS_EIO, "plot: cannot create a temporary folder: %s", strerror(errno));
	/* gnuplot runs in dir: give it an absolute output path next to the final one */
	char *abs = realpath(".", NULL);
	size_t n = strlen(path) + (abs ? strlen(abs) : 0) + 32;
	char *tmp_png = malloc(n);
	ffu_status st = abs && tmp_png ? FFU_STATUS_OK : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		snprintf(tmp_png, n, "%s%s%s.tmp.%ld.png", path[0] == '/' ? "" : abs, path[0] == '/' ? "" : "/", path,
			 (long)getpid());
	if (st == FFU_STATUS_OK)
		st = write_files(dir, tmp_png, rep, e);
	if (st == FFU_STATUS_OK)
		st = run_gnuplot(dir, e);
	if (st == FFU_STATUS_OK && rename(tmp_png, path) != 0) {
		st = ffu_tool_error(e, FFU_STATUS_EIO, "cannot move the plot into place: %s", strerror(errno));
		if (e) /* printed "PATH: error: ..." */
			snprintf(e->file, sizeof e->file, "%s", path);
	}
	if (tmp_png && st)
		unlink(tmp_png);
	if (st == FFU_STATUS_OK || st == FFU_STATUS_ENOMEM) { /* keep the script for debugging otherwise */
		char p[4096];
		snprintf(p, sizeof p, "%s/data", dir);
		unlink(p);
		snprintf(p, sizeof p, "%s/plot.gp", dir);
		unlink(p);
		rmdir(dir);
	}
	free(abs);
	free(tmp_png);
	return st;
}
