/*
 * runtime/exec_impl.h: internal to runtime/exec*.c: the executable's record and the memory
 * plan's entry points, shared by exec.c (kernels, launches, runs) and exec_plan.c (values,
 * their homes and the pool). Nothing else includes this header.
 */
#ifndef FFU_RUNTIME_EXEC_IMPL_H
#define FFU_RUNTIME_EXEC_IMPL_H

#include "codegen/codegen.h"
#include "codegen/field_cl.h"
#include "runtime/exec.h"
#include "util/strbuf.h"

/* How a reduction fusion is spread over the device (codegen/reduce.c). */
typedef struct red_plan {
	size_t O, R;      /* output elements; reduced elements per output */
	size_t wg, L;     /* work-group size (a power of two); elements per work-item */
	size_t Gf, G;     /* whole chunks of wg * L per output; partials per output (Gf + tail) */
	int *partials;    /* per output: the value holding its O * G accumulators (an intermediate) */
	size_t *lm_bytes; /* local scratch per output for a work-group */
	int n_out;
} red_plan;

/* An NTT fusion's buffers (codegen/fft.c): its scratch values and its twiddle table's value
   (a constant filled once at create, or an intermediate filled every run); -1: none. */
typedef struct fft_xplan {
	int scratch[2];
	int table;
} fft_xplan;

typedef enum { HOME_INPUT, HOME_CONST, HOME_POOL, HOME_OUTPUT } home_kind;

/* One array value that lives in device memory. */
typedef struct xval {
	const char *name; /* the instruction producing it, for messages */
	size_t bytes;     /* saturated at SIZE_MAX (value_bytes) */
	home_kind home;
	int idx;          /* input number, constant buffer, pool buffer or output number */
	int def, last;    /* kernel writing it, last kernel reading it (-1: before the first kernel) */
} xval;

/* The values an entry instruction stands for: one for an array, one per element for a tuple. */
typedef struct islot {
	int n;
	int *v;
} islot;

/* After the kernels: output dst receives value src (a parameter or constant returned, or a value returned twice). */
typedef struct out_copy {
	int src, dst;
} out_copy;

/*
 * One kernel of a fusion as the executable runs it: its descriptor (codegen/kernel.h), the
 * OpenCL kernel, its limits, and its launch, all decided at create: work-items
 * offset .. offset + n - 1 (n = 0: not launched) in groups of wg (0: automatic), the
 * stride a wide kernel takes, and the fusion's event slot it reports to (0 or 1; -1: a
 * launch whose events are not kept).
 */
typedef struct xkernel {
	const ffu_kernel_desc *d;
	cl_kernel k;
	ffu_kernel_limits lim;
	size_t offset, n, wg;
	cl_ulong stride;
	int ev_slot;
} xkernel;

/* The buffers one run works on. */
typedef struct bindings {
	const cl_mem *in, *out;
} bindings;

struct ffu_exec {
	ffu_cl *cl;
	const ffu_module *m;
	ffu_strbuf source;
	cl_program program;
	int n_kernels;                /* fusions, each one or more kernels */
	int n_fusions;                /* kernels to be: fusions of the entry (known before the build) */
	ffu_program_kernels pk;       /* each fusion's kernel descriptors, from the code generator */
	xkernel *xk;                  /* fusion k's kernels: xk[K k .. K k + pk.fusions[k].n_kernels), K = FFU_MAX_FUSION_KERNELS */
	red_plan *red;                /* reduction fusions' plans (n_out = 0 for loop fusions) */
	fft_xplan *fft;               /* NTT fusions' buffers */
	ffu_cl_field_opts field_opts; /* the program's field code choices (ffu__codegen_field_opts) */
	bool share;                   /* intermediates share pool buffers (else one each) */

	islot *slots;                 /* per entry instruction */
	xval *vals;
	int n_vals, cap_vals;
	int n_in, n_out;
	int *out_val;                 /* value of each output */
	out_copy *copies;
	int n_copies;
	cl_mem *consts;               /* array constants and NTT root tables, written at create */
	int n_consts;
	cl_mem *pool;                 /* shared intermediate buffers */
	size_t *pool_bytes;
	int n_pool;
	cl_mem *own_in, *own_out;     /* the exec's own io buffers (upload/run/download), made on first use */
	ffu_exec_memory mem;
	size_t device_bytes;
};

/* ---- exec_plan.c ---- */

/* A value's bytes, saturated at SIZE_MAX (a wrapped size would pass the memory checks). */
size_t ffu__exec_value_bytes(const ffu_shape *s);
/* Appends a value; its index, or -1 on out of memory. */
int ffu__exec_new_val(ffu_exec *x, const char *name, size_t bytes, home_kind home, int idx, int def);
/* The values of the entry and their homes (inputs, constants, outputs, intermediates). */
ffu_status ffu__exec_plan_values(ffu_exec *x, ffu_error *e);
/* Intermediates into pool buffers by liveness (or one each without sharing); the plan's totals. */
ffu_status ffu__exec_assign_pool(ffu_exec *x, ffu_error *e);
/* ELIMIT when a value exceeds the largest allocation or the peak the device's memory. */
ffu_status ffu__exec_check_memory(const ffu_exec *x, ffu_error *e);

#endif
