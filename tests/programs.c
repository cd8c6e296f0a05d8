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
};
const int ffu_test_n_programs = sizeof ffu_test_programs / sizeof ffu_test_programs[0];

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
