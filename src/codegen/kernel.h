/*
 * codegen/kernel.h: kernel descriptors, the calling convention written once. For every
 * fusion the code generator decides its kernels (a loop kernel and maybe its wide
 * variant; or a reduction's stage-1 main and tail kernels and its final kernel) and
 * describes each: its name, its role (which says how it is launched) and its argument
 * slots in order. The code generator prints each kernel's signature from its descriptor
 * (ffu__kernel_print_signature), and the runtime (runtime/exec.c) creates the kernels by
 * those names and binds each slot from what it holds, so the two cannot disagree.
 *
 * Ownership: an ffu_program_kernels owns its fusions' descriptors and their argument
 * arrays; ffu__program_kernels_free releases them. Instruction and field pointers belong
 * to the module the program was generated from.
 */
#ifndef FFU_CODEGEN_KERNEL_H
#define FFU_CODEGEN_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/body.h"
#include "field.h"
#include "ir/ir.h"
#include "util/strbuf.h"

typedef enum ffu_arg_kind {
	FFU_ARG_INPUT,       /* buffer of the fusion's operand `index` (read) */
	FFU_ARG_OUTPUT,      /* buffer of the fusion's output `index` (written) */
	FFU_ARG_PARTIAL_OUT, /* reduction partials of output `index` (stage 1 writes them) */
	FFU_ARG_PARTIAL_IN,  /* the same, read (stage 2) */
	FFU_ARG_LOCAL,       /* local scratch of output `index`: one value of type f per work-item */
	FFU_ARG_STRIDE,      /* ulong: a wide kernel's work-item count (its elements' stride) */
	FFU_ARG_R,           /* ulong: reduced elements per output element */
	FFU_ARG_GF,          /* ulong: stage 1's whole chunks per output element */
	FFU_ARG_G,           /* ulong: partials per output element */
	FFU_ARG_SCRATCH_IN,  /* an NTT pass's source: scratch buffer `index` (0 or 1) of the fusion */
	FFU_ARG_SCRATCH_OUT, /* an NTT pass's destination: scratch buffer `index` */
	FFU_ARG_TWIDDLES,    /* the NTT's twiddle table, read (passes) */
	FFU_ARG_TWIDDLES_OUT,/* the same, written (the twiddle kernel) */
	FFU_ARG_SCRATCH,     /* an msm step's working memory: the fusion's one scratch buffer, read and written */
	FFU_ARG_VALUE,       /* ulong `name`: a number the plan fixed (value), passed at launch, not printed into
	                        the text, so that plans of other sizes share one program (codegen/msm.c) */
} ffu_arg_kind;

typedef struct ffu_kernel_arg {
	ffu_arg_kind kind;
	int index;
	const ffu_field *f;  /* FFU_ARG_LOCAL: the value type */
	const char *name;    /* FFU_ARG_VALUE: its name in the kernel (a static string) */
	uint64_t value;      /* FFU_ARG_VALUE: its value */
} ffu_kernel_arg;

/* How a kernel is launched (runtime/exec.c). */
typedef enum ffu_kernel_role {
	FFU_KERNEL_LOOP,   /* one element per work-item, over the elements the wide variant leaves */
	FFU_KERNEL_WIDE,   /* `lanes` elements per work-item, over n / lanes work-items */
	FFU_KERNEL_STAGE1, /* reduction, the whole chunks: work-groups of wg, `lanes` elements each */
	FFU_KERNEL_TAIL,   /* reduction, the rest: one work-group per output element */
	FFU_KERNEL_FINAL,  /* reduction, stage 2: one work-item per output element */
	FFU_KERNEL_FFT_TWIDDLES, /* NTT: fills the twiddle table (codegen/fft.c: items work-items) */
	FFU_KERNEL_FFT_PASS,     /* NTT: pass `pass` over memory, `items` work-items */
	FFU_KERNEL_MSM_STEP,     /* msm: one step of codegen/msm.c's plan, `items` work-items */
} ffu_kernel_role;

/* How a loop fusion's wide kernel prints the fusion's planned body (codegen/body.h,
   codegen/wide.c); why each exists, with measurements, is at plan_wide in codegen.c. */
typedef enum ffu_kernel_variant {
	FFU_VARIANT_SCALAR,    /* one element per work-item, as planned (every LOOP kernel) */
	FFU_VARIANT_LANES,     /* `lanes` elements in lockstep, each inversion one batch over them */
	FFU_VARIANT_VECTOR,    /* the body in a vector instance of its extension field (`lanes` wide) */
	FFU_VARIANT_INV_LOOPS, /* `lanes` elements in loops around each inversion (256-bit fields) */
} ffu_kernel_variant;

enum { FFU_MAX_FUSION_KERNELS = 16 }; /* an NTT: its twiddle kernel and up to 15 passes; an msm: 7 steps */

typedef struct ffu_kernel_desc {
	char name[40];
	ffu_kernel_role role;
	ffu_kernel_variant variant; /* LOOP: SCALAR; WIDE: how its body is printed; other roles SCALAR */
	int lanes;             /* WIDE: elements per work-item; STAGE1: elements per work-item (unrolled);
	                          FFT_PASS: the points its stages combine (2^stages); else 1 */
	int pass;              /* FFT_PASS: the pass's number, 0 first */
	size_t items;          /* FFT_*: work-items of its launch (fixed by the shape) */
	size_t wg;             /* FFT_PASS: its work-group size, which its index arithmetic assumes; 0 automatic */
	size_t wg_unit;        /* FFT_PASS: where not 0, any wg / 2^j >= wg_unit works as well, over
	                          items / 2^j work-items (a tile pass's work-items per column) */
	bool once;             /* FFT_TWIDDLES of the roots: run once, when the executable is made */
	ffu_kernel_arg *args;
	int n_args;
} ffu_kernel_desc;

/* One fusion's kernels, in launch order: a loop fusion's wide variant (when it has one)
   and loop kernel; or a reduction's stage-1, tail and final kernels. */
typedef struct ffu_fusion_kernels {
	const ffu_inst *fusion;
	bool reduction;
	bool fft;                  /* an NTT fusion (codegen/fft.c): twiddles, then passes */
	size_t scratch_bytes;      /* fft: bytes of each scratch buffer its passes use (0: none); msm: of its one */
	size_t twiddle_bytes;      /* fft: bytes of the twiddle table */
	bool msm;                  /* an msm fusion (codegen/msm.c): its steps, on one scratch buffer */
	ffu_kernel_desc kernels[FFU_MAX_FUSION_KERNELS];
	int n_kernels;
	/* kept where the program asked (keep_bodies): the statement lists its kernels were
	   printed from, a loop fusion's one, a reduction's stage 1 and stage 2 (body.h) */
	ffu_body *bodies;
	int n_bodies;
} ffu_fusion_kernels;

typedef struct ffu_program_kernels {
	ffu_fusion_kernels *fusions; /* one per fusion of the entry, in entry order */
	int n;
	bool keep_bodies;            /* in: keep each fusion's statement lists (--emit plan, tests) */
} ffu_program_kernels;

void ffu__program_kernels_free(ffu_program_kernels *p);
/* Moves *b (its statements) into fk's kept bodies; *b is left empty for the same index
   name. False when out of memory (b is then unchanged, still the caller's). */
bool ffu__fusion_keep_body(ffu_fusion_kernels *fk, ffu_body *b);
/* The descriptor of `role` among fusion f's kernels, or NULL. */
const ffu_kernel_desc *ffu__fusion_kernel(const ffu_fusion_kernels *f, ffu_kernel_role role);

/*
 * Fills the descriptors of fusion `fusion`, the k-th of its program: a loop fusion with
 * n_out outputs (a wide variant other than SCALAR: also its wide kernel of wide_lanes
 * elements per work-item), or a reduction over n_out outputs
 * of types outs[o] whose stage 1 folds `unroll` elements per work-item. False when out of
 * memory.
 */
bool ffu__kernels_loop(ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, int n_out, ffu_kernel_variant wide,
			int wide_lanes);
bool ffu__kernels_reduction(ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, const ffu_inst *const *outs,
			    int n_out, int unroll);
/* A new descriptor of fk: kernel ffu_k<k><suffix> with room for n_args slots (filled with
   ffu__kernel_slot); NULL when out of memory. */
ffu_kernel_desc *ffu__kernel_add(ffu_fusion_kernels *fk, ffu_kernel_role role, int k, const char *suffix, int lanes,
				 int n_args);
void ffu__kernel_slot(ffu_kernel_desc *d, ffu_arg_kind kind, int index, const ffu_field *f);
/* A FFU_ARG_VALUE slot: `const ulong name`, bound to value at every launch. */
void ffu__kernel_value(ffu_kernel_desc *d, const char *name, uint64_t value);
/* "__kernel void <name>(<slots>)\n{\n": the signature, printed from the descriptor. */
void ffu__kernel_print_signature(ffu_strbuf *sb, const ffu_kernel_desc *d);
/* Its slots alone, comma-separated, as the signature declares them; names_only: their
   names ("in0, out0, stride"; a value slot as name=value, what the launch binds). */
void ffu__kernel_print_args(ffu_strbuf *sb, const ffu_kernel_desc *d, bool names_only);

#endif
