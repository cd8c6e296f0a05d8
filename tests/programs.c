/* tests/programs.c: see programs.h. */
#include "programs.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const test_program ffu_test_programs[] = {
	{"seed_bb", "HloModule seed_bb\n"
		    "ENTRY %main (x: babybear[N], y: babybear[N]) -> babybear[N] {\n"
		    "  %x = babybear[N] parameter(0)\n"
		    "  %y = babybear[N] parameter(1)\n"
		    "  %s = babybear[N] add(%x, %y)\n"
		    "  ROOT %m = babybear[N] multiply(%s, %x)\n}\n", 1, 2},
	{"seed_bn254", "HloModule seed_bn254\n"
		       "ENTRY %main (x: bn254_sf[N]) -> bn254_sf[N] {\n"
		       "  %x = bn254_sf[N] parameter(0)\n"
		       "  %mul = bn254_sf[N] multiply(%x, %x)\n"
		       "  ROOT %sub = bn254_sf[N] subtract(%mul, %x)\n}\n", 1, 2},
	/* t has three consumers in one kernel: computed once, in registers */
	{"shared_intermediate", "HloModule shared\n"
				"ENTRY %main (x: babybear[N], y: babybear[N]) -> babybear[N] {\n"
				"  %x = babybear[N] parameter(0)\n"
				"  %y = babybear[N] parameter(1)\n"
				"  %t = babybear[N] multiply(%x, %y)\n"
				"  %a = babybear[N] add(%t, %x)\n"
				"  %b = babybear[N] subtract(%t, %y)\n"
				"  %c = babybear[N] multiply(%a, %b)\n"
				"  ROOT %d = babybear[N] add(%c, %t)\n}\n", 1, 5},
	/* an intermediate that is also an output: one kernel with two outputs */
	{"multi_output", "HloModule multi_output\n"
			 "ENTRY %main (x: bn254_sf[N], y: bn254_sf[N]) -> (bn254_sf[N], bn254_sf[N]) {\n"
			 "  %x = bn254_sf[N] parameter(0)\n"
			 "  %y = bn254_sf[N] parameter(1)\n"
			 "  %s = bn254_sf[N] add(%x, %y)\n"
			 "  %p = bn254_sf[N] multiply(%s, %s)\n"
			 "  %q = bn254_sf[N] multiply(%p, %x)\n"
			 "  ROOT %r = (bn254_sf[N], bn254_sf[N]) tuple(%s, %q)\n}\n", 1, 3},
	/* scalar constants become literals (in Montgomery form where a product wants it) */
	{"constants", "HloModule constants\n"
		      "ENTRY %main (x: babybear[N]) -> babybear[N] {\n"
		      "  %x = babybear[N] parameter(0)\n"
		      "  %five = babybear[] constant(5)\n"
		      "  %big = babybear[] constant(2013265920)\n"
		      "  %b5 = babybear[N] broadcast(%five), dimensions={}\n"
		      "  %bb = babybear[N] broadcast(%big), dimensions={}\n"
		      "  %m = babybear[N] multiply(%x, %b5)\n"
		      "  %n = babybear[N] multiply(%bb, %bb)\n"
		      "  %a = babybear[N] add(%m, %n)\n"
		      "  ROOT %r = babybear[N] multiply(%a, %bb)\n}\n", 1, 6},
	{"bn254_constants", "HloModule bn254_constants\n"
			    "ENTRY %main (x: bn254_sf[N]) -> bn254_sf[N] {\n"
			    "  %x = bn254_sf[N] parameter(0)\n"
			    "  %c = bn254_sf[] constant(0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000)\n"
			    "  %bc = bn254_sf[N] broadcast(%c), dimensions={}\n"
			    "  %m = bn254_sf[N] multiply(%bc, %x)\n"
			    "  %n = bn254_sf[N] negate(%m)\n"
			    "  ROOT %r = bn254_sf[N] add(%n, %bc)\n}\n", 1, 4},
	/* a scalar input broadcast into a vector kernel: read at index 0 */
	{"scalar_param", "HloModule scalar_param\n"
			 "ENTRY %main (x: babybear[N], s: babybear[]) -> babybear[N] {\n"
			 "  %x = babybear[N] parameter(0)\n"
			 "  %s = babybear[] parameter(1)\n"
			 "  %bs = babybear[N] broadcast(%s), dimensions={}\n"
			 "  %m = babybear[N] multiply(%x, %bs)\n"
			 "  ROOT %r = babybear[N] subtract(%m, %bs)\n}\n", 1, 3},
	/* a scalar computation feeding a vector one: two kernels (different shapes) */
	{"scalar_chain", "HloModule scalar_chain\n"
			 "ENTRY %main (x: bn254_sf[N], a: bn254_sf[], b: bn254_sf[]) -> bn254_sf[N] {\n"
			 "  %x = bn254_sf[N] parameter(0)\n"
			 "  %a = bn254_sf[] parameter(1)\n"
			 "  %b = bn254_sf[] parameter(2)\n"
			 "  %ab = bn254_sf[] multiply(%a, %b)\n"
			 "  %bab = bn254_sf[N] broadcast(%ab), dimensions={}\n"
			 "  ROOT %r = bn254_sf[N] add(%x, %bab)\n}\n", 2, 3},
	/* outputs that are inputs, and the same value twice */
	{"passthrough", "HloModule passthrough\n"
			"ENTRY %main (x: babybear[N], y: babybear[N]) -> (babybear[N], babybear[N], babybear[N]) {\n"
			"  %x = babybear[N] parameter(0)\n"
			"  %y = babybear[N] parameter(1)\n"
			"  %n = babybear[N] negate(%y)\n"
			"  %nn = babybear[N] negate(%n)\n"
			"  ROOT %r = (babybear[N], babybear[N], babybear[N]) tuple(%x, %nn, %nn)\n}\n", 1, 2},
	/* dead code is dropped, not run */
	{"dead_code", "HloModule dead_code\n"
		      "ENTRY %main (x: babybear[N]) -> babybear[N] {\n"
		      "  %x = babybear[N] parameter(0)\n"
		      "  %unused = babybear[N] multiply(%x, %x)\n"
		      "  ROOT %r = babybear[N] add(%x, %x)\n}\n", 1, 1},
	/* a twelve-op chain mixing every element-wise op */
	{"chain12", "HloModule chain12\n"
		    "ENTRY %main (x: bn254_sf[N], y: bn254_sf[N], z: bn254_sf[N]) -> bn254_sf[N] {\n"
		    "  %x = bn254_sf[N] parameter(0)\n"
		    "  %y = bn254_sf[N] parameter(1)\n"
		    "  %z = bn254_sf[N] parameter(2)\n"
		    "  %a1 = bn254_sf[N] multiply(%x, %y)\n"
		    "  %a2 = bn254_sf[N] add(%a1, %z)\n"
		    "  %a3 = bn254_sf[N] multiply(%a2, %a2)\n"
		    "  %a4 = bn254_sf[N] subtract(%a3, %x)\n"
		    "  %a5 = bn254_sf[N] negate(%a4)\n"
		    "  %a6 = bn254_sf[N] multiply(%a5, %y)\n"
		    "  %a7 = bn254_sf[N] add(%a6, %a1)\n"
		    "  %a8 = bn254_sf[N] multiply(%a7, %z)\n"
		    "  %a9 = bn254_sf[N] subtract(%a8, %a3)\n"
		    "  %a10 = bn254_sf[N] multiply(%a9, %a9)\n"
		    "  %a11 = bn254_sf[N] add(%a10, %a5)\n"
		    "  ROOT %a12 = bn254_sf[N] multiply(%a11, %x)\n}\n", 1, 12},
	/* the other prime fields: each op in a fused chain, constants wrapping near p */
	{"chain_koalabear", "HloModule chain_koalabear\n"
			    "ENTRY %main (x: koalabear[N], y: koalabear[N]) -> koalabear[N] {\n"
			    "  %x = koalabear[N] parameter(0)\n"
			    "  %y = koalabear[N] parameter(1)\n"
			    "  %c = koalabear[] constant(2130706432)\n"
			    "  %bc = koalabear[N] broadcast(%c), dimensions={}\n"
			    "  %a = koalabear[N] multiply(%x, %y)\n"
			    "  %b = koalabear[N] add(%a, %bc)\n"
			    "  %d = koalabear[N] multiply(%b, %b)\n"
			    "  %e = koalabear[N] subtract(%d, %x)\n"
			    "  ROOT %r = koalabear[N] negate(%e)\n}\n", 1, 6},
	{"chain_mersenne31", "HloModule chain_mersenne31\n"
			     "ENTRY %main (x: mersenne31[N], y: mersenne31[N]) -> (mersenne31[N], mersenne31[N]) {\n"
			     "  %x = mersenne31[N] parameter(0)\n"
			     "  %y = mersenne31[N] parameter(1)\n"
			     "  %c = mersenne31[] constant(0x7ffffffe)\n"
			     "  %bc = mersenne31[N] broadcast(%c), dimensions={}\n"
			     "  %a = mersenne31[N] multiply(%x, %y)\n"
			     "  %b = mersenne31[N] multiply(%a, %bc)\n"
			     "  %d = mersenne31[N] multiply(%b, %b)\n"
			     "  %e = mersenne31[N] subtract(%d, %x)\n"
			     "  %f = mersenne31[N] add(%e, %bc)\n"
			     "  %g = mersenne31[N] negate(%f)\n"
			     "  ROOT %r = (mersenne31[N], mersenne31[N]) tuple(%a, %g)\n}\n", 1, 7},
	{"chain_goldilocks", "HloModule chain_goldilocks\n"
			     "ENTRY %main (x: goldilocks[N], y: goldilocks[N]) -> goldilocks[N] {\n"
			     "  %x = goldilocks[N] parameter(0)\n"
			     "  %y = goldilocks[N] parameter(1)\n"
			     "  %c = goldilocks[] constant(0xffffffff00000000)\n"
			     "  %bc = goldilocks[N] broadcast(%c), dimensions={}\n"
			     "  %a = goldilocks[N] multiply(%x, %y)\n"
			     "  %b = goldilocks[N] add(%a, %bc)\n"
			     "  %d = goldilocks[N] multiply(%b, %b)\n"
			     "  %e = goldilocks[N] subtract(%d, %y)\n"
			     "  %f = goldilocks[N] multiply(%e, %bc)\n"
			     "  ROOT %r = goldilocks[N] negate(%f)\n}\n", 1, 7},
	/* vector wide kernels on CPU devices (codegen.c: vector_field): both instances, a
	   broadcast extension constant, every op they take, and a tail of n % 8 elements */
	{"chain_goldilocksx2",
		"HloModule chain_goldilocksx2\n"
		"ENTRY %main (x: goldilocksx2[N], y: goldilocksx2[N], z: goldilocks[N]) -> (goldilocksx2[N], goldilocks[N]) {\n"
		"  %x = goldilocksx2[N] parameter(0)\n"
		"  %y = goldilocksx2[N] parameter(1)\n"
		"  %z = goldilocks[N] parameter(2)\n"
		"  %c = goldilocksx2[] constant((0xffffffff00000000, 7))\n"
		"  %bc = goldilocksx2[N] broadcast(%c), dimensions={}\n"
		"  %a = goldilocksx2[N] multiply(%x, %y)\n"
		"  %b = goldilocksx2[N] add(%a, %bc)\n"
		"  %d = goldilocksx2[N] multiply(%b, %b)\n"
		"  %e = goldilocksx2[N] subtract(%d, %y)\n"
		"  %f = goldilocksx2[N] multiply(%e, %bc)\n"
		"  %g = goldilocksx2[N] negate(%f)\n"
		"  %zz = goldilocks[N] multiply(%z, %z)\n"
		"  %zc = goldilocks[N] subtract(%zz, %z)\n"
		"  ROOT %r = (goldilocksx2[N], goldilocks[N]) tuple(%g, %zc)\n}\n", 2, 9},
	{"seed_bls12_381", "HloModule seed_bls12_381\n"
			   "ENTRY %main (x: bls12_381_sf[N], y: bls12_381_sf[N]) -> bls12_381_sf[N] {\n"
			   "  %x = bls12_381_sf[N] parameter(0)\n"
			   "  %y = bls12_381_sf[N] parameter(1)\n"
			   "  %c = bls12_381_sf[] constant(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000)\n"
			   "  %bc = bls12_381_sf[N] broadcast(%c), dimensions={}\n"
			   "  %m = bls12_381_sf[N] multiply(%x, %x)\n"
			   "  %s = bls12_381_sf[N] subtract(%m, %x)\n"
			   "  %t = bls12_381_sf[N] multiply(%s, %y)\n"
			   "  %u = bls12_381_sf[N] add(%t, %bc)\n"
			   "  ROOT %r = bls12_381_sf[N] negate(%u)\n}\n", 1, 6},
	/* divide, inverse (x / 0 = 0, inverse(0) = 0), power (constant and u32/u64), convert, _mont */
	{"inverse_divide_babybear",
		"HloModule inverse_divide_babybear\n"
		"ENTRY %main (x: babybear[N], y: babybear[N]) -> (babybear[N], babybear[N], babybear[N]) {\n"
		"  %x = babybear[N] parameter(0)\n"
		"  %y = babybear[N] parameter(1)\n"
		"  %z = babybear[] constant(0)\n"
		"  %bz = babybear[N] broadcast(%z), dimensions={}\n"
		"  %i = babybear[N] inverse(%x)\n"
		"  %d = babybear[N] divide(%y, %x)\n"
		"  %m = babybear[N] multiply(%x, %y)\n"
		"  %dm = babybear[N] divide(%m, %y)\n"
		"  %d0 = babybear[N] divide(%y, %bz)\n"
		"  %s = babybear[N] add(%dm, %d0)\n"
		"  ROOT %r = (babybear[N], babybear[N], babybear[N]) tuple(%i, %d, %s)\n"
		"}\n", 3, 7},
	{"inverse_divide_mersenne31",
		"HloModule inverse_divide_mersenne31\n"
		"ENTRY %main (x: mersenne31[N], y: mersenne31[N]) -> (mersenne31[N], mersenne31[N], mersenne31[N]) {\n"
		"  %x = mersenne31[N] parameter(0)\n"
		"  %y = mersenne31[N] parameter(1)\n"
		"  %z = mersenne31[] constant(0)\n"
		"  %bz = mersenne31[N] broadcast(%z), dimensions={}\n"
		"  %i = mersenne31[N] inverse(%x)\n"
		"  %d = mersenne31[N] divide(%y, %x)\n"
		"  %m = mersenne31[N] multiply(%x, %y)\n"
		"  %dm = mersenne31[N] divide(%m, %y)\n"
		"  %d0 = mersenne31[N] divide(%y, %bz)\n"
		"  %s = mersenne31[N] add(%dm, %d0)\n"
		"  ROOT %r = (mersenne31[N], mersenne31[N], mersenne31[N]) tuple(%i, %d, %s)\n"
		"}\n", 3, 7},
	{"inverse_divide_goldilocks",
		"HloModule inverse_divide_goldilocks\n"
		"ENTRY %main (x: goldilocks[N], y: goldilocks[N]) -> (goldilocks[N], goldilocks[N], goldilocks[N]) {\n"
		"  %x = goldilocks[N] parameter(0)\n"
		"  %y = goldilocks[N] parameter(1)\n"
		"  %z = goldilocks[] constant(0)\n"
		"  %bz = goldilocks[N] broadcast(%z), dimensions={}\n"
		"  %i = goldilocks[N] inverse(%x)\n"
		"  %d = goldilocks[N] divide(%y, %x)\n"
		"  %m = goldilocks[N] multiply(%x, %y)\n"
		"  %dm = goldilocks[N] divide(%m, %y)\n"
		"  %d0 = goldilocks[N] divide(%y, %bz)\n"
		"  %s = goldilocks[N] add(%dm, %d0)\n"
		"  ROOT %r = (goldilocks[N], goldilocks[N], goldilocks[N]) tuple(%i, %d, %s)\n"
		"}\n", 3, 7},
	/* 256-bit: two inversions only (each inlined Fermat chain costs seconds of PoCL compile) */
	{"inverse_divide_bn254_sf",
		"HloModule inverse_divide_bn254_sf\n"
		"ENTRY %main (x: bn254_sf[N], y: bn254_sf[N]) -> (bn254_sf[N], bn254_sf[N]) {\n"
		"  %x = bn254_sf[N] parameter(0)\n"
		"  %y = bn254_sf[N] parameter(1)\n"
		"  %z = bn254_sf[] constant(0)\n"
		"  %bz = bn254_sf[N] broadcast(%z), dimensions={}\n"
		"  %d = bn254_sf[N] divide(%y, %x)\n"
		"  %d0 = bn254_sf[N] divide(%d, %bz)\n"
		"  %m = bn254_sf[N] multiply(%d, %x)\n"
		"  %s = bn254_sf[N] add(%m, %d0)\n"
		"  ROOT %r = (bn254_sf[N], bn254_sf[N]) tuple(%d, %s)\n"
		"}\n", 1, 5},
	/*
	 * Moduli >= 2^255 (cl/montn_full.cl): x*x - x, then + y (p - 1 + p - 1 carries out of
	 * 2^256 here) and a product in the _mont form; random inputs are mostly >= 2^255, so
	 * nearly every add and product takes the carry-out paths.
	 */
	{"seed_secp256k1_sf",
		"HloModule seed_secp256k1_sf\n"
		"ENTRY %main (x: secp256k1_sf[N], y: secp256k1_sf[N]) -> (secp256k1_sf[N], secp256k1_sf_mont[N]) {\n"
		"  %x = secp256k1_sf[N] parameter(0)\n"
		"  %y = secp256k1_sf[N] parameter(1)\n"
		"  %m = secp256k1_sf[N] multiply(%x, %x)\n"
		"  %s = secp256k1_sf[N] subtract(%m, %x)\n"
		"  %a = secp256k1_sf[N] add(%s, %y)\n"
		"  %am = secp256k1_sf_mont[N] convert(%a)\n"
		"  %q = secp256k1_sf_mont[N] multiply(%am, %am)\n"
		"  ROOT %r = (secp256k1_sf[N], secp256k1_sf_mont[N]) tuple(%s, %q)\n"
		"}\n", 1, 5},
	/* one inversion (each inlined Fermat chain costs seconds of PoCL compile) */
	{"divide_secp256r1_bf",
		"HloModule divide_secp256r1_bf\n"
		"ENTRY %main (x: secp256r1_bf[N], y: secp256r1_bf[N]) -> (secp256r1_bf[N], secp256r1_bf[N]) {\n"
		"  %x = secp256r1_bf[N] parameter(0)\n"
		"  %y = secp256r1_bf[N] parameter(1)\n"
		"  %d = secp256r1_bf[N] divide(%y, %x)\n"
		"  %m = secp256r1_bf[N] multiply(%d, %x)\n"
		"  ROOT %r = (secp256r1_bf[N], secp256r1_bf[N]) tuple(%d, %m)\n"
		"}\n", 1, 2},
	/*
	 * BLS12-381's base field (cl/montn.cl with 12 words, R = 2^384): x*x - x, a product,
	 * + (p - 1) (a 48-byte literal), negate, and its _mont form converted both ways with a
	 * product in it; the _mont input's conversion back is a second, independent kernel
	 */
	{"seed_bls12_381_bf",
		"HloModule seed_bls12_381_bf\n"
		"ENTRY %main (x: bls12_381_bf[N], y: bls12_381_bf[N], z: bls12_381_bf_mont[N]) -> "
		"(bls12_381_bf[N], bls12_381_bf_mont[N], bls12_381_bf[N]) {\n"
		"  %x = bls12_381_bf[N] parameter(0)\n"
		"  %y = bls12_381_bf[N] parameter(1)\n"
		"  %z = bls12_381_bf_mont[N] parameter(2)\n"
		"  %c = bls12_381_bf[] constant(0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa)\n"
		"  %bc = bls12_381_bf[N] broadcast(%c), dimensions={}\n"
		"  %m = bls12_381_bf[N] multiply(%x, %x)\n"
		"  %s = bls12_381_bf[N] subtract(%m, %x)\n"
		"  %t = bls12_381_bf[N] multiply(%s, %y)\n"
		"  %u = bls12_381_bf[N] add(%t, %bc)\n"
		"  %n = bls12_381_bf[N] negate(%u)\n"
		"  %um = bls12_381_bf_mont[N] convert(%u)\n"
		"  %q = bls12_381_bf_mont[N] multiply(%um, %z)\n"
		"  %zb = bls12_381_bf[N] convert(%z)\n"
		"  %w = bls12_381_bf[N] add(%zb, %y)\n"
		"  ROOT %r = (bls12_381_bf[N], bls12_381_bf_mont[N], bls12_381_bf[N]) tuple(%n, %q, %w)\n"
		"}\n", 2, 10},
	/*
	 * The pairing curves' Fq2 = Fq[u]/(u^2 + 1) (cl/ext2.cl over cl/montn.cl): a product, a
	 * constant (1, p - 1), the prime embedded, negate, the _mont twin; over BLS12-381 a
	 * quotient (the norm's inversion in Fq). Kept short: each Fq2 product is 4 products of
	 * the prime, seconds of cold PoCL compile each over 12 words.
	 */
	{"fq2_bn254_bfx2",
		"HloModule fq2_bn254_bfx2\n"
		"ENTRY %main (x: bn254_bfx2[N], y: bn254_bfx2[N], b: bn254_bf[N], z: bn254_bfx2_mont[N]) -> "
		"(bn254_bfx2[N], bn254_bfx2_mont[N]) {\n"
		"  %x = bn254_bfx2[N] parameter(0)\n"
		"  %y = bn254_bfx2[N] parameter(1)\n"
		"  %b = bn254_bf[N] parameter(2)\n"
		"  %z = bn254_bfx2_mont[N] parameter(3)\n"
		"  %c = bn254_bfx2[] constant((1, 21888242871839275222246405745257275088696311157297823662689037894645226208582))\n"
		"  %bc = bn254_bfx2[N] broadcast(%c), dimensions={}\n"
		"  %m = bn254_bfx2[N] multiply(%x, %y)\n"
		"  %a = bn254_bfx2[N] add(%m, %bc)\n"
		"  %be = bn254_bfx2[N] convert(%b)\n"
		"  %d = bn254_bfx2[N] subtract(%a, %be)\n"
		"  %n = bn254_bfx2[N] negate(%d)\n"
		"  %nm = bn254_bfx2_mont[N] convert(%n)\n"
		"  %q = bn254_bfx2_mont[N] multiply(%nm, %z)\n"
		"  ROOT %r = (bn254_bfx2[N], bn254_bfx2_mont[N]) tuple(%n, %q)\n"
		"}\n", 1, 8},
	{"inverse_divide_bls12_381_bfx2",
		"HloModule inverse_divide_bls12_381_bfx2\n"
		"ENTRY %main (x: bls12_381_bfx2[N], y: bls12_381_bfx2[N], z: bls12_381_bfx2_mont[N]) -> "
		"(bls12_381_bfx2[N], bls12_381_bfx2_mont[N]) {\n"
		"  %x = bls12_381_bfx2[N] parameter(0)\n"
		"  %y = bls12_381_bfx2[N] parameter(1)\n"
		"  %z = bls12_381_bfx2_mont[N] parameter(2)\n"
		"  %c = bls12_381_bfx2[] constant((1, 4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786))\n"
		"  %bc = bls12_381_bfx2[N] broadcast(%c), dimensions={}\n"
		"  %m = bls12_381_bfx2[N] multiply(%x, %y)\n"
		"  %a = bls12_381_bfx2[N] add(%m, %bc)\n"
		"  %d = bls12_381_bfx2[N] divide(%a, %x)\n"
		"  %dm = bls12_381_bfx2_mont[N] convert(%d)\n"
		"  %q = bls12_381_bfx2_mont[N] multiply(%dm, %z)\n"
		"  ROOT %r = (bls12_381_bfx2[N], bls12_381_bfx2_mont[N]) tuple(%d, %q)\n"
		"}\n", 1, 6},
	/* the other fields with a spare top bit (cl/montn.cl as it is): one chain, one kernel each */
	{"fields_255",
		"HloModule fields_255\n"
		"ENTRY %main (a: pallas_sf[N], b: vesta_bf[N], c: curve25519_bf[N], d: bn254_bf[N]) -> "
		"(pallas_sf[N], vesta_bf[N], curve25519_bf[N], bn254_bf[N]) {\n"
		"  %a = pallas_sf[N] parameter(0)\n"
		"  %b = vesta_bf[N] parameter(1)\n"
		"  %c = curve25519_bf[N] parameter(2)\n"
		"  %d = bn254_bf[N] parameter(3)\n"
		"  %a2 = pallas_sf[N] square(%a)\n"
		"  %b2 = vesta_bf[N] add(%b, %b)\n"
		"  %c2 = curve25519_bf[N] multiply(%c, %c)\n"
		"  %c3 = curve25519_bf[N] add(%c2, %c)\n"
		"  %d2 = bn254_bf[N] multiply(%d, %d)\n"
		"  %d3 = bn254_bf[N] negate(%d2)\n"
		"  ROOT %r = (pallas_sf[N], vesta_bf[N], curve25519_bf[N], bn254_bf[N]) tuple(%a2, %b2, %c3, %d3)\n"
		"}\n", 4, 6},
	/* one inversion in the kernel: the CPU devices' wide kernel batches it in loops */
	{"quotient_bn254_sf",
		"HloModule quotient_bn254_sf\n"
		"ENTRY %main (f: bn254_sf[N], x: bn254_sf[N], v: bn254_sf[]) -> bn254_sf[N] {\n"
		"  %f = bn254_sf[N] parameter(0)\n"
		"  %x = bn254_sf[N] parameter(1)\n"
		"  %v = bn254_sf[] parameter(2)\n"
		"  %vb = bn254_sf[N] broadcast(%v), dimensions={}\n"
		"  %num = bn254_sf[N] subtract(%f, %vb)\n"
		"  ROOT %q = bn254_sf[N] divide(%num, %x)\n"
		"}\n", 1, 3},
	{"power_babybear",
		"HloModule power_babybear\n"
		"ENTRY %main (x: babybear[N], e: u32[N]) -> (babybear[N], babybear[N]) {\n"
		"  %x = babybear[N] parameter(0)\n"
		"  %e = u32[N] parameter(1)\n"
		"  %c = u32[] constant(0x1000b)\n"
		"  %c0 = u32[] constant(0)\n"
		"  %bc = u32[N] broadcast(%c), dimensions={}\n"
		"  %bc0 = u32[N] broadcast(%c0), dimensions={}\n"
		"  %p = babybear[N] power(%x, %bc)\n"
		"  %q = babybear[N] power(%x, %e)\n"
		"  %s = babybear[N] add(%p, %q)\n"
		"  %z = babybear[N] power(%s, %bc0)\n"
		"  %t = babybear[N] multiply(%s, %z)\n"
		"  %x7 = babybear[N] power(%t, %e)\n"
		"  ROOT %r = (babybear[N], babybear[N]) tuple(%s, %x7)\n"
		"}\n", 1, 8},
	{"power_koalabear",
		"HloModule power_koalabear\n"
		"ENTRY %main (x: koalabear[N], e: u64[N]) -> (koalabear[N], koalabear[N]) {\n"
		"  %x = koalabear[N] parameter(0)\n"
		"  %e = u64[N] parameter(1)\n"
		"  %c = u64[] constant(0x1000b)\n"
		"  %c0 = u64[] constant(0)\n"
		"  %bc = u64[N] broadcast(%c), dimensions={}\n"
		"  %bc0 = u64[N] broadcast(%c0), dimensions={}\n"
		"  %p = koalabear[N] power(%x, %bc)\n"
		"  %q = koalabear[N] power(%x, %e)\n"
		"  %s = koalabear[N] add(%p, %q)\n"
		"  %z = koalabear[N] power(%s, %bc0)\n"
		"  %t = koalabear[N] multiply(%s, %z)\n"
		"  %x7 = koalabear[N] power(%t, %e)\n"
		"  ROOT %r = (koalabear[N], koalabear[N]) tuple(%s, %x7)\n"
		"}\n", 1, 8},
	{"power_mersenne31",
		"HloModule power_mersenne31\n"
		"ENTRY %main (x: mersenne31[N], e: u32[N]) -> (mersenne31[N], mersenne31[N]) {\n"
		"  %x = mersenne31[N] parameter(0)\n"
		"  %e = u32[N] parameter(1)\n"
		"  %c = u32[] constant(0x1000b)\n"
		"  %c0 = u32[] constant(0)\n"
		"  %bc = u32[N] broadcast(%c), dimensions={}\n"
		"  %bc0 = u32[N] broadcast(%c0), dimensions={}\n"
		"  %p = mersenne31[N] power(%x, %bc)\n"
		"  %q = mersenne31[N] power(%x, %e)\n"
		"  %s = mersenne31[N] add(%p, %q)\n"
		"  %z = mersenne31[N] power(%s, %bc0)\n"
		"  %t = mersenne31[N] multiply(%s, %z)\n"
		"  %x7 = mersenne31[N] power(%t, %e)\n"
		"  ROOT %r = (mersenne31[N], mersenne31[N]) tuple(%s, %x7)\n"
		"}\n", 1, 8},
	{"power_goldilocks",
		"HloModule power_goldilocks\n"
		"ENTRY %main (x: goldilocks[N], e: u64[N]) -> (goldilocks[N], goldilocks[N]) {\n"
		"  %x = goldilocks[N] parameter(0)\n"
		"  %e = u64[N] parameter(1)\n"
		"  %c = u64[] constant(0x1000b)\n"
		"  %c0 = u64[] constant(0)\n"
		"  %bc = u64[N] broadcast(%c), dimensions={}\n"
		"  %bc0 = u64[N] broadcast(%c0), dimensions={}\n"
		"  %p = goldilocks[N] power(%x, %bc)\n"
		"  %q = goldilocks[N] power(%x, %e)\n"
		"  %s = goldilocks[N] add(%p, %q)\n"
		"  %z = goldilocks[N] power(%s, %bc0)\n"
		"  %t = goldilocks[N] multiply(%s, %z)\n"
		"  %x7 = goldilocks[N] power(%t, %e)\n"
		"  ROOT %r = (goldilocks[N], goldilocks[N]) tuple(%s, %x7)\n"
		"}\n", 1, 8},
	{"convert_babybear",
		"HloModule convert_babybear\n"
		"ENTRY %main (a: u32[N], x: babybear_mont[N], y: babybear[N]) -> (babybear_mont[N], babybear[N], u32[N], babybear_mont[N]) {\n"
		"  %a = u32[N] parameter(0)\n"
		"  %x = babybear_mont[N] parameter(1)\n"
		"  %y = babybear[N] parameter(2)\n"
		"  %ya = babybear[N] convert(%a)\n"
		"  %ym = babybear_mont[N] convert(%y)\n"
		"  %am = babybear_mont[N] convert(%a)\n"
		"  %c = babybear_mont[] constant(5)\n"
		"  %bc = babybear_mont[N] broadcast(%c), dimensions={}\n"
		"  %p = babybear_mont[N] multiply(%x, %ym)\n"
		"  %q = babybear_mont[N] add(%p, %bc)\n"
		"  %r = babybear_mont[N] multiply(%q, %am)\n"
		"  %i = babybear_mont[N] inverse(%r)\n"
		"  %back = babybear[N] convert(%r)\n"
		"  %s = babybear[N] multiply(%back, %ya)\n"
		"  %u = u32[N] convert(%s)\n"
		"  ROOT %o = (babybear_mont[N], babybear[N], u32[N], babybear_mont[N]) tuple(%r, %s, %u, %i)\n"
		"}\n", 1, 11},
	{"convert_mersenne31",
		"HloModule convert_mersenne31\n"
		"ENTRY %main (a: u32[N], x: mersenne31_mont[N], y: mersenne31[N]) -> (mersenne31_mont[N], mersenne31[N], u32[N], mersenne31_mont[N]) {\n"
		"  %a = u32[N] parameter(0)\n"
		"  %x = mersenne31_mont[N] parameter(1)\n"
		"  %y = mersenne31[N] parameter(2)\n"
		"  %ya = mersenne31[N] convert(%a)\n"
		"  %ym = mersenne31_mont[N] convert(%y)\n"
		"  %am = mersenne31_mont[N] convert(%a)\n"
		"  %c = mersenne31_mont[] constant(5)\n"
		"  %bc = mersenne31_mont[N] broadcast(%c), dimensions={}\n"
		"  %p = mersenne31_mont[N] multiply(%x, %ym)\n"
		"  %q = mersenne31_mont[N] add(%p, %bc)\n"
		"  %r = mersenne31_mont[N] multiply(%q, %am)\n"
		"  %i = mersenne31_mont[N] inverse(%r)\n"
		"  %back = mersenne31[N] convert(%r)\n"
		"  %s = mersenne31[N] multiply(%back, %ya)\n"
		"  %u = u32[N] convert(%s)\n"
		"  ROOT %o = (mersenne31_mont[N], mersenne31[N], u32[N], mersenne31_mont[N]) tuple(%r, %s, %u, %i)\n"
		"}\n", 1, 11},
	{"convert_goldilocks",
		"HloModule convert_goldilocks\n"
		"ENTRY %main (a: u64[N], x: goldilocks_mont[N], y: goldilocks[N]) -> (goldilocks_mont[N], goldilocks[N], u64[N], goldilocks_mont[N]) {\n"
		"  %a = u64[N] parameter(0)\n"
		"  %x = goldilocks_mont[N] parameter(1)\n"
		"  %y = goldilocks[N] parameter(2)\n"
		"  %ya = goldilocks[N] convert(%a)\n"
		"  %ym = goldilocks_mont[N] convert(%y)\n"
		"  %am = goldilocks_mont[N] convert(%a)\n"
		"  %c = goldilocks_mont[] constant(5)\n"
		"  %bc = goldilocks_mont[N] broadcast(%c), dimensions={}\n"
		"  %p = goldilocks_mont[N] multiply(%x, %ym)\n"
		"  %q = goldilocks_mont[N] add(%p, %bc)\n"
		"  %r = goldilocks_mont[N] multiply(%q, %am)\n"
		"  %i = goldilocks_mont[N] inverse(%r)\n"
		"  %back = goldilocks[N] convert(%r)\n"
		"  %s = goldilocks[N] multiply(%back, %ya)\n"
		"  %u = u64[N] convert(%s)\n"
		"  ROOT %o = (goldilocks_mont[N], goldilocks[N], u64[N], goldilocks_mont[N]) tuple(%r, %s, %u, %i)\n"
		"}\n", 1, 11},
	{"convert_bn254_mont",
		"HloModule convert_bn254_mont\n"
		"ENTRY %main (x: bn254_sf_mont[N], y: bn254_sf[N], e: u64[N]) -> (bn254_sf_mont[N], bn254_sf[N]) {\n"
		"  %x = bn254_sf_mont[N] parameter(0)\n"
		"  %y = bn254_sf[N] parameter(1)\n"
		"  %e = u64[N] parameter(2)\n"
		"  %ym = bn254_sf_mont[N] convert(%y)\n"
		"  %p = bn254_sf_mont[N] multiply(%x, %ym)\n"
		"  %q = bn254_sf_mont[N] power(%p, %e)\n"
		"  %d = bn254_sf_mont[N] divide(%q, %x)\n"
		"  %ec = bn254_sf[N] convert(%e)\n"
		"  %b = bn254_sf[N] convert(%d)\n"
		"  %s = bn254_sf[N] subtract(%b, %ec)\n"
		"  ROOT %o = (bn254_sf_mont[N], bn254_sf[N]) tuple(%d, %s)\n"
		"}\n", 1, 7},
	/* the extensions' _mont twins (raw Montgomery coefficients in and out): over mont31
	   (loads are the device form), Mersenne31 and Goldilocks (a constant product at load
	   and store); conversions both ways, embeddings of the prime's _mont and of u32 */
	{"convert_ext_mont_babybearx4",
		"HloModule convert_ext_mont_babybearx4\n"
		"ENTRY %main (x: babybearx4_mont[N], y: babybearx4[N], b: babybear_mont[N], e: u32[N]) -> (babybearx4_mont[N], babybearx4[N], babybearx4_mont[N]) {\n"
		"  %x = babybearx4_mont[N] parameter(0)\n"
		"  %y = babybearx4[N] parameter(1)\n"
		"  %b = babybear_mont[N] parameter(2)\n"
		"  %e = u32[N] parameter(3)\n"
		"  %c = babybearx4_mont[] constant((1, 2, 3, 2013265920))\n"
		"  %bc = babybearx4_mont[N] broadcast(%c), dimensions={}\n"
		"  %ym = babybearx4_mont[N] convert(%y)\n"
		"  %p = babybearx4_mont[N] multiply(%x, %ym)\n"
		"  %q = babybearx4_mont[N] add(%p, %bc)\n"
		"  %bm = babybearx4_mont[N] convert(%b)\n"
		"  %r = babybearx4_mont[N] multiply(%q, %bm)\n"
		"  %d = babybearx4_mont[N] divide(%r, %x)\n"
		"  %s = babybearx4[N] convert(%d)\n"
		"  %t = babybearx4[N] subtract(%s, %y)\n"
		"  %em = babybearx4_mont[N] convert(%e)\n"
		"  %w = babybearx4_mont[N] power(%q, %e)\n"
		"  %v = babybearx4_mont[N] subtract(%w, %em)\n"
		"  ROOT %o = (babybearx4_mont[N], babybearx4[N], babybearx4_mont[N]) tuple(%d, %t, %v)\n"
		"}\n", 1, 12},
	{"convert_ext_mont_mersenne31x2",
		"HloModule convert_ext_mont_mersenne31x2\n"
		"ENTRY %main (x: mersenne31x2_mont[N], y: mersenne31x2[N], b: mersenne31_mont[N], e: u32[N]) -> (mersenne31x2_mont[N], mersenne31x2[N], mersenne31x2_mont[N]) {\n"
		"  %x = mersenne31x2_mont[N] parameter(0)\n"
		"  %y = mersenne31x2[N] parameter(1)\n"
		"  %b = mersenne31_mont[N] parameter(2)\n"
		"  %e = u32[N] parameter(3)\n"
		"  %c = mersenne31x2_mont[] constant((7, 2147483646))\n"
		"  %bc = mersenne31x2_mont[N] broadcast(%c), dimensions={}\n"
		"  %ym = mersenne31x2_mont[N] convert(%y)\n"
		"  %p = mersenne31x2_mont[N] multiply(%x, %ym)\n"
		"  %q = mersenne31x2_mont[N] add(%p, %bc)\n"
		"  %bm = mersenne31x2_mont[N] convert(%b)\n"
		"  %r = mersenne31x2_mont[N] multiply(%q, %bm)\n"
		"  %d = mersenne31x2_mont[N] divide(%r, %x)\n"
		"  %s = mersenne31x2[N] convert(%d)\n"
		"  %t = mersenne31x2[N] subtract(%s, %y)\n"
		"  %em = mersenne31x2_mont[N] convert(%e)\n"
		"  %w = mersenne31x2_mont[N] power(%q, %e)\n"
		"  %v = mersenne31x2_mont[N] subtract(%w, %em)\n"
		"  ROOT %o = (mersenne31x2_mont[N], mersenne31x2[N], mersenne31x2_mont[N]) tuple(%d, %t, %v)\n"
		"}\n", 1, 12},
	{"convert_ext_mont_goldilocksx3",
		"HloModule convert_ext_mont_goldilocksx3\n"
		"ENTRY %main (x: goldilocksx3_mont[N], y: goldilocksx3[N], b: goldilocks_mont[N], e: u32[N]) -> (goldilocksx3_mont[N], goldilocksx3[N], goldilocksx3_mont[N]) {\n"
		"  %x = goldilocksx3_mont[N] parameter(0)\n"
		"  %y = goldilocksx3[N] parameter(1)\n"
		"  %b = goldilocks_mont[N] parameter(2)\n"
		"  %e = u32[N] parameter(3)\n"
		"  %c = goldilocksx3_mont[] constant((5, 0, 18446744069414584320))\n"
		"  %bc = goldilocksx3_mont[N] broadcast(%c), dimensions={}\n"
		"  %ym = goldilocksx3_mont[N] convert(%y)\n"
		"  %p = goldilocksx3_mont[N] multiply(%x, %ym)\n"
		"  %q = goldilocksx3_mont[N] add(%p, %bc)\n"
		"  %bm = goldilocksx3_mont[N] convert(%b)\n"
		"  %r = goldilocksx3_mont[N] multiply(%q, %bm)\n"
		"  %d = goldilocksx3_mont[N] divide(%r, %x)\n"
		"  %s = goldilocksx3[N] convert(%d)\n"
		"  %t = goldilocksx3[N] subtract(%s, %y)\n"
		"  %em = goldilocksx3_mont[N] convert(%e)\n"
		"  %w = goldilocksx3_mont[N] power(%q, %e)\n"
		"  %v = goldilocksx3_mont[N] subtract(%w, %em)\n"
		"  ROOT %o = (goldilocksx3_mont[N], goldilocksx3[N], goldilocksx3_mont[N]) tuple(%d, %t, %v)\n"
		"}\n", 1, 12},
	/* the cubic extension: products, squares, a constant, the prime embedded */
	{"chain_goldilocksx3",
		"HloModule chain_goldilocksx3\n"
		"ENTRY %main (x: goldilocksx3[N], y: goldilocksx3[N], z: goldilocks[N]) -> goldilocksx3[N] {\n"
		"  %x = goldilocksx3[N] parameter(0)\n"
		"  %y = goldilocksx3[N] parameter(1)\n"
		"  %z = goldilocks[N] parameter(2)\n"
		"  %c = goldilocksx3[] constant((0xffffffff00000000, 7, 1))\n"
		"  %bc = goldilocksx3[N] broadcast(%c), dimensions={}\n"
		"  %a = goldilocksx3[N] multiply(%x, %y)\n"
		"  %b = goldilocksx3[N] add(%a, %bc)\n"
		"  %d = goldilocksx3[N] multiply(%b, %b)\n"
		"  %zx = goldilocksx3[N] convert(%z)\n"
		"  %e = goldilocksx3[N] subtract(%d, %zx)\n"
		"  %f = goldilocksx3[N] multiply(%e, %bc)\n"
		"  ROOT %g = goldilocksx3[N] negate(%f)\n}\n", 1, 8},
	/* a sumcheck round over rows [f(2i), f(2i+1)]: index ops, products and three sums in one
	   reduction fusion (sibling multi-output reduction), the init read by stage 2 only */
	{"sumcheck_rows", "HloModule sumcheck_rows\n"
			  "%sum (a: koalabear[], b: koalabear[]) -> koalabear[] {\n"
			  "  %a = koalabear[] parameter(0)\n"
			  "  %b = koalabear[] parameter(1)\n"
			  "  ROOT %c = koalabear[] add(%a, %b)\n}\n"
			  "ENTRY %main (f: koalabear[N,2], g: koalabear[N,2], z: koalabear[]) -> (koalabear[], koalabear[], koalabear[]) {\n"
			  "  %f = koalabear[N,2] parameter(0)\n"
			  "  %g = koalabear[N,2] parameter(1)\n"
			  "  %z = koalabear[] parameter(2)\n"
			  "  %f0s = koalabear[N,1] slice(%f), slice={[0:N], [0:1]}\n"
			  "  %f1s = koalabear[N,1] slice(%f), slice={[0:N], [1:2]}\n"
			  "  %g0s = koalabear[N,1] slice(%g), slice={[0:N], [0:1]}\n"
			  "  %g1s = koalabear[N,1] slice(%g), slice={[0:N], [1:2]}\n"
			  "  %f0 = koalabear[N] reshape(%f0s)\n"
			  "  %f1 = koalabear[N] reshape(%f1s)\n"
			  "  %g0 = koalabear[N] reshape(%g0s)\n"
			  "  %g1 = koalabear[N] reshape(%g1s)\n"
			  "  %p0 = koalabear[N] multiply(%f0, %g0)\n"
			  "  %p1 = koalabear[N] multiply(%f1, %g1)\n"
			  "  %f1x2 = koalabear[N] add(%f1, %f1)\n"
			  "  %g1x2 = koalabear[N] add(%g1, %g1)\n"
			  "  %f2 = koalabear[N] subtract(%f1x2, %f0)\n"
			  "  %g2 = koalabear[N] subtract(%g1x2, %g0)\n"
			  "  %p2 = koalabear[N] multiply(%f2, %g2)\n"
			  "  %s0 = koalabear[] reduce(%p0, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s1 = koalabear[] reduce(%p1, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s2 = koalabear[] reduce(%p2, %z), dimensions={0}, to_apply=%sum\n"
			  "  ROOT %r = (koalabear[], koalabear[], koalabear[]) tuple(%s0, %s1, %s2)\n}\n", 1, 18},
	/* extensions over the 31-bit fields in 64-bit containers on CPU devices (FFU_EXT_W64):
	   values in local memory twice their storage size (ffu__cl_value_bytes) */
	{"sumcheck_rows_babybearx4", "HloModule sumcheck_rows_babybearx4\n"
			  "%sum (a: babybearx4[], b: babybearx4[]) -> babybearx4[] {\n"
			  "  %a = babybearx4[] parameter(0)\n"
			  "  %b = babybearx4[] parameter(1)\n"
			  "  ROOT %c = babybearx4[] add(%a, %b)\n}\n"
			  "ENTRY %main (f: babybearx4[N,2], g: babybearx4[N,2], z: babybearx4[]) -> (babybearx4[], babybearx4[], babybearx4[]) {\n"
			  "  %f = babybearx4[N,2] parameter(0)\n"
			  "  %g = babybearx4[N,2] parameter(1)\n"
			  "  %z = babybearx4[] parameter(2)\n"
			  "  %f0s = babybearx4[N,1] slice(%f), slice={[0:N], [0:1]}\n"
			  "  %f1s = babybearx4[N,1] slice(%f), slice={[0:N], [1:2]}\n"
			  "  %g0s = babybearx4[N,1] slice(%g), slice={[0:N], [0:1]}\n"
			  "  %g1s = babybearx4[N,1] slice(%g), slice={[0:N], [1:2]}\n"
			  "  %f0 = babybearx4[N] reshape(%f0s)\n"
			  "  %f1 = babybearx4[N] reshape(%f1s)\n"
			  "  %g0 = babybearx4[N] reshape(%g0s)\n"
			  "  %g1 = babybearx4[N] reshape(%g1s)\n"
			  "  %p0 = babybearx4[N] multiply(%f0, %g0)\n"
			  "  %p1 = babybearx4[N] multiply(%f1, %g1)\n"
			  "  %f1x2 = babybearx4[N] add(%f1, %f1)\n"
			  "  %g1x2 = babybearx4[N] add(%g1, %g1)\n"
			  "  %f2 = babybearx4[N] subtract(%f1x2, %f0)\n"
			  "  %g2 = babybearx4[N] subtract(%g1x2, %g0)\n"
			  "  %p2 = babybearx4[N] multiply(%f2, %g2)\n"
			  "  %s0 = babybearx4[] reduce(%p0, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s1 = babybearx4[] reduce(%p1, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s2 = babybearx4[] reduce(%p2, %z), dimensions={0}, to_apply=%sum\n"
			  "  ROOT %r = (babybearx4[], babybearx4[], babybearx4[]) tuple(%s0, %s1, %s2)\n}\n", 1, 18},
	{"sumcheck_rows_mersenne31x2", "HloModule sumcheck_rows_mersenne31x2\n"
			  "%sum (a: mersenne31x2[], b: mersenne31x2[]) -> mersenne31x2[] {\n"
			  "  %a = mersenne31x2[] parameter(0)\n"
			  "  %b = mersenne31x2[] parameter(1)\n"
			  "  ROOT %c = mersenne31x2[] add(%a, %b)\n}\n"
			  "ENTRY %main (f: mersenne31x2[N,2], g: mersenne31x2[N,2], z: mersenne31x2[]) -> (mersenne31x2[], mersenne31x2[], mersenne31x2[]) {\n"
			  "  %f = mersenne31x2[N,2] parameter(0)\n"
			  "  %g = mersenne31x2[N,2] parameter(1)\n"
			  "  %z = mersenne31x2[] parameter(2)\n"
			  "  %f0s = mersenne31x2[N,1] slice(%f), slice={[0:N], [0:1]}\n"
			  "  %f1s = mersenne31x2[N,1] slice(%f), slice={[0:N], [1:2]}\n"
			  "  %g0s = mersenne31x2[N,1] slice(%g), slice={[0:N], [0:1]}\n"
			  "  %g1s = mersenne31x2[N,1] slice(%g), slice={[0:N], [1:2]}\n"
			  "  %f0 = mersenne31x2[N] reshape(%f0s)\n"
			  "  %f1 = mersenne31x2[N] reshape(%f1s)\n"
			  "  %g0 = mersenne31x2[N] reshape(%g0s)\n"
			  "  %g1 = mersenne31x2[N] reshape(%g1s)\n"
			  "  %p0 = mersenne31x2[N] multiply(%f0, %g0)\n"
			  "  %p1 = mersenne31x2[N] multiply(%f1, %g1)\n"
			  "  %f1x2 = mersenne31x2[N] add(%f1, %f1)\n"
			  "  %g1x2 = mersenne31x2[N] add(%g1, %g1)\n"
			  "  %f2 = mersenne31x2[N] subtract(%f1x2, %f0)\n"
			  "  %g2 = mersenne31x2[N] subtract(%g1x2, %g0)\n"
			  "  %p2 = mersenne31x2[N] multiply(%f2, %g2)\n"
			  "  %s0 = mersenne31x2[] reduce(%p0, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s1 = mersenne31x2[] reduce(%p1, %z), dimensions={0}, to_apply=%sum\n"
			  "  %s2 = mersenne31x2[] reduce(%p2, %z), dimensions={0}, to_apply=%sum\n"
			  "  ROOT %r = (mersenne31x2[], mersenne31x2[], mersenne31x2[]) tuple(%s0, %s1, %s2)\n}\n", 1, 18},
	{"chain_koalabearx4",
		"HloModule chain_koalabearx4\n"
		"ENTRY %main (x: koalabearx4[N], y: koalabearx4[N]) -> (koalabearx4[N], koalabearx4[N]) {\n"
		"  %x = koalabearx4[N] parameter(0)\n"
		"  %y = koalabearx4[N] parameter(1)\n"
		"  %c = koalabearx4[] constant((0x7f000000, 3, 0, 1))\n"
		"  %bc = koalabearx4[N] broadcast(%c), dimensions={}\n"
		"  %a = koalabearx4[N] multiply(%x, %y)\n"
		"  %b = koalabearx4[N] add(%a, %bc)\n"
		"  %d = koalabearx4[N] square(%b)\n"
		"  %e = koalabearx4[N] subtract(%d, %y)\n"
		"  %f = koalabearx4[N] multiply(%e, %bc)\n"
		"  %g = koalabearx4[N] negate(%f)\n"
		"  ROOT %r = (koalabearx4[N], koalabearx4[N]) tuple(%a, %g)\n}\n", 1, 7},
	/* a product over the long dimension (few outputs: many groups each) and a sum over the
	   short one (many outputs: the tail kernel alone), then a consumer of the sum */
	{"reduce_rows_cols", "HloModule reduce_rows_cols\n"
			     "%mul (a: goldilocks[], b: goldilocks[]) -> goldilocks[] {\n"
			     "  %a = goldilocks[] parameter(0)\n"
			     "  %b = goldilocks[] parameter(1)\n"
			     "  ROOT %c = goldilocks[] multiply(%b, %a)\n}\n"
			     "%add (s: goldilocks[], t: goldilocks[]) -> goldilocks[] {\n"
			     "  %s = goldilocks[] parameter(0)\n"
			     "  %t = goldilocks[] parameter(1)\n"
			     "  ROOT %u = goldilocks[] add(%s, %t)\n}\n"
			     "ENTRY %main (x: goldilocks[N,3], y: goldilocks[N]) -> (goldilocks[3], goldilocks[N]) {\n"
			     "  %x = goldilocks[N,3] parameter(0)\n"
			     "  %y = goldilocks[N] parameter(1)\n"
			     "  %three = goldilocks[] constant(3)\n"
			     "  %zero = goldilocks[] constant(0)\n"
			     "  %cols = goldilocks[3] reduce(%x, %three), dimensions={0}, to_apply=%mul\n"
			     "  %rows = goldilocks[N] reduce(%x, %zero), dimensions={1}, to_apply=%add\n"
			     "  %ry = goldilocks[N] multiply(%rows, %y)\n"
			     "  ROOT %r = (goldilocks[3], goldilocks[N]) tuple(%cols, %ry)\n}\n", 3, 3},
	/* general broadcasts and a strided slice become index arithmetic in one kernel */
	{"broadcast_slice_2d", "HloModule broadcast_slice_2d\n"
			       "ENTRY %main (v: babybear[N], w: babybear[3], m: babybear[N,5]) -> babybear[N,3] {\n"
			       "  %v = babybear[N] parameter(0)\n"
			       "  %w = babybear[3] parameter(1)\n"
			       "  %m = babybear[N,5] parameter(2)\n"
			       "  %vb = babybear[N,3] broadcast(%v), dimensions={0}\n"
			       "  %wb = babybear[N,3] broadcast(%w), dimensions={1}\n"
			       "  %ms = babybear[N,3] slice(%m), slice={[0:N], [0:5:2]}\n"
			       "  %p = babybear[N,3] multiply(%vb, %wb)\n"
			       "  ROOT %r = babybear[N,3] add(%p, %ms)\n}\n", 1, 5},
	/* concatenate, iota, compare and select fuse into one kernel; pred stays in registers */
	{"concat_iota_select", "HloModule concat_iota_select\n"
			       "ENTRY %main (x: mersenne31[N,1], y: mersenne31[N,2]) -> (mersenne31[N,3], pred[N,3]) {\n"
			       "  %x = mersenne31[N,1] parameter(0)\n"
			       "  %y = mersenne31[N,2] parameter(1)\n"
			       "  %c = mersenne31[N,3] concatenate(%x, %y), dimensions={1}\n"
			       "  %io = mersenne31[N,3] iota(), iota_dimension=1\n"
			       "  %lt = pred[N,3] compare(%c, %io), direction=NE\n"
			       "  %s = mersenne31[N,3] select(%lt, %c, %io)\n"
			       "  %t = mersenne31[N,3] multiply(%s, %c)\n"
			       "  ROOT %r = (mersenne31[N,3], pred[N,3]) tuple(%t, %lt)\n}\n", 1, 5},
	/* a product reduction over Montgomery-typed values of a 256-bit field */
	{"reduce_product_mont", "HloModule reduce_product_mont\n"
				"%mul (a: bn254_sf_mont[], b: bn254_sf_mont[]) -> bn254_sf_mont[] {\n"
				"  %a = bn254_sf_mont[] parameter(0)\n"
				"  %b = bn254_sf_mont[] parameter(1)\n"
				"  ROOT %c = bn254_sf_mont[] multiply(%a, %b)\n}\n"
				"ENTRY %main (x: bn254_sf_mont[N], i: bn254_sf_mont[]) -> bn254_sf_mont[] {\n"
				"  %x = bn254_sf_mont[N] parameter(0)\n"
				"  %i = bn254_sf_mont[] parameter(1)\n"
				"  %sq = bn254_sf_mont[N] square(%x)\n"
				"  %d = bn254_sf_mont[N] add(%sq, %x)\n"
				"  ROOT %r = bn254_sf_mont[] reduce(%d, %i), dimensions={0}, to_apply=%mul\n}\n", 1, 3},
	/*
	 * The ordered ops (ir/order.c): maximum of a product, minimum, clamp with array and
	 * scalar bounds and ordered compares, all on canonical values, in one kernel with
	 * their producers; koalabear stores canonical values, goldilocks_mont Montgomery ones
	 * (compared after the conversion), u32 as integers.
	 */
	{"order_minmax_koalabear", "HloModule order_minmax_koalabear\n"
				   "ENTRY %main (x: koalabear[N], y: koalabear[N], z: koalabear[N]) -> (koalabear[N], koalabear[N], pred[N], pred[N]) {\n"
				   "  %x = koalabear[N] parameter(0)\n"
				   "  %y = koalabear[N] parameter(1)\n"
				   "  %z = koalabear[N] parameter(2)\n"
				   "  %m = koalabear[N] multiply(%x, %y)\n"
				   "  %mx = koalabear[N] maximum(%m, %z)\n"
				   "  %mn = koalabear[N] minimum(%mx, %x)\n"
				   "  %c = koalabear[N] clamp(%x, %mn, %z)\n"
				   "  %lo = koalabear[] constant(1000000)\n"
				   "  %hi = koalabear[] constant(1500000000)\n"
				   "  %cs = koalabear[N] clamp(%lo, %m, %hi)\n"
				   "  %lt = pred[N] compare(%m, %z), direction=LT\n"
				   "  %ge = pred[N] compare(%c, %y), direction=GE\n"
				   "  ROOT %r = (koalabear[N], koalabear[N], pred[N], pred[N]) tuple(%c, %cs, %lt, %ge)\n}\n", 1, 7},
	{"order_goldilocks_mont", "HloModule order_goldilocks_mont\n"
				  "ENTRY %main (x: goldilocks_mont[N], y: goldilocks_mont[N]) -> (goldilocks_mont[N], pred[N], pred[N]) {\n"
				  "  %x = goldilocks_mont[N] parameter(0)\n"
				  "  %y = goldilocks_mont[N] parameter(1)\n"
				  "  %s = goldilocks_mont[N] add(%x, %y)\n"
				  "  %mx = goldilocks_mont[N] maximum(%s, %y)\n"
				  "  %mn = goldilocks_mont[N] minimum(%mx, %x)\n"
				  "  %le = pred[N] compare(%mn, %y), direction=LE\n"
				  "  %gt = pred[N] compare(%s, %x), direction=GT\n"
				  "  ROOT %r = (goldilocks_mont[N], pred[N], pred[N]) tuple(%mn, %le, %gt)\n}\n", 1, 5},
	{"order_u32", "HloModule order_u32\n"
		      "ENTRY %main (x: u32[N], y: u32[N]) -> (u32[N], u32[N], pred[N]) {\n"
		      "  %x = u32[N] parameter(0)\n"
		      "  %y = u32[N] parameter(1)\n"
		      "  %mx = u32[N] maximum(%x, %y)\n"
		      "  %k = u32[] constant(3000000000)\n"
		      "  %mn = u32[N] clamp(%y, %mx, %k)\n"
		      "  %gt = pred[N] compare(%mx, %x), direction=GT\n"
		      "  ROOT %r = (u32[N], u32[N], pred[N]) tuple(%mx, %mn, %gt)\n}\n", 1, 3},
	/* a 256-bit Montgomery type: compares of the canonical values, after from_mont */
	{"order_bn254_sf_mont", "HloModule order_bn254_sf_mont\n"
				"ENTRY %main (x: bn254_sf_mont[N], y: bn254_sf_mont[N]) -> (bn254_sf_mont[N], pred[N], pred[N]) {\n"
				"  %x = bn254_sf_mont[N] parameter(0)\n"
				"  %y = bn254_sf_mont[N] parameter(1)\n"
				"  %m = bn254_sf_mont[N] multiply(%x, %y)\n"
				"  %c = bn254_sf_mont[N] clamp(%x, %m, %y)\n"
				"  %lt = pred[N] compare(%m, %x), direction=LT\n"
				"  %ge = pred[N] compare(%c, %y), direction=GE\n"
				"  ROOT %r = (bn254_sf_mont[N], pred[N], pred[N]) tuple(%c, %lt, %ge)\n}\n", 1, 4},
	/*
	 * reverse and bit-reverse are index arithmetic: reverse(x) + y, a bit-reversed
	 * power-of-two dimension and a product read through both fuse into one kernel
	 */
	{"reverse_bitrev", "HloModule reverse_bitrev\n"
			   "ENTRY %main (x: babybear[N,8], y: babybear[N,8], w: babybearx4[N,4]) -> (babybear[N,8], babybearx4[N,4]) {\n"
			   "  %x = babybear[N,8] parameter(0)\n"
			   "  %y = babybear[N,8] parameter(1)\n"
			   "  %w = babybearx4[N,4] parameter(2)\n"
			   "  %r = babybear[N,8] reverse(%x), dimensions={0}\n"
			   "  %s = babybear[N,8] add(%r, %y)\n"
			   "  %b = babybear[N,8] bit-reverse(%s), dimensions={1}\n"
			   "  %p = babybear[N,8] multiply(%b, %x)\n"
			   "  %rb = babybear[N,8] reverse(%p), dimensions={0,1}\n"
			   "  %wr = babybearx4[N,4] bit-reverse(%w), dimensions={1}\n"
			   "  %wm = babybearx4[N,4] multiply(%wr, %w)\n"
			   "  %wb = babybearx4[N,4] reverse(%wm), dimensions={0}\n"
			   "  ROOT %t = (babybear[N,8], babybearx4[N,4]) tuple(%rb, %wb)\n}\n", 2, 8},
};
const int ffu_test_n_programs = sizeof ffu_test_programs / sizeof ffu_test_programs[0];

long long ffu_test_program_max_n(const test_program *p)
{
	/* Field inversions and powers cost hundreds of products per element on the device and
	   in the interpreter: the short lengths already cover partial work-groups. */
	static const char *const costly[] = {"inverse_divide_", "power_", "convert_"};
	for (size_t i = 0; i < sizeof costly / sizeof costly[0]; i++)
		if (strncmp(p->name, costly[i], strlen(costly[i])) == 0)
			return 1000;
	return 0;
}

char *ffu_test_program_text(const test_program *p, long long n)
{
	char num[32];
	int k = snprintf(num, sizeof num, "%lld", n);
	size_t len = strlen(p->text);
	char *out = malloc(len * (size_t)k + 1);
	if (!out)
		return NULL;
	char *w = out;
	for (const char *r = p->text; *r; r++) {
		bool standalone = *r == 'N' && (r == p->text || !isalnum((unsigned char)r[-1])) &&
				  !isalnum((unsigned char)r[1]);
		if (standalone) {
			memcpy(w, num, (size_t)k);
			w += k;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return out;
}
