/* tools/cli/cmd_bench.c: `fieldfuse bench`: argument parsing around bench/bench.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli.h"

enum { MAX_WORKLOADS = 32 };

static bool parse_int(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > 1000000)
		return false;
	*out = (int)v;
	return true;
}

static bool parse_k(const char *s, int *lo, int *hi)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return parse_int(s, lo) && (*hi = *lo, true);
	char a[32];
	size_t n = (size_t)(dots - s);
	if (n == 0 || n >= sizeof a)
		return false;
	memcpy(a, s, n);
	a[n] = '\0';
	return parse_int(a, lo) && parse_int(dots + 2, hi);
}

int cmd_bench(int argc, char **argv)
{
	const char *names[MAX_WORKLOADS];
	const char *json = NULL, *csv = NULL, *plot = NULL, *k = NULL, *runs = NULL, *warmup = NULL, *timing = NULL;
	const char *save = NULL;
	ffu_bench_opts o = {.workloads = names, .k_min = 20, .k_max = 20, .runs = 10, .warmup = 3,
			    .progress = stderr};
	for (int i = 1; i < argc; i++) {
		int r;
		if ((r = cli_opt(argc, argv, &i, "--device", &o.device)) || (r = cli_opt(argc, argv, &i, "--k", &k)) ||
		    (r = cli_opt(argc, argv, &i, "--json", &json)) || (r = cli_opt(argc, argv, &i, "--csv", &csv)) ||
		    (r = cli_opt(argc, argv, &i, "--runs", &runs)) || (r = cli_opt(argc, argv, &i, "--warmup", &warmup)) ||
		    (r = cli_opt(argc, argv, &i, "--plot", &plot)) || (r = cli_opt(argc, argv, &i, "--timing", &timing)) ||
		    (r = cli_opt(argc, argv, &i, "--save-values", &save))) {
			if (r < 0)
				return cli_usage("bench: %s needs a value", argv[i]);
		} else if (strcmp(argv[i], "--baseline-only") == 0) {
			o.baseline_only = true;
		} else if (argv[i][0] == '-') {
			return cli_usage("bench: unknown option '%s'", argv[i]);
		} else if (ffu__bench_expand(argv[i], NULL, 0) == 0) {
			fprintf(stderr, "fieldfuse: error: bench: unknown workload '%s'; known:", argv[i]);
			for (int w = 0; ffu__bench_workload_names[w]; w++)
				fprintf(stderr, " %s", ffu__bench_workload_names[w]);
			fprintf(stderr, "; groups:");
			for (int g = 0; ffu__bench_group_names[g]; g++)
				fprintf(stderr, " %s", ffu__bench_group_names[g]);
			fprintf(stderr, "\n");
			return CLI_USAGE;
		} else if (o.n_workloads == MAX_WORKLOADS) {
			return cli_usage("bench: more than %d workloads", MAX_WORKLOADS);
		} else {
			names[o.n_workloads++] = argv[i];
		}
	}
	if (k && !parse_k(k, &o.k_min, &o.k_max))
		return cli_usage("bench: --k takes K or A..B, not '%s'", k);
	if (runs && (!parse_int(runs, &o.runs) || o.runs < 1))
		return cli_usage("bench: --runs takes a positive number, not '%s'", runs);
	if (warmup && !parse_int(warmup, &o.warmup))
		return cli_usage("bench: --warmup takes a number, not '%s'", warmup);
	if (timing && strcmp(timing, "kernel") != 0 && strcmp(timing, "end_to_end") != 0)
		return cli_usage("bench: --timing takes kernel or end_to_end, not '%s'", timing);
	o.timing = timing && strcmp(timing, "end_to_end") == 0 ? FFU_TIMING_END_TO_END : FFU_TIMING_KERNEL;
	if (o.baseline_only && (plot || o.device))
		return cli_usage("bench: --baseline-only runs no device: --%s does not apply", plot ? "plot" : "device");
	o.save_dir = save;

	ffu_error e = {0};
	ffu_bench_report rep;
	ffu_status st = ffu__bench_run(&rep, &o, &e);
	if (st == FFU_STATUS_OK) {
		ffu__bench_print_table(stdout, &rep);
		if (json)
			st = ffu__bench_write_json(json, &rep, &e);
		if (st == FFU_STATUS_OK && csv)
			st = ffu__bench_write_csv(csv, &rep, &e);
		if (st == FFU_STATUS_OK && plot)
			st = ffu__bench_write_plot(plot, &rep, &e);
	}
	int rc = st ? cli_fail(&e) : CLI_OK;
	ffu__bench_report_free(&rep);
	ffu_error_clear(&e);
	return rc;
}
