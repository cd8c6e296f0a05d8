/*
 * tests/test_sharding.c: XLA's sharding={...} (docs/hlo.md "Sharding"): its text round trip
 * (the iota lists written out as XLA's documentation expands them), the tiles each
 * partition holds (worked out here by hand from the tile assignment, not by
 * ir/sharding.c), and a sharded program's inputs cut and outputs joined giving what the
 * same computation on the whole arrays gives (the interpreter on both). Host only; the
 * verifier's errors are in tests/bad/sharding_*.hlo (test_hlo reads them); the device and
 * MPI runs are tests/mpi_check.sh's.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo_check.h"
#include "interp/interp.h"
#include "ir/value.h"

static const char written[] =
	"HloModule sh, num_partitions=4\n"
	"\n"
	"%add (p: babybear[], q: babybear[]) -> babybear[] {\n"
	"  %p = babybear[] parameter(0)\n"
	"  %q = babybear[] parameter(1)\n"
	"  ROOT %r = babybear[] add(%p, %q)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[2,3], y: babybear[8], z: babybear[2]) -> (babybear[2,3], babybear[8]) {\n"
	"  %x = babybear[2,3] parameter(0), sharding={devices=[2,2]<=[4]}\n"
	"  %y = babybear[8] parameter(1), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}\n"
	"  %z = babybear[2] parameter(2), sharding={devices=[4]<=[2,2]T(1,0) metadata={op_name=\"z\"}}\n"
	"  %a = babybear[2,3] add(%x, %x), sharding={replicated}\n"
	"  %g = babybear[8] all-reduce(%y), replica_groups=[1,4]<=[2,2]T(1,0), channel_id=1, use_global_device_ids=true, to_apply=%add, sharding={maximal device=3}\n"
	"  ROOT %t = (babybear[2,3], babybear[8]) tuple(%a, %g), sharding={{devices=[2,2]3,2,1,0}, {devices=[1,4]0,1,2,3 last_tile_dims={replicated}}}\n"
	"}\n";

/* The same, as the printer writes it: ids listed, XLA's attribute order. */
static const char canonical[] =
	"HloModule sh, num_partitions=4\n"
	"\n"
	"%add (p: babybear[], q: babybear[]) -> babybear[] {\n"
	"  %p = babybear[] parameter(0)\n"
	"  %q = babybear[] parameter(1)\n"
	"  ROOT %r = babybear[] add(%p, %q)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[2,3], y: babybear[8], z: babybear[2]) -> (babybear[2,3], babybear[8]) {\n"
	"  %x = babybear[2,3] parameter(0), sharding={devices=[2,2]0,1,2,3}\n"
	"  %y = babybear[8] parameter(1), sharding={devices=[2,2]0,2,1,3 last_tile_dim_replicate}\n"
	"  %z = babybear[2] parameter(2), sharding={devices=[4]0,2,1,3}\n"
	"  %a = babybear[2,3] add(%x, %x), sharding={replicated}\n"
	"  %g = babybear[8] all-reduce(%y), channel_id=1, replica_groups={{0,2,1,3}}, use_global_device_ids=true, to_apply=%add, sharding={maximal device=3}\n"
	"  ROOT %t = (babybear[2,3], babybear[8]) tuple(%a, %g), sharding={{devices=[2,2]3,2,1,0}, {devices=[1,4]0,1,2,3 last_tile_dim_replicate}}\n"
	"}\n";

Test(sharding, round_trip)
{
	ffu_module *m = parse_ok(written);
	char *t = print_ok(m);
	cr_expect_str_eq(t, canonical);
	free(t);
	ffu__module_free(m);
	t = round_trip(canonical); /* print, parse, print: the same text, equal modules */
	cr_expect_str_eq(t, canonical);
	free(t);
	/* a deep copy keeps the shardings in its own arena */
	m = parse_ok(canonical);
	ffu_module *c = ffu__module_clone(m);
	cr_assert(c);
	ffu__module_free(m);
	t = print_ok(c);
	cr_expect_str_eq(t, canonical);
	free(t);
	ffu__module_free(c);
}

/* XLA's own example of an iota tile assignment: [4,2]<=[2,4]T(1,0) is 0,4,1,5,2,6,3,7. */
Test(sharding, iota_transpose)
{
	ffu_module *m = parse_ok("HloModule m, num_partitions=8\n"
				 "ENTRY %main {\n"
				 "  ROOT %x = babybear[4,2] parameter(0), sharding={devices=[4,2]<=[2,4]T(1,0)}\n"
				 "}\n");
	const ffu_sharding *s = m->entry->root->sharding;
	static const int64_t want[8] = {0, 4, 1, 5, 2, 6, 3, 7};
	cr_assert(s && s->kind == FFU_SHARD_TILED && s->n_dims == 2);
	for (int k = 0; k < 8; k++)
		cr_expect_eq(s->devices[k], want[k], "id %d", k);
	ffu__module_free(m);
}

static uint32_t word(const ffu_value *v, int64_t k)
{
	uint32_t x;
	memcpy(&x, v->data + 4 * (size_t)k, 4);
	return x;
}

/* A [4,6] array, element (i, j) = 100 i + j, under devices=[2,2]3,2,1,0: partition 3 holds
   rows 0-1, columns 0-2 (tile (0,0)); 2 tile (0,1); 1 tile (1,0); 0 tile (1,1). */
Test(sharding, tiles_by_hand)
{
	ffu_module *m = parse_ok("HloModule m, num_partitions=4\n"
				 "ENTRY %main {\n"
				 "  ROOT %x = babybear[2,3] parameter(0), sharding={devices=[2,2]3,2,1,0}\n"
				 "}\n");
	const ffu_inst *x = m->entry->params[0];
	ffu_shape ws;
	ffu__param_whole_shape(m, 0, &ws);
	cr_assert(ws.rank == 2 && ws.dims[0] == 4 && ws.dims[1] == 6);
	ffu_value whole, piece[4];
	cr_assert_eq(ffu__value_alloc(&whole, &ws, NULL), FFU_STATUS_OK);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 6; j++) {
			uint32_t v = (uint32_t)(100 * i + j);
			memcpy(whole.data + 4 * (size_t)(6 * i + j), &v, 4);
		}
	static const int row0[4] = {2, 2, 0, 0}, col0[4] = {3, 0, 3, 0}; /* partition p's first row and column */
	const ffu_value *pieces[4];
	for (int p = 0; p < 4; p++) {
		bool owned = false;
		ffu_error e = {0};
		cr_assert_eq(ffu__param_rank_value(m, 0, &whole, p, &piece[p], &owned, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert(owned);
		cr_assert(ffu__shape_eq(&piece[p].shape, &x->shape));
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				cr_expect_eq(word(&piece[p], 3 * i + j), (uint32_t)(100 * (row0[p] + i) + col0[p] + j),
					     "partition %d (%d, %d)", p, i, j);
		pieces[p] = &piece[p];
	}
	ffu_value back;
	cr_assert_eq(ffu__value_untile(pieces, 4, x->sharding, &back, NULL), FFU_STATUS_OK);
	cr_assert_eq(back.bytes, whole.bytes);
	cr_expect(memcmp(back.data, whole.data, whole.bytes) == 0);
	ffu__value_free(&back);
	for (int p = 0; p < 4; p++)
		ffu__value_free(&piece[p]);
	ffu__value_free(&whole);
	ffu__module_free(m);
}

/* A rank's tile read from a .bin file alone (its rows at their offsets), and from a text
   file (read whole, then cut): the same tiles as above, by hand; a file of the wrong size
   is refused naming it. */
Test(sharding, tiles_from_files)
{
	ffu_module *m = parse_ok("HloModule m, num_partitions=4\n"
				 "ENTRY %main {\n"
				 "  ROOT %x = babybear[2,3] parameter(0), sharding={devices=[2,2]3,2,1,0}\n"
				 "}\n");
	char dir[] = "/tmp/ffu_sharding_XXXXXX", bin[64], txt[64], shortf[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(bin, sizeof bin, "%s/x.bin", dir);
	snprintf(txt, sizeof txt, "%s/x.txt", dir);
	snprintf(shortf, sizeof shortf, "%s/short.bin", dir);
	FILE *fb = fopen(bin, "wb"), *ft = fopen(txt, "w"), *fs = fopen(shortf, "wb");
	cr_assert(fb && ft && fs);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 6; j++) {
			uint32_t v = (uint32_t)(100 * i + j);
			fwrite(&v, 4, 1, fb);
			fprintf(ft, "%u\n", v);
			if (i < 3)
				fwrite(&v, 4, 1, fs);
		}
	fclose(fb);
	fclose(ft);
	fclose(fs);
	static const int row0[4] = {2, 2, 0, 0}, col0[4] = {3, 0, 3, 0};
	for (int f = 0; f < 2; f++)
		for (int p = 0; p < 4; p++) {
			ffu_value v;
			ffu_error e = {0};
			cr_assert_eq(ffu__param_read_rank(m, 0, f ? txt : bin, p, &v, &e), FFU_STATUS_OK, "%s", e.message);
			cr_assert_eq(v.bytes, 24u);
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 3; j++)
					cr_expect_eq(word(&v, 3 * i + j), (uint32_t)(100 * (row0[p] + i) + col0[p] + j),
						     "%s, partition %d (%d, %d)", f ? "text" : ".bin", p, i, j);
			ffu__value_free(&v);
		}
	ffu_value v;
	ffu_error e = {0};
	cr_expect_eq(ffu__param_read_rank(m, 0, shortf, 1, &v, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.message, "size is 72 bytes, expected 96"), "%s", e.message);
	cr_expect(strstr(e.file, "short.bin"), "%s", e.file);
	remove(bin);
	remove(txt);
	remove(shortf);
	rmdir(dir);
	ffu__module_free(m);
}

/* last_tile_dim_replicate: [2,2]0,2,1,3 on [8] -> two tiles of 4, partitions 0 and 2 hold the
   first, 1 and 3 the second. */
Test(sharding, replicated_tiles)
{
	ffu_module *m = parse_ok("HloModule m, num_partitions=4\n"
				 "ENTRY %main {\n"
				 "  ROOT %y = babybear[4] parameter(0), sharding={devices=[2,2]0,2,1,3 last_tile_dim_replicate}\n"
				 "}\n");
	ffu_shape ws;
	ffu__param_whole_shape(m, 0, &ws);
	cr_assert(ws.rank == 1 && ws.dims[0] == 8);
	ffu_value whole;
	cr_assert_eq(ffu__value_alloc(&whole, &ws, NULL), FFU_STATUS_OK);
	for (uint32_t k = 0; k < 8; k++)
		memcpy(whole.data + 4 * k, &(uint32_t){k + 10}, 4);
	static const int first[4] = {0, 4, 0, 4};
	for (int p = 0; p < 4; p++) {
		ffu_value v;
		bool owned;
		cr_assert_eq(ffu__param_rank_value(m, 0, &whole, p, &v, &owned, NULL), FFU_STATUS_OK);
		for (int k = 0; k < 4; k++)
			cr_expect_eq(word(&v, k), (uint32_t)(first[p] + k + 10), "partition %d [%d]", p, k);
		ffu__value_free(&v);
	}
	ffu__value_free(&whole);
	ffu__module_free(m);
}

/*
 * A sharded program against the same computation on whole arrays: x[4,6] * broadcast(y[6])
 * + x, split 2 x 2 over 4 partitions (y's halves each held by two partitions), plus a
 * sum of all of x (a reduce on each tile, then an all-reduce across the partitions). Random
 * whole inputs; each rank's inputs cut, the ranks simulated, the outputs joined.
 */
static const char whole_prog[] =
	"HloModule whole\n"
	"%add (a: babybear[], b: babybear[]) -> babybear[] {\n"
	"  %a = babybear[] parameter(0)\n"
	"  %b = babybear[] parameter(1)\n"
	"  ROOT %s = babybear[] add(%a, %b)\n"
	"}\n"
	"ENTRY %main (x: babybear[4,6], y: babybear[6]) -> (babybear[4,6], babybear[]) {\n"
	"  %x = babybear[4,6] parameter(0)\n"
	"  %y = babybear[6] parameter(1)\n"
	"  %b = babybear[4,6] broadcast(%y), dimensions={1}\n"
	"  %m = babybear[4,6] multiply(%x, %b)\n"
	"  %r = babybear[4,6] add(%m, %x)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %s = babybear[] reduce(%x, %zero), dimensions={0,1}, to_apply=%add\n"
	"  ROOT %t = (babybear[4,6], babybear[]) tuple(%r, %s)\n"
	"}\n";
static const char sharded_prog[] =
	"HloModule sharded, num_partitions=4\n"
	"%add (a: babybear[], b: babybear[]) -> babybear[] {\n"
	"  %a = babybear[] parameter(0)\n"
	"  %b = babybear[] parameter(1)\n"
	"  ROOT %s = babybear[] add(%a, %b)\n"
	"}\n"
	"ENTRY %main (x: babybear[2,3], y: babybear[3]) -> (babybear[2,3], babybear[]) {\n"
	"  %x = babybear[2,3] parameter(0), sharding={devices=[2,2]0,1,2,3}\n"
	"  %y = babybear[3] parameter(1), sharding={devices=[2,2]0,2,1,3 last_tile_dim_replicate}\n"
	"  %b = babybear[2,3] broadcast(%y), dimensions={1}\n"
	"  %m = babybear[2,3] multiply(%x, %b)\n"
	"  %r = babybear[2,3] add(%m, %x)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %part = babybear[] reduce(%x, %zero), dimensions={0,1}, to_apply=%add\n"
	"  %s = babybear[] all-reduce(%part), channel_id=1, replica_groups={{0,1,2,3}}, to_apply=%add\n"
	"  ROOT %t = (babybear[2,3], babybear[]) tuple(%r, %s), sharding={{devices=[2,2]0,1,2,3}, {replicated}}\n"
	"}\n";

Test(sharding, program_matches_whole)
{
	ffu_module *w = parse_ok(whole_prog), *s = parse_ok(sharded_prog);
	ffu_error e = {0};
	ffu_value in[2], *ref = NULL, *outs[4] = {0}, *joined = NULL, rank_in[4][2];
	const ffu_value *ins[4];
	bool owned[4][2];
	int n_ref = 0, n_outs[4];
	uint64_t state = 42;
	for (int p = 0; p < 2; p++) {
		ffu_shape ws;
		ffu__param_whole_shape(s, p, &ws);
		cr_assert(ffu__shape_eq(&ws, &w->entry->params[p]->shape), "parameter %d's whole shape", p);
		cr_assert_eq(ffu__value_alloc(&in[p], &ws, NULL), FFU_STATUS_OK);
		ffu__value_random(&in[p], &state);
	}
	cr_assert_eq(ffu__interp_run(w, in, 2, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	for (int r = 0; r < 4; r++) {
		for (int p = 0; p < 2; p++)
			cr_assert_eq(ffu__param_rank_value(s, p, &in[p], r, &rank_in[r][p], &owned[r][p], &e), FFU_STATUS_OK);
		ins[r] = rank_in[r];
	}
	cr_assert_eq(ffu__interp_run_ranks(s, ins, 2, 4, outs, n_outs, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__outputs_join(s, outs, n_outs[0], &joined, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(n_outs[0], n_ref);
	for (int o = 0; o < n_ref; o++) {
		cr_assert(ffu__shape_eq(&joined[o].shape, &ref[o].shape), "output %d's shape", o);
		cr_expect(memcmp(joined[o].data, ref[o].data, ref[o].bytes) == 0, "output %d", o);
	}
	ffu__values_free(joined, n_ref);
	ffu__values_free(ref, n_ref);
	for (int r = 0; r < 4; r++) {
		ffu__values_free(outs[r], n_outs[r]);
		for (int p = 0; p < 2; p++)
			if (owned[r][p])
				ffu__value_free(&rank_in[r][p]);
	}
	for (int p = 0; p < 2; p++)
		ffu__value_free(&in[p]);
	ffu__module_free(w);
	ffu__module_free(s);
}
