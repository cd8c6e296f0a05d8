/*
 * tools/examples/sumcheck_prover.c: a prover-style user of libfieldfuse's embedding API,
 * written as a program outside the source tree would be (only <fieldfuse/fieldfuse.h>):
 *
 *     cc sumcheck_prover.c $(pkg-config --cflags --libs fieldfuse) -o sumcheck_prover
 *     ./sumcheck_prover [DEVICE] [--k K] [--rounds R] [--bench N]
 *
 * The sumcheck protocol for the product of two multilinear polynomials f, g over KoalaBear,
 * given by their 2^K evaluations on the hypercube. Each round the prover sends the round
 * polynomial s(t) = sum_i (f0 + t (f1 - f0)) (g0 + t (g1 - g0)) as its values at 0, 1, 2
 * (f0 = f[2i], f1 = f[2i+1]); the verifier checks s(0) + s(1) against the current claim and
 * answers a challenge r; both polynomials are folded, f'[i] = f[2i] + r (f[2i+1] - f[2i]),
 * and the claim becomes s(r). Sizes halve every round.
 *
 * How it uses the library, the way a real prover would:
 *   - both programs of every round size (the round sums and the fold) are built with the
 *     graph builder and compiled once, up front, into executables;
 *   - f and g are uploaded once and stay on the device: each fold's outputs are the next
 *     round's inputs, so between rounds only the three sums (12 bytes) come back and the
 *     challenge (4 bytes) goes out;
 *   - the verifier's checks run on the host as the protocol goes, and at the end every
 *     round's sums and the last folded vectors are compared with the reference interpreter
 *     (ffu_program_interpret) run on the same data.
 * With --bench N it also times N whole proofs with the data resident on the device against
 * N proofs that copy f and g to the device and back every round (as a library without
 * device-resident buffers must), and prints both.
 *
 * The challenge is derived from the round's sums with a fixed mixing function: a stand-in
 * for the transcript hash of a real Fiat-Shamir prover. Exit status 0 when every check
 * passes, 1 otherwise. The program owns everything it creates and releases it on every path.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include <fieldfuse/fieldfuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KB_P 0x7f000001u /* KoalaBear: 2^31 - 2^24 + 1 */
enum { MAX_ROUNDS = 30 };

static uint32_t kb_add(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)a + b) % KB_P);
}

static uint32_t kb_sub(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)a + KB_P - b) % KB_P);
}

static uint32_t kb_mul(uint32_t a, uint32_t b)
{
	return (uint32_t)((uint64_t)a * b % KB_P);
}

/* s(r) of the degree-2 polynomial with s(0), s(1), s(2) (Lagrange on 0, 1, 2; 1/2 = (p+1)/2). */
static uint32_t eval_at(const uint32_t s[3], uint32_t r)
{
	uint32_t half = (KB_P + 1) / 2;
	uint32_t r1 = kb_sub(r, 1), r2 = kb_sub(r, 2);
	uint32_t l0 = kb_mul(kb_mul(r1, r2), half);              /* (r-1)(r-2)/2 */
	uint32_t l1 = kb_sub(0, kb_mul(r, r2));                  /* -r(r-2) */
	uint32_t l2 = kb_mul(kb_mul(r, r1), half);               /* r(r-1)/2 */
	return kb_add(kb_add(kb_mul(s[0], l0), kb_mul(s[1], l1)), kb_mul(s[2], l2));
}

/* The verifier's challenge from the round's message (a transcript-hash stand-in). */
static uint32_t challenge(const uint32_t s[3], int round)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)round;
	for (int i = 0; i < 3; i++) {
		h ^= s[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return (uint32_t)(h % KB_P);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* ---------------------------------------------------------------- the programs */

/* (s(0), s(1), s(2)) of one round over n evaluations of f and g. */
static ffu_status build_round(ffu_program **out, int64_t n, ffu_error *e)
{
	ffu_builder *b = NULL;
	ffu_status st = ffu_builder_create(&b, "sumcheck_round", e);
	if (st)
		return st;
	int64_t dims[1] = {n}, even[1] = {0}, odd[1] = {1}, limit[1] = {n}, two[1] = {2}, axis[1] = {0};
	ffu_node f = ffu_build_parameter(b, "f", "koalabear", 1, dims);
	ffu_node g = ffu_build_parameter(b, "g", "koalabear", 1, dims);
	ffu_node f0 = ffu_build_slice(b, f, even, limit, two), f1 = ffu_build_slice(b, f, odd, limit, two);
	ffu_node g0 = ffu_build_slice(b, g, even, limit, two), g1 = ffu_build_slice(b, g, odd, limit, two);
	/* the values at t = 2: 2 f1 - f0 */
	ffu_node f2 = ffu_build_subtract(b, ffu_build_add(b, f1, f1), f0);
	ffu_node g2 = ffu_build_subtract(b, ffu_build_add(b, g1, g1), g0);
	ffu_node zero = ffu_build_constant_u64(b, "koalabear", 0);
	ffu_node sums[3] = {
		ffu_build_reduce(b, ffu_build_multiply(b, f0, g0), zero, axis, 1, FFU_REDUCE_SUM),
		ffu_build_reduce(b, ffu_build_multiply(b, f1, g1), zero, axis, 1, FFU_REDUCE_SUM),
		ffu_build_reduce(b, ffu_build_multiply(b, f2, g2), zero, axis, 1, FFU_REDUCE_SUM),
	};
	/* one check for all the calls above: the builder keeps the first error */
	st = ffu_builder_finish(b, ffu_build_tuple(b, sums, 3), out, e);
	ffu_builder_destroy(&b);
	return st;
}

/* (f', g') = both polynomials folded with the challenge r: x'[i] = x[2i] + r (x[2i+1] - x[2i]). */
static ffu_status build_fold(ffu_program **out, int64_t n, ffu_error *e)
{
	ffu_builder *b = NULL;
	ffu_status st = ffu_builder_create(&b, "fold", e);
	if (st)
		return st;
	int64_t dims[1] = {n}, half[1] = {n / 2}, even[1] = {0}, odd[1] = {1}, limit[1] = {n}, two[1] = {2};
	ffu_node f = ffu_build_parameter(b, "f", "koalabear", 1, dims);
	ffu_node g = ffu_build_parameter(b, "g", "koalabear", 1, dims);
	ffu_node r = ffu_build_parameter(b, "r", "koalabear", 0, NULL);
	ffu_node rb = ffu_build_broadcast(b, r, 1, half, NULL, 0);
	ffu_node folded[2];
	for (int i = 0; i < 2; i++) {
		ffu_node x = i == 0 ? f : g;
		ffu_node lo = ffu_build_slice(b, x, even, limit, two), hi = ffu_build_slice(b, x, odd, limit, two);
		folded[i] = ffu_build_add(b, lo, ffu_build_multiply(b, rb, ffu_build_subtract(b, hi, lo)));
	}
	st = ffu_builder_finish(b, ffu_build_tuple(b, folded, 2), out, e);
	ffu_builder_destroy(&b);
	return st;
}

/* ---------------------------------------------------------------- the prover */

typedef struct prover {
	ffu_device *dev;
	int k, rounds;
	ffu_program *round_prog[MAX_ROUNDS], *fold_prog[MAX_ROUNDS];
	ffu_executable *round_x[MAX_ROUNDS], *fold_x[MAX_ROUNDS];
	/* device buffers: poly[i] holds f and g at round i (2^(k-i) each), sums[i] s(0..2), r[i] the challenge */
	ffu_buffer *poly[MAX_ROUNDS + 1][2], *sums[MAX_ROUNDS][3], *r[MAX_ROUNDS];
	uint32_t s[MAX_ROUNDS][3], ch[MAX_ROUNDS];
} prover;

/* Builds and compiles every program, allocates every buffer: all before the first round. */
static ffu_status setup(prover *pv, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	int64_t one[1];
	for (int i = 0; i < pv->rounds && st == FFU_STATUS_OK; i++) {
		int64_t n = (int64_t)1 << (pv->k - i);
		if ((st = build_round(&pv->round_prog[i], n, e)) || (st = build_fold(&pv->fold_prog[i], n, e)) ||
		    (st = ffu_executable_create(&pv->round_x[i], pv->dev, pv->round_prog[i], NULL, e)) ||
		    (st = ffu_executable_create(&pv->fold_x[i], pv->dev, pv->fold_prog[i], NULL, e)))
			break;
		for (int p = 0; p < 2 && st == FFU_STATUS_OK; p++) {
			one[0] = n;
			if (i == 0)
				st = ffu_buffer_create(&pv->poly[0][p], pv->dev, "koalabear", 1, one, e);
			if (st == FFU_STATUS_OK)
				st = ffu_buffer_create_output(&pv->poly[i + 1][p], pv->fold_x[i], p, e);
		}
		for (int j = 0; j < 3 && st == FFU_STATUS_OK; j++)
			st = ffu_buffer_create_output(&pv->sums[i][j], pv->round_x[i], j, e);
		if (st == FFU_STATUS_OK)
			st = ffu_buffer_create_input(&pv->r[i], pv->fold_x[i], 2, e);
	}
	return st;
}

static void teardown(prover *pv)
{
	for (int i = 0; i < MAX_ROUNDS; i++) {
		ffu_executable_destroy(&pv->round_x[i]);
		ffu_executable_destroy(&pv->fold_x[i]);
		ffu_program_destroy(&pv->round_prog[i]);
		ffu_program_destroy(&pv->fold_prog[i]);
		for (int j = 0; j < 3; j++)
			ffu_buffer_destroy(&pv->sums[i][j]);
		ffu_buffer_destroy(&pv->r[i]);
	}
	for (int i = 0; i <= MAX_ROUNDS; i++)
		for (int p = 0; p < 2; p++)
			ffu_buffer_destroy(&pv->poly[i][p]);
}

/*
 * One proof. resident: f and g go up once and every fold writes the next round's inputs
 * on the device. Otherwise (copying, the baseline) the round's f and g are uploaded before
 * and the folded ones downloaded after every round, through host memory fh/gh.
 */
static ffu_status prove(prover *pv, const uint32_t *f, const uint32_t *g, int resident, uint32_t *fh, uint32_t *gh,
			ffu_error *e)
{
	size_t n = (size_t)1 << pv->k;
	ffu_status st = FFU_STATUS_OK;
	if (resident && ((st = ffu_buffer_upload(pv->poly[0][0], f, n * 4, FFU_FORM_CANONICAL, e)) ||
			 (st = ffu_buffer_upload(pv->poly[0][1], g, n * 4, FFU_FORM_CANONICAL, e))))
		return st;
	if (!resident) {
		memcpy(fh, f, n * 4);
		memcpy(gh, g, n * 4);
	}
	for (int i = 0; i < pv->rounds && st == FFU_STATUS_OK; i++, n /= 2) {
		ffu_buffer *const *in = pv->poly[i], *const *next = pv->poly[i + 1];
		if (!resident && ((st = ffu_buffer_upload(in[0], fh, n * 4, FFU_FORM_CANONICAL, e)) ||
				  (st = ffu_buffer_upload(in[1], gh, n * 4, FFU_FORM_CANONICAL, e))))
			break;
		const ffu_buffer *round_in[2] = {in[0], in[1]};
		if ((st = ffu_executable_run(pv->round_x[i], round_in, 2, pv->sums[i], 3, NULL, e)))
			break;
		for (int j = 0; j < 3 && st == FFU_STATUS_OK; j++)
			st = ffu_buffer_download(pv->sums[i][j], &pv->s[i][j], 4, FFU_FORM_CANONICAL, e);
		pv->ch[i] = challenge(pv->s[i], i);
		if (st || (st = ffu_buffer_upload(pv->r[i], &pv->ch[i], 4, FFU_FORM_CANONICAL, e)))
			break;
		const ffu_buffer *fold_in[3] = {in[0], in[1], pv->r[i]};
		if ((st = ffu_executable_run(pv->fold_x[i], fold_in, 3, next, 2, NULL, e)))
			break;
		if (!resident && ((st = ffu_buffer_download(next[0], fh, n / 2 * 4, FFU_FORM_CANONICAL, e)) ||
				  (st = ffu_buffer_download(next[1], gh, n / 2 * 4, FFU_FORM_CANONICAL, e))))
			break;
	}
	return st;
}

/* The verifier's side: every round's s(0) + s(1) equals the claim; the last claim is sum f g. */
static int verify(const prover *pv, uint32_t claim, const uint32_t *f_last, const uint32_t *g_last, size_t n_last)
{
	for (int i = 0; i < pv->rounds; i++) {
		if (kb_add(pv->s[i][0], pv->s[i][1]) != claim) {
			fprintf(stderr, "sumcheck: round %d: s(0) + s(1) = %u, claim %u\n", i,
				kb_add(pv->s[i][0], pv->s[i][1]), claim);
			return 0;
		}
		claim = eval_at(pv->s[i], pv->ch[i]);
	}
	uint32_t rest = 0;
	for (size_t i = 0; i < n_last; i++)
		rest = kb_add(rest, kb_mul(f_last[i], g_last[i]));
	if (rest != claim) {
		fprintf(stderr, "sumcheck: final claim %u, sum of the folded f g %u\n", claim, rest);
		return 0;
	}
	return 1;
}

/* The same rounds on the reference interpreter, with the device's challenges: every sum and the last vectors must agree. */
static ffu_status check_interpreter(const prover *pv, const uint32_t *f, const uint32_t *g, const uint32_t *f_last,
				    const uint32_t *g_last, int *ok, ffu_error *e)
{
	size_t n = (size_t)1 << pv->k;
	uint32_t *a = malloc(n * 4), *b = malloc(n * 4), *a2 = malloc(n * 2), *b2 = malloc(n * 2);
	ffu_status st = FFU_STATUS_OK;
	*ok = 0;
	if (!a || !b || !a2 || !b2) {
		fprintf(stderr, "sumcheck: out of memory\n");
		st = FFU_STATUS_ENOMEM;
		goto out;
	}
	memcpy(a, f, n * 4);
	memcpy(b, g, n * 4);
	int bad = 0;
	for (int i = 0; i < pv->rounds && st == FFU_STATUS_OK; i++, n /= 2) {
		uint32_t s[3], r = pv->ch[i];
		if ((st = ffu_program_interpret(pv->round_prog[i], (const void *const[]){a, b}, (void *const[]){&s[0], &s[1], &s[2]}, e)))
			break;
		for (int j = 0; j < 3; j++)
			if (s[j] != pv->s[i][j] && bad++ < 5)
				fprintf(stderr, "sumcheck: round %d s(%d): device %u, interpreter %u\n", i, j, pv->s[i][j], s[j]);
		if ((st = ffu_program_interpret(pv->fold_prog[i], (const void *const[]){a, b, &r}, (void *const[]){a2, b2}, e)))
			break;
		memcpy(a, a2, n / 2 * 4);
		memcpy(b, b2, n / 2 * 4);
	}
	for (size_t i = 0; st == FFU_STATUS_OK && i < n; i++)
		if ((a[i] != f_last[i] || b[i] != g_last[i]) && bad++ < 5)
			fprintf(stderr, "sumcheck: folded element %zu: device (%u, %u), interpreter (%u, %u)\n", i, f_last[i],
				g_last[i], a[i], b[i]);
	*ok = st == FFU_STATUS_OK && bad == 0;
out:
	free(a);
	free(b);
	free(a2);
	free(b2);
	return st;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *selector = NULL;
	int k = 14, rounds = 6, bench = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
			k = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
			bench = atoi(argv[++i]);
		else if (argv[i][0] != '-' && !selector)
			selector = argv[i];
		else {
			fprintf(stderr, "usage: %s [DEVICE] [--k K] [--rounds R] [--bench N]\n", argv[0]);
			return 2;
		}
	}
	if (k < 1 || k > 28 || rounds < 1 || rounds > k || rounds > MAX_ROUNDS || bench < 0) {
		fprintf(stderr, "sumcheck: need 1 <= rounds <= k <= 28 and bench >= 0\n");
		return 2;
	}
	ffu_error e = {0};
	prover pv;
	memset(&pv, 0, sizeof pv);
	pv.k = k;
	pv.rounds = rounds;
	size_t n = (size_t)1 << k, n_last = n >> rounds;
	uint32_t *f = malloc(n * 4), *g = malloc(n * 4), *fh = malloc(n * 4), *gh = malloc(n * 4);
	uint32_t *f_last = malloc(n_last * 4), *g_last = malloc(n_last * 4);
	double *ms = calloc((size_t)bench + 1, sizeof *ms);
	int rc = 1, ok = 0;
	ffu_status st = FFU_STATUS_OK;
	if (!f || !g || !fh || !gh || !f_last || !g_last || !ms) {
		fprintf(stderr, "sumcheck: out of memory\n");
		goto out;
	}
	uint64_t seed = 12345;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		f[i] = (uint32_t)((seed >> 33) % KB_P);
		g[i] = (uint32_t)((seed >> 7) % KB_P);
	}
	uint32_t claim = 0;
	for (size_t i = 0; i < n; i++)
		claim = kb_add(claim, kb_mul(f[i], g[i]));

	if ((st = ffu_device_open(&pv.dev, selector, &e)))
		goto out;
	printf("libfieldfuse %s on %s: %s\n", ffu_version(), ffu_device_id(pv.dev), ffu_device_name(pv.dev));
	double t0 = now_ms();
	if ((st = setup(&pv, &e)))
		goto out;
	ffu_memory_plan plan;
	ffu_executable_memory(pv.round_x[0], &plan);
	printf("compiled %d programs (2^%d .. 2^%d) in %.0f ms; round 0: %d kernel(s), peak %zu bytes (%zu of them the caller's)\n",
	       2 * rounds, k, k - rounds + 1, now_ms() - t0, ffu_executable_kernel_count(pv.round_x[0]), plan.peak_bytes,
	       plan.io_bytes);

	t0 = now_ms();
	if ((st = prove(&pv, f, g, 1, fh, gh, &e)))
		goto out;
	double first = now_ms() - t0;
	if ((st = ffu_buffer_download(pv.poly[rounds][0], f_last, n_last * 4, FFU_FORM_CANONICAL, &e)) ||
	    (st = ffu_buffer_download(pv.poly[rounds][1], g_last, n_last * 4, FFU_FORM_CANONICAL, &e)))
		goto out;
	printf("proved %d rounds over 2^%d evaluations in %.2f ms (first run); s(0..2) of round 0: %u %u %u\n", rounds, k,
	       first, pv.s[0][0], pv.s[0][1], pv.s[0][2]);
	if (!verify(&pv, claim, f_last, g_last, n_last))
		goto out;
	printf("verifier: ok (%d rounds, final claim matches)\n", rounds);
	if ((st = check_interpreter(&pv, f, g, f_last, g_last, &ok, &e)))
		goto out;
	if (!ok)
		goto out;
	printf("check: ok (%d rounds and %zu folded elements match the interpreter)\n", rounds, 2 * n_last);

	for (int mode = 1; bench > 0 && mode >= 0; mode--) {
		for (int i = 0; i < bench; i++) {
			t0 = now_ms();
			if ((st = prove(&pv, f, g, mode, fh, gh, &e)))
				goto out;
			ms[i] = now_ms() - t0;
		}
		qsort(ms, (size_t)bench, sizeof *ms, cmp_double);
		printf("bench: %-9s %d proofs, median %.3f ms per proof (min %.3f, max %.3f)\n",
		       mode ? "resident" : "copying", bench, ms[bench / 2], ms[0], ms[bench - 1]);
	}
	rc = 0;
out:
	if (st) {
		fprintf(stderr, "sumcheck: %s: ", ffu_status_str(st));
		ffu_error_print(stderr, &e);
	}
	teardown(&pv);
	ffu_device_close(&pv.dev);
	free(f);
	free(g);
	free(fh);
	free(gh);
	free(f_last);
	free(g_last);
	free(ms);
	ffu_error_clear(&e);
	return rc;
}
