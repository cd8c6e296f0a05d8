/*
 * codegen/fft_impl.h: the plan of an NTT fusion's kernels, shared by its two emitters and
 * private to them: codegen/fft.c (the plan, the twiddle kernels), codegen/fft_pass.c (the
 * passes of one radix stage in registers), codegen/fft_vec.c (the same in a vector
 * instance, several columns a work-item) and codegen/fft_tile.c (the passes of two stages
 * that meet in local memory). fft.c's file comment says what the kernels compute.
 *
 * Words: a *stage* is one Stockham step of radix 2^lr[s] (the transform is a chain of
 * them); a *pass* is one kernel, one read and one write of the array, which runs one stage
 * in registers or two through a tile in local memory (pass_stages).
 *
 * Ownership: plain data; instruction and field pointers belong to the fused computation.
 */
#ifndef FFU_CODEGEN_FFT_IMPL_H
#define FFU_CODEGEN_FFT_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/kernel.h"
#include "field.h"
#include "ir/ir.h"
#include "util/strbuf.h"

enum { TW_BLOCK = 64 }; /* table entries per work-item of the generating kernel */
enum { MAX_RADIX = 64 }; /* 2^6: FIELDFUSE_FFT_RADIX's largest (util/config.c), a stage's largest */
enum { FFT_MAX_PASSES = FFU_MAX_FUSION_KERNELS - 1, FFT_MAX_STAGES = 2 * FFT_MAX_PASSES };

typedef struct fft_plan {
	const ffu_inst *fft;     /* in the fused computation */
	const ffu_field *f;      /* element type */
	const ffu_field *p;      /* prime field of the roots */
	const ffu_field *tf;     /* the twiddles operand's type, or NULL */
	int tw_param;            /* its parameter number, or -1 */
	int64_t n, rows, h;      /* length, transforms, n/2 (table entries) */
	int k;
	int nst;                 /* stages */
	int lr[FFT_MAX_STAGES];  /* log2 of each stage's radix */
	int64_t off[FFT_MAX_STAGES]; /* each stage's twiddles in the table (after the n/2 powers) */
	int npass;               /* passes (kernels) */
	int pass_first[FFT_MAX_PASSES];  /* each pass's first stage */
	int pass_stages[FFT_MAX_PASSES]; /* and its stages: 1 in registers, 2 through a tile */
	int64_t table;           /* table entries: the n/2 powers, then every stage's */
	int n_in, n_out;
	size_t wg;               /* one-stage passes' work-group size (the target's; at most T) */
	bool wg_p;               /* ... or p where 1 < p < wg (device/target.h fft_wg_p) */
	size_t tile_w, tile_s;   /* tile passes: columns per work-group, work-items per column */
	char ft[64], pt[64];     /* OpenCL types of the elements and of the prime field */
	char fn[64], pn[64];     /* their functions' prefix: <base>_add, <prime>_load (a vector
	                            pass's copy of the plan names the vector instance's) */
	int vw;                  /* columns a work-item of a vector pass (fft_vec.c); 0: none */
	bool vw_ends;            /* the first and last passes may be vector passes too */
	bool nt;                 /* vector passes store past the caches (device/target.h fft_stream_bytes) */
	bool direct_out;         /* the fusion's one output is the transform, in natural order: the
	                            last pass may store it itself (a vector pass: whole vectors) */
	bool rev_in;             /* the first pass reads at bit-reversed indices */
	bool cpu;                /* the target is a CPU (the stores of a pass with p = 1: emit_pass) */
	/* the first stage's slots (fft.c's "Columns"): cols, slot t's helper class slot[t]
	   (ffu_k<k>_x<c>) or -1 where it is the constant zero; else one helper */
	bool cols;
	int slot[MAX_RADIX];
} fft_plan;

/* log2 of the sub-transforms done before stage s (p = 2^that). */
int ffu__fft_stage_lp(const fft_plan *pl, int s);

/* a * w (w a prime-field twiddle in Montgomery form), for the element type. */
void ffu__fft_mulw(ffu_strbuf *sb, const fft_plan *pl, const char *a, const char *w);
/* "<fn>_make(words)" of canonical value x of prime p in the device's Montgomery form (fn:
   p's name, or its vector instance's, which broadcasts). */
void ffu__fft_mont_const(ffu_strbuf *sb, const ffu_field *p, const char *fn, const unsigned char *x);
/* The helpers' input (and output) buffer arguments. */
void ffu__fft_io_args(ffu_strbuf *sb, const fft_plan *pl, bool outputs);

/* "\tconst <pt> <wp>j = w_R^j;" for 1 <= j < R/2, R = 2^r: the constants of a DFT_R. */
void ffu__fft_dft_consts(ffu_strbuf *sb, const fft_plan *pl, int r, const char *wp);
/*
 * DFT_R (R = 2^r) on the values named cur[0 .. R-1], given in bit-reversed order (cur[j]
 * holds input bitrev(j)), in radix-2 stages; afterwards cur[t] names output t. zero[j]:
 * cur[j] is the constant zero, which folds (NULL: none is). *v numbers the temporaries
 * a<v>; wp names the constants of ffu__fft_dft_consts.
 */
void ffu__fft_dft(ffu_strbuf *sb, const fft_plan *pl, int r, char (*cur)[16], bool *zero, const char *wp, int *v);
/* "\tconst ulong kk = col mod p, blk = col - kk;" for a pass after 2^lp, 2^lt columns a row,
   work-groups of w columns whose first is g0 (lane: the column's local index). */
void ffu__fft_kk(ffu_strbuf *sb, const char *col, const char *lane, int lp, int lt, size_t w);
/* Stage q's values u0 .. u<R-1> of the work-item at column expression col (slot t at col +
   t n / R), from the pass's inputs (first) or src, times the stage's twiddles. */
void ffu__fft_stage_in(ffu_strbuf *sb, const fft_plan *pl, int k, int q, bool first, const char *col);
/* Stage q's products of u1 .. u<R-1> by its twiddles at kk (none for the first stage),
   loaded by <pn>_<load>(tw, index). */
void ffu__fft_twiddle_products(ffu_strbuf *sb, const fft_plan *pl, int q, const char *load);
/* The first stage's load of slot t at column expression ix of row `base`: an expression. */
void ffu__fft_load_x(ffu_strbuf *sb, const fft_plan *pl, int k, int t, const char *ix);
/* The last stage's store of value vt at index ix of row `base` (1/n and bit reversal for
   the IFFT, as its options say); or to dst when it is not the last. */
void ffu__fft_store(ffu_strbuf *sb, const fft_plan *pl, int k, bool last, const char *ix, const char *vt);
/* The last stage's hand-over of value v, already scaled, at index ix of row `base` to the
   consumers (ffu_k<k>_y; at the bit-reversed index where the IFFT's options say). */
void ffu__fft_store_y(ffu_strbuf *sb, const fft_plan *pl, int k, const char *ix, const char *v);
/* The DFT's names of stage q's values before its radix-2 steps (cur[j] = u<bitrev(j)>) and
   which are the constant zero (the first pass's zero slots); false when out of memory. */
bool ffu__fft_names(const fft_plan *pl, int q, bool first, char (**cur)[16], bool **zero);
/* Adds the pass's kernel descriptor, with its arguments (inputs and outputs where it is
   first or last, the scratch buffers between, the twiddles); NULL when out of memory. */
ffu_kernel_desc *ffu__fft_pass_desc(ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g);

/* "\tconst <pt> ninv = 1/n;" where the last pass of an IFFT scales (ffu__fft_store reads it). */
void ffu__fft_ninv(ffu_strbuf *sb, const fft_plan *pl, bool last);
/* Pass g of one stage in registers (codegen/fft_pass.c); false when out of memory. */
bool ffu__fft_emit_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g);
/* Whether pass g runs in the vector instance (codegen/fft_vec.c says which can). */
bool ffu__fft_vector_pass(const fft_plan *pl, int g);
/* Pass g of one stage in the vector instance (codegen/fft_vec.c); false when out of memory. */
bool ffu__fft_emit_vector_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g);
/* Pass g of two stages through local memory (codegen/fft_tile.c); false when out of memory. */
bool ffu__fft_emit_tile_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g);

#endif
