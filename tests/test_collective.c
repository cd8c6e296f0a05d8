/*
 * tests/test_collective.c: the collectives (docs/hlo.md "Collectives"): their text round
 * trip and the interpreter's simulation of the ranks. Host only: the expected values are
 * worked out here from each op's definition, with the group of every rank written out by
 * hand for each of XLA's four group modes (not computed by ir/collective.c), and the field
 * sums and products taken with GMP. The verifier's errors are in tests/bad/collective_*.hlo
 * (test_hlo reads them); the refusal on a device is test_cli's.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hlo_check.h"
#include "interp/interp.h"
#include "ir/value.h"

enum { RANKS = 4, N = 4 };
static const uint32_t P_BB = 0x78000001u;

/* rank = replica x 2 + partition: 2 replicas, 2 partitions */
static const char prog[] =
	"HloModule coll, replica_count=2, num_partitions=2\n"
	"\n"
	"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
	"  %a = babybear[] parameter(0)\n"
	"  %b = babybear[] parameter(1)\n"
	"  ROOT %s = babybear[] add(%a, %b)\n"
	"}\n"
	"\n"
	"%prod (a.1: babybear[], b.1: babybear[]) -> babybear[] {\n"
	"  %a.1 = babybear[] parameter(0)\n"
	"  %b.1 = babybear[] parameter(1)\n"
	"  ROOT %m = babybear[] multiply(%a.1, %b.1)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[4]) -> (babybear[4], babybear[4], babybear[4], babybear[8], babybear[2], babybear[4], babybear[4], babybear[4], u32[], u32[]) {\n"
	"  %x = babybear[4] parameter(0)\n"
	"  %ar = babybear[4] all-reduce(%x), replica_groups={}, to_apply=%sum\n"
	"  %ap = babybear[4] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, to_apply=%prod\n"
	"  %arp = babybear[4] all-reduce(%x), channel_id=2, replica_groups={{1,0}}, use_global_device_ids=false, to_apply=%sum\n"
	"  %ag = babybear[8] all-gather(%x), channel_id=3, replica_groups={{3,0},{1,2}}, dimensions={0}, use_global_device_ids=true\n"
	"  %rs = babybear[2] reduce-scatter(%x), channel_id=4, replica_groups={{0,3},{2,1}}, dimensions={0}, use_global_device_ids=true, to_apply=%sum\n"
	"  %aa = babybear[4] all-to-all(%x), replica_groups={{1,0}}, dimensions={0}\n"
	"  %cp = babybear[4] collective-permute(%x), channel_id=5, source_target_pairs={{0,1}}\n"
	"  %sw = babybear[4] collective-permute(%x), source_target_pairs={{1,0},{0,1}}\n"
	"  %ri = u32[] replica-id()\n"
	"  %pi = u32[] partition-id()\n"
	"  ROOT %t = (babybear[4], babybear[4], babybear[4], babybear[8], babybear[2], babybear[4], babybear[4], babybear[4], u32[], u32[]) tuple(%ar, %ap, %arp, %ag, %rs, %aa, %cp, %sw, %ri, %pi)\n"
	"}\n";

/* The printer writes the program back as it was written (it is in canonical form), and
   what it writes parses to the same module. */
Test(collective, round_trip)
{
	ffu_module *m = parse_ok(prog);
	cr_expect_eq(m->replica_count, 2);
	cr_expect_eq(m->num_partitions, 2);
	ffu__module_free(m);
	char *t = round_trip(prog); /* print, parse, print: the same text, equal modules */
	cr_expect_str_eq(t, prog);
	free(t);
}

/* x of rank r: values near p and small ones, so sums and products wrap */
static uint32_t xval(int r, int k)
{
	static const uint32_t base[N] = {0x78000000u, 0x3c000001u, 7u, 0x12345678u};
	return (uint32_t)(((uint64_t)base[k] + 1000003u * (uint64_t)r * (uint64_t)(k + 1)) % P_BB);
}

/* the sum or product over ranks[0..n) of element k, with GMP */
static uint32_t fold(const int *ranks, int n, int k, bool product)
{
	mpz_t acc, p;
	mpz_init_set_ui(acc, xval(ranks[0], k));
	mpz_init_set_ui(p, P_BB);
	for (int j = 1; j < n; j++) {
		if (product)
			mpz_mul_ui(acc, acc, xval(ranks[j], k));
		else
			mpz_add_ui(acc, acc, xval(ranks[j], k));
		mpz_mod(acc, acc, p);
	}
	uint32_t v = (uint32_t)mpz_get_ui(acc);
	mpz_clears(acc, p, NULL);
	return v;
}

static uint32_t got(const ffu_value *v, int k)
{
	uint32_t x;
	memcpy(&x, v->data + 4 * (size_t)k, 4);
	return x;
}

Test(collective, interpreter_simulates_the_ranks)
{
	ffu_module *m = parse_ok(prog);
	ffu_value in[RANKS];
	const ffu_value *inputs[RANKS];
	for (int r = 0; r < RANKS; r++) {
		cr_assert_eq(ffu__value_alloc(&in[r], &m->entry->params[0]->shape, NULL), FFU_STATUS_OK);
		for (int k = 0; k < N; k++) {
			uint32_t v = xval(r, k);
			memcpy(in[r].data + 4 * k, &v, 4);
		}
		inputs[r] = &in[r];
	}
	ffu_value *out[RANKS];
	int n_out[RANKS];
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run_ranks(m, inputs, 1, RANKS, out, n_out, &e), FFU_STATUS_OK, "%s", e.message);
	/* every rank's group, by hand from XLA's rules (rank = replica x 2 + partition) */
	for (int r = 0; r < RANKS; r++) {
		const int rep = r / 2, part = r % 2;
		cr_assert_eq(n_out[r], 10);
		const ffu_value *o = out[r];
		/* no channel_id, no groups: every replica of my partition */
		int cross_rep[2] = {part, 2 + part};
		/* channel_id: the ids are partitions, within my replica */
		int cross_part[2] = {2 * rep, 2 * rep + 1};
		/* use_global_device_ids=false: replicas {1,0}, every partition: all four */
		int all[4] = {2, 3, 0, 1};
		for (int k = 0; k < N; k++) {
			cr_expect_eq(got(&o[0], k), fold(cross_rep, 2, k, false), "all-reduce sum, rank %d [%d]", r, k);
			cr_expect_eq(got(&o[1], k), fold(cross_part, 2, k, true), "all-reduce product, rank %d [%d]", r, k);
			cr_expect_eq(got(&o[2], k), fold(all, 4, k, false), "all-reduce of all, rank %d [%d]", r, k);
		}
		/* flattened ids {3,0}, {1,2}: the group's operands joined in group order */
		const int gather[4][2] = {{3, 0}, {1, 2}, {1, 2}, {3, 0}};
		for (int k = 0; k < 2 * N; k++)
			cr_expect_eq(got(&o[3], k), xval(gather[r][k / N], k % N), "all-gather, rank %d [%d]", r, k);
		/* flattened {0,3}, {2,1}: my place in the group picks my piece of the sum */
		const int scat[4][2] = {{0, 3}, {2, 1}, {2, 1}, {0, 3}}, place[4] = {0, 1, 0, 1};
		for (int k = 0; k < 2; k++)
			cr_expect_eq(got(&o[4], k), fold(scat[r], 2, 2 * place[r] + k, false), "reduce-scatter, rank %d [%d]", r,
				     k);
		/* replicas {1,0} within my partition: member j sends me its piece (my place) */
		const int members[2] = {2 + part, part}, me = rep == 1 ? 0 : 1;
		for (int k = 0; k < N; k++)
			cr_expect_eq(got(&o[5], k), xval(members[k / 2], 2 * me + k % 2), "all-to-all, rank %d [%d]", r, k);
		/* channel_id: partition 0 -> partition 1 within each replica; partition 0 gets zeros */
		for (int k = 0; k < N; k++)
			cr_expect_eq(got(&o[6], k), part == 1 ? xval(2 * rep, k) : 0u, "permute, rank %d [%d]", r, k);
		/* no channel_id: the replicas swap within each partition */
		for (int k = 0; k < N; k++)
			cr_expect_eq(got(&o[7], k), xval(2 * (1 - rep) + part, k), "swap, rank %d [%d]", r, k);
		cr_expect_eq(got(&o[8], 0), (uint32_t)rep);
		cr_expect_eq(got(&o[9], 0), (uint32_t)part);
		ffu__values_free(out[r], n_out[r]);
	}
	/* the wrong number of ranks is refused, naming both */
	cr_expect_eq(ffu__interp_run_ranks(m, inputs, 1, 3, out, n_out, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "runs on 4 ranks"), "%s", e.message);
	for (int r = 0; r < RANKS; r++)
		ffu__value_free(&in[r]);
	ffu_error_clear(&e);
	ffu__module_free(m);
}

/* One rank with the same program text but no header attributes: each collective is its
   operand (or its piece) of a group of one, and the plain interpreter entry runs it. */
Test(collective, one_rank)
{
	static const char one[] = "HloModule one\n"
				  "%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
				  "  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"
				  "  ROOT %s = babybear[] add(%a, %b)\n}\n"
				  "ENTRY %main (x: babybear[4]) -> babybear[4] {\n"
				  "  %x = babybear[4] parameter(0)\n"
				  "  %r = babybear[4] all-reduce(%x), replica_groups={{0}}, to_apply=%sum\n"
				  "  %g = babybear[4] all-gather(%r), replica_groups={}, dimensions={0}\n"
				  "  ROOT %p = babybear[4] collective-permute(%g), source_target_pairs={{0,0}}\n}\n";
	ffu_module *m = parse_ok(one);
	ffu_value x, *out;
	int n_out;
	cr_assert_eq(ffu__value_alloc(&x, &m->entry->params[0]->shape, NULL), FFU_STATUS_OK);
	for (int k = 0; k < N; k++) {
		uint32_t v = xval(0, k);
		memcpy(x.data + 4 * k, &v, 4);
	}
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run(m, &x, 1, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int k = 0; k < N; k++)
		cr_expect_eq(got(&out[0], k), xval(0, k));
	ffu__values_free(out, n_out);
	ffu__value_free(&x);
	ffu__module_free(m);
}
