/*
 * tests/test_collective.c: the collectives (docs/hlo.md "Collectives"): their text round
 * trip and the interpreter's simulation of the ranks. Host only: the expected values are
 * worked out here from each op's definition, with the group of every rank written out by
 * hand for each of XLA's four group modes (not computed by ir/collective.c), and the field
 * sums and products taken with GMP. The verifier's errors are in tests/bad/collective_*.hlo
 * (test_hlo reads them); the refusal on a device is test_cli's. The builder's collectives make
 * the same program as the text.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "fieldfuse/builder.h"
#include "hlo_check.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "point.h"
#include "support.h"

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

/* Runs m's RANKS ranks, rank r's x[k] = xval(r, k); out[r], n_out[r] its outputs. */
static void run_ranks(const ffu_module *m, ffu_value **out, int *n_out)
{
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
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run_ranks(m, inputs, 1, RANKS, out, n_out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int r = 0; r < RANKS; r++)
		ffu__value_free(&in[r]);
}

Test(collective, interpreter_simulates_the_ranks)
{
	ffu_module *m = parse_ok(prog);
	ffu_value *out[RANKS];
	int n_out[RANKS];
	run_ranks(m, out, n_out);
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
	/* the wrong number of ranks is refused, naming both, before any input is read */
	const ffu_value *none[3] = {NULL, NULL, NULL};
	ffu_error e = {0};
	cr_expect_eq(ffu__interp_run_ranks(m, none, 1, 3, out, n_out, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "runs on 4 ranks"), "%s", e.message);
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

/*
 * The builder makes the program of `prog` (include/fieldfuse/builder.h): the same lines
 * for the collectives, and the same values on every rank.
 */
Test(collective, builder)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "coll", &e), FFU_STATUS_OK);
	cr_assert_eq(ffu_builder_set_ranks(b, 2, 2, &e), FFU_STATUS_OK, "%s", e.message);
	const int64_t four = 4;
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 1, &four);
	static const int64_t g01[] = {0, 1}, g10[] = {1, 0}, g30_12[] = {3, 0, 1, 2}, g03_21[] = {0, 3, 2, 1};
	ffu_collective_groups all = {NULL, 0, 0, 0, -1}, part = {g01, 1, 2, 1, -1}, rep_part = {g10, 1, 2, 2, 0},
			      flat_g = {g30_12, 2, 2, 3, 1}, flat_s = {g03_21, 2, 2, 4, 1}, rep = {g10, 1, 2, 0, -1};
	ffu_node n[10];
	n[0] = ffu_build_collective(b, FFU_COLLECTIVE_ALL_REDUCE, x, &all, 0, FFU_REDUCE_SUM);
	n[1] = ffu_build_collective(b, FFU_COLLECTIVE_ALL_REDUCE, x, &part, 0, FFU_REDUCE_PRODUCT);
	n[2] = ffu_build_collective(b, FFU_COLLECTIVE_ALL_REDUCE, x, &rep_part, 0, FFU_REDUCE_SUM);
	n[3] = ffu_build_collective(b, FFU_COLLECTIVE_ALL_GATHER, x, &flat_g, 0, FFU_REDUCE_SUM);
	n[4] = ffu_build_collective(b, FFU_COLLECTIVE_REDUCE_SCATTER, x, &flat_s, 0, FFU_REDUCE_SUM);
	n[5] = ffu_build_collective(b, FFU_COLLECTIVE_ALL_TO_ALL, x, &rep, 0, FFU_REDUCE_SUM);
	n[6] = ffu_build_collective_permute(b, x, (const int64_t[]){0, 1}, 1, 5);
	n[7] = ffu_build_collective_permute(b, x, (const int64_t[]){1, 0, 0, 1}, 2, 0);
	n[8] = ffu_build_replica_id(b);
	n[9] = ffu_build_partition_id(b);
	ffu_node t = ffu_build_tuple(b, n, 10);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_program *p = NULL;
	cr_assert_eq(ffu_builder_finish(b, t, &p, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = NULL;
	cr_assert_eq(ffu_program_print(&text, p, &e), FFU_STATUS_OK, "%s", e.message);
	static const char *const want[] = {
		"HloModule coll, replica_count=2, num_partitions=2\n",
		"babybear[4] all-reduce(%x), replica_groups={}, to_apply=%sum\n",
		"babybear[4] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, to_apply=%product\n",
		"babybear[4] all-reduce(%x), channel_id=2, replica_groups={{1,0}}, use_global_device_ids=false, to_apply=%sum\n",
		"babybear[8] all-gather(%x), channel_id=3, replica_groups={{3,0},{1,2}}, dimensions={0}, use_global_device_ids=true\n",
		"babybear[2] reduce-scatter(%x), channel_id=4, replica_groups={{0,3},{2,1}}, dimensions={0}, use_global_device_ids=true, to_apply=%sum\n",
		"babybear[4] all-to-all(%x), replica_groups={{1,0}}, dimensions={0}\n",
		"babybear[4] collective-permute(%x), channel_id=5, source_target_pairs={{0,1}}\n",
		"babybear[4] collective-permute(%x), source_target_pairs={{1,0},{0,1}}\n",
		"u32[] replica-id()\n",
		"u32[] partition-id()\n",
	};
	ffu_test_expect_in(text, want, sizeof want / sizeof want[0]);
	ffu_value *got_b[RANKS], *got_t[RANKS];
	int nb[RANKS], nt[RANKS];
	ffu_module *m = parse_ok(prog);
	run_ranks(p->m, got_b, nb);
	run_ranks(m, got_t, nt);
	for (int r = 0; r < RANKS; r++) {
		cr_assert_eq(nb[r], nt[r]);
		for (int k = 0; k < nb[r]; k++)
			cr_expect(got_b[r][k].bytes == got_t[r][k].bytes &&
					  memcmp(got_b[r][k].data, got_t[r][k].data, got_t[r][k].bytes) == 0,
				  "rank %d output %d differs from the parsed program's", r, k);
		ffu__values_free(got_b[r], nb[r]);
		ffu__values_free(got_t[r], nt[r]);
	}
	free(text);
	ffu__module_free(m);
	ffu_program_destroy(&p);
	ffu_builder_destroy(&b);
}

/* The builder's own errors: ranks after the first node, a group naming an id twice (the
   verifier's message, under the call's name). */
Test(collective, builder_errors)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	cr_assert_eq(ffu_builder_set_ranks(b, 2, 0, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "1 to 4096 ranks"), "%s", e.message);
	ffu_builder_destroy(&b);
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	const int64_t four = 4;
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 1, &four);
	cr_assert_eq(ffu_builder_set_ranks(b, 2, 1, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "before the first node"), "%s", e.message);
	ffu_builder_destroy(&b);
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	cr_assert_eq(ffu_builder_set_ranks(b, 2, 1, &e), FFU_STATUS_OK);
	x = ffu_build_parameter(b, "x", "babybear", 1, &four);
	ffu_collective_groups twice = {(const int64_t[]){1, 1}, 1, 2, 0, -1};
	cr_expect_eq(ffu_build_collective(b, FFU_COLLECTIVE_ALL_GATHER, x, &twice, 0, FFU_REDUCE_SUM), FFU_NODE_INVALID);
	cr_expect_eq(ffu_builder_status(b, &e), FFU_STATUS_EVERIFY);
	cr_expect(strstr(e.message, "ffu_build_collective") && strstr(e.message, "names id 1 twice"), "%s", e.message);
	ffu_builder_destroy(&b);
	ffu_error_clear(&e);
}

/*
 * Points: an all-reduce of bn254_g1_jacobian over 3 replicas, rank r holding k(r, i) G; the
 * sum must be (k(0, i) + k(1, i) + k(2, i)) G, the generator's known multiple (whatever
 * order the ranks are added in).
 */
Test(collective, all_reduce_of_points)
{
	static const char pts[] = "HloModule pts, replica_count=3\n"
				  "%add (a: bn254_g1_jacobian[], b: bn254_g1_jacobian[]) -> bn254_g1_jacobian[] {\n"
				  "  %a = bn254_g1_jacobian[] parameter(0)\n  %b = bn254_g1_jacobian[] parameter(1)\n"
				  "  ROOT %s = bn254_g1_jacobian[] add(%a, %b)\n}\n"
				  "ENTRY %main (x: bn254_g1_jacobian[2]) -> bn254_g1_jacobian[2] {\n"
				  "  %x = bn254_g1_jacobian[2] parameter(0)\n"
				  "  ROOT %r = bn254_g1_jacobian[2] all-reduce(%x), replica_groups={}, to_apply=%add\n}\n";
	ffu_module *m = parse_ok(pts);
	const ffu_field *pt = ffu_test_field("bn254_g1_jacobian"), *sf = ffu_test_field("bn254_sf");
	const size_t eb = pt->storage_bytes;
	ffu_value in[3];
	const ffu_value *inputs[3];
	uint64_t k[3][2] = {{5, 0}, {7, 1}, {11, 123456789}};
	for (int r = 0; r < 3; r++) {
		cr_assert_eq(ffu__value_alloc(&in[r], &m->entry->params[0]->shape, NULL), FFU_STATUS_OK);
		for (int i = 0; i < 2; i++) {
			unsigned char s[32] = {0};
			memcpy(s, &k[r][i], 8); /* little-endian storage, < the scalar field's modulus */
			ffu__point_gen_mul(pt, in[r].data + (size_t)i * eb, sf, s);
		}
		inputs[r] = &in[r];
	}
	ffu_value *out[3];
	int n_out[3];
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run_ranks(m, inputs, 1, 3, out, n_out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < 2; i++) {
		uint64_t sum = k[0][i] + k[1][i] + k[2][i];
		unsigned char s[32] = {0}, want[256];
		memcpy(s, &sum, 8);
		cr_assert_leq(eb, sizeof want);
		ffu__point_gen_mul(pt, want, sf, s);
		for (int r = 0; r < 3; r++)
			cr_expect(ffu__point_eq(pt, out[r][0].data + (size_t)i * eb, pt, want), "rank %d, point %d", r, i);
	}
	for (int r = 0; r < 3; r++) {
		ffu__values_free(out[r], n_out[r]);
		ffu__value_free(&in[r]);
	}
	ffu__module_free(m);
}

/*
 * The SPMD plan (ir/segment.c): the ENTRY cut at its collectives; each segment a module of
 * its own that reads what it takes from outside as parameters named after those values
 * and returns every value used later, as a tuple.
 */
Test(collective, spmd_plan)
{
	static const char chain[] = "HloModule chain, replica_count=3\n"
				    "%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
				    "  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"
				    "  ROOT %s = babybear[] add(%a, %b)\n}\n"
				    "ENTRY %main (x: babybear[4], y: babybear[4]) -> (babybear[12], babybear[4]) {\n"
				    "  %x = babybear[4] parameter(0)\n  %y = babybear[4] parameter(1)\n"
				    "  %ad = babybear[4] add(%x, %y)\n  %m = babybear[4] multiply(%ad, %y)\n"
				    "  %r = babybear[4] all-reduce(%m), replica_groups={}, to_apply=%sum\n"
				    "  %s = babybear[4] multiply(%r, %r)\n  %t = babybear[4] subtract(%s, %ad)\n"
				    "  %g = babybear[12] all-gather(%t), replica_groups={}, dimensions={0}\n"
				    "  %h = babybear[12] negate(%g)\n"
				    "  ROOT %o = (babybear[12], babybear[4]) tuple(%h, %r)\n}\n";
	ffu_module *m = parse_ok(chain);
	ffu_spmd_plan p;
	ffu_error e = {0};
	cr_assert_eq(ffu__spmd_plan(m, &p, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(p.n_steps, 5);
	static const char *const want[5][2] = {
		{"ENTRY %main (x: babybear[4], y: babybear[4]) -> (babybear[4], babybear[4]) {",
		 "(babybear[4], babybear[4]) tuple(%m, %ad)"},
		{NULL, NULL},
		{"ENTRY %main (r: babybear[4], ad: babybear[4]) -> (babybear[4]) {", "tuple(%t)"},
		{NULL, NULL},
		{"ENTRY %main (g: babybear[12]) -> (babybear[12]) {", "tuple(%h)"},
	};
	for (int s = 0; s < 5; s++) {
		cr_expect_eq(!!p.steps[s].seg, !!want[s][0], "step %d", s);
		if (!p.steps[s].seg) {
			cr_expect_eq(p.steps[s].coll, m->entry->insts[s == 1 ? 4 : 7], "step %d", s);
			continue;
		}
		cr_expect_eq(p.steps[s].seg->replica_count, 1);
		char *t = print_ok(p.steps[s].seg);
		cr_expect(strstr(t, want[s][0]) && strstr(t, want[s][1]), "step %d:\n%s", s, t);
		cr_expect(!strstr(t, "all-reduce(") && !strstr(t, "all-gather("), "step %d:\n%s", s, t);
		free(t);
	}
	cr_expect_eq(p.n_outputs, 2);
	cr_expect_eq(p.outputs[0], 8); /* %h */
	cr_expect_eq(p.outputs[1], 4); /* %r */
	ffu__spmd_plan_free(&p);
	ffu__module_free(m);
}
