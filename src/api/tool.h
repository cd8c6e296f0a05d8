/*
 * src/api/tool.h: the one internal header of the tools (the `fieldfuse` CLI, bench, tune,
 * fieldfuse-latency, fieldfuse-soak), for what only tools need and the public API
 * (include/fieldfuse/) does not offer: the compiler's stages one at a time (the fused
 * module as text, its kernel plans, OpenCL C for a recorded device, disabled passes, dumps
 * after a pass), random inputs as `--random` draws them, the program cache's counters, the
 * device report, and files read whole and written whole or not at all. Everything else a
 * tool does goes through the public headers, on their handles (ffu_program, ffu_device,
 * ffu_executable, ffu_buffer): this header names no internal type, so the library's
 * internals change without the tools noticing.
 *
 * Not installed and not part of the library's ABI: the tools are built with the library,
 * from this tree. Owned by the API layer (src/api/tool.c, tool_devices.c); the ownership
 * rules are the public headers' (fieldfuse.h): malloc'd text is the caller's to free(),
 * handles are borrowed for the call.
 */
#ifndef FFU_API_TOOL_H
#define FFU_API_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "fieldfuse/fieldfuse.h"

/* Fills e (may be NULL) with status s and the printf-style message, as the library's own
   errors are made; returns s. For a tool's errors (usage, files, mismatches). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
ffu_status ffu_tool_error(ffu_error *e, ffu_status s, const char *fmt, ...);

/* Milliseconds of a monotonic clock (for timing phases apart). */
double ffu_tool_now_ms(void);

/* The form a type's storage bytes are in (fieldfuse.h): FFU_FORM_MONTGOMERY for a `_mont`
   type, else FFU_FORM_CANONICAL; a transfer in this form copies the bytes as they are. */
ffu_form ffu_tool_storage_form(const char *type);

/*
 * Fills host (bytes long: ffu_program_input's info.bytes; for an SPMD program the whole
 * input's, ffu_tool_spmd_input) with input i of p drawn at random from *seed, as `fieldfuse
 * run --random` draws it: uniform elements of the type in its storage form, valid points of
 * a curve, a CSR matrix's random positions; an fft's twiddles operand is not drawn but
 * ZKX's table of root powers (the seed is still advanced as for a drawn one).
 */
ffu_status ffu_tool_random_input(const ffu_program *p, int i, uint64_t *seed, void *host, size_t bytes,
				 ffu_error *e);

/* The program cache's counters of a device (runtime/cache.h): builds from source, disk and
   memory hits so far; whether it builds through the disk cache; its platform's name. */
typedef struct ffu_tool_cache_stats {
	unsigned source_builds, disk_hits, memory_hits;
	int disk_cache;
	const char *platform; /* the device's; valid until it is closed */
} ffu_tool_cache_stats;
void ffu_tool_device_cache(const ffu_device *d, ffu_tool_cache_stats *s);

/* The pass pipeline's pass names, comma-separated; whether name is one of them or "all";
   a comma-separated list checked (EINVAL naming the unknown one, `what` first). */
const char *ffu_tool_pass_names(void);
int ffu_tool_pass_known(const char *name);
ffu_status ffu_tool_passes_check(const char *list, const char *what, ffu_error *e);

/* What `fieldfuse compile` stops at: the fused module as HLO text, its kernel plans
   (descriptors and statement lists, docs/architecture.md "The kernel plan"), or its
   OpenCL C. */
typedef enum ffu_tool_emit {
	FFU_TOOL_EMIT_HLO,
	FFU_TOOL_EMIT_PLAN,
	FFU_TOOL_EMIT_CL,
} ffu_tool_emit;

typedef struct ffu_tool_compile_opts {
	int no_fuse;                /* one kernel per op */
	const char *disable_passes; /* comma-separated pass names to skip; NULL: none */
	const char *dump_after;     /* a pass name or "all": the module after it, to dump_to */
	FILE *dump_to;
	/* the device generated for: a capability fixture's path (a JSON file of tests/fixtures/caps/),
	   its fusion budget and build options included; NULL: a generic GPU (lanes 1) or CPU */
	const char *target;
	const char *target_name;    /* how the header line names it; NULL: the path */
	int lanes;                  /* 0: the target's (generic: 1); else elements per work-item */
} ffu_tool_compile_opts;

/*
 * Compiles a private copy of p (p is not modified) through the passes and prints the
 * fused module, its kernel plans for the target, or, for FFU_TOOL_EMIT_CL, the OpenCL C
 * program the target's device would build, headed with a target's build options and what
 * decided them. *text malloc'd.
 */
ffu_status ffu_tool_emit_program(char **text, const ffu_program *p, ffu_tool_emit what,
				 const ffu_tool_compile_opts *o, ffu_error *e);

/* `fieldfuse devices`: every OpenCL device, its capabilities, the profile and target a
   context on it would resolve, its disk-cache default and an element-wise launch's
   work-group size (a probe kernel built on each), as text or a JSON array (json != 0). */
ffu_status ffu_tool_devices_report(FILE *out, int json, ffu_error *e);

/* Whether p is an SPMD program (several ranks, or collectives: docs/hlo.md "Collectives"):
   `fieldfuse run` runs those through its SPMD runner (tools/cli/run_spmd.c). */
int ffu_tool_program_is_spmd(const ffu_program *p);

/* ---------------------------------------------------------------- compiling for a device */

/* A device's launch and code-generation choices (docs/tuning.md), each 0 for "the
   device's own": what `fieldfuse tune` tries and the tuning database stores. */
typedef struct ffu_tool_params {
	size_t wg;        /* work-group size of element-wise kernels */
	int lanes;        /* elements per work-item in wide kernels (1: none) */
	int vector_width; /* uint words per load in 256-bit kernels (1 scalar, 4 uint4) */
	int limb_bits;    /* limb width of 256-bit fields: 32 or 64 */
} ffu_tool_params;

typedef struct ffu_tool_exec_opts {
	int no_fuse;                /* one kernel per op */
	/* no_fuse alone decides: FIELDFUSE_DISABLE_FUSION is not read (bench and soak compile
	   both ways on purpose) */
	int fusion_as_asked;
	const char *disable_passes; /* comma-separated pass names to skip; NULL: none */
	const char *file;           /* the name errors cite; NULL: the module's */
	/* the device's choices overridden for this executable only (its kernels are generated
	   and launched with them); NULL: the device's */
	const ffu_tool_params *params;
} ffu_tool_exec_opts;

/* ffu_executable_create with a tool's options (o NULL: the defaults, as the public call). */
ffu_status ffu_tool_executable_create(ffu_executable **x, ffu_device *d, const ffu_program *p,
				      const ffu_tool_exec_opts *o, ffu_error *e);

/* ---------------------------------------------------------------- devices */

/* Devices a selector matches, in `fieldfuse devices` order ("all": every device; NULL: as
   ffu_device_open's default): *ids malloc'd, each "P:D" for ffu_device_open. ENODEV naming
   the devices present when nothing matches. */
typedef struct ffu_tool_device_id {
	char id[16];
} ffu_tool_device_id;
ffu_status ffu_tool_device_ids(const char *selector, ffu_tool_device_id **ids, int *n, ffu_error *e);

/* What tools report about a device and size their work by (strings valid until close). */
typedef struct ffu_tool_device_facts {
	const char *id, *name, *platform, *driver;
	const char *vendor;      /* the vendor class: "nvidia", "amd", "intel", "pocl", ... */
	const char *device_vendor; /* CL_DEVICE_VENDOR as the driver says it (bench's report) */
	int is_cpu;              /* CL_DEVICE_TYPE_CPU */
	uint64_t global_mem, max_alloc;
	uint64_t global_cache;   /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (a CPU's L3); 0 unknown */
	size_t max_wg;           /* work-group size limit */
	size_t max_wi0;          /* work-items in dimension 0 of a work-group, at most */
	int tuned;               /* a tuning-database entry applies to it */
} ffu_tool_device_facts;
void ffu_tool_device_facts_get(const ffu_device *d, ffu_tool_device_facts *f);

/* ---------------------------------------------------------------- host values */

/*
 * An executable's buffers, filled from and read into host arrays (each its info.bytes, in
 * the type's storage form, copied as it is): what every tool that runs an executable does
 * around ffu_executable_run. in[i] is input i's buffer, out[o] output o's.
 */
typedef struct ffu_tool_buffers {
	ffu_buffer **in, **out;
	int n_in, n_out;
} ffu_tool_buffers;
/* A buffer for every input and output of x, contents undefined. Free *b with
   ffu_tool_buffers_free, after a failure too. */
ffu_status ffu_tool_buffers_make(ffu_tool_buffers *b, const ffu_executable *x, ffu_error *e);
/* inputs[i] into in[i], every input (validated as ffu_buffer_upload does). */
ffu_status ffu_tool_buffers_upload(ffu_tool_buffers *b, const void *const *inputs, ffu_error *e);
/* ffu_executable_run of x on b (stats may be NULL). */
ffu_status ffu_tool_buffers_run(ffu_executable *x, ffu_tool_buffers *b, ffu_run_stats *stats, ffu_error *e);
/* out[o] into outputs[o], every output. */
ffu_status ffu_tool_buffers_download(const ffu_tool_buffers *b, void *const *outputs, ffu_error *e);
void ffu_tool_buffers_free(ffu_tool_buffers *b);

/* Which of a program's arrays: its inputs (entry parameters) or its outputs. */
typedef enum ffu_tool_side {
	FFU_TOOL_INPUTS,
	FFU_TOOL_OUTPUTS,
} ffu_tool_side;

/* One zeroed host array per input (side FFU_TOOL_INPUTS) or output of p, each its
   info.bytes (at least one byte, so an empty array has an address): *data malloc'd and
   NULL-terminated. Free with ffu_tool_arrays_free, after a failure too. */
ffu_status ffu_tool_arrays_alloc(void ***data, const ffu_program *p, ffu_tool_side side, ffu_error *e);
void ffu_tool_arrays_free(void **data);

/*
 * Reads a value file (HLO.md section 4: text, or binary for a .bin path) as input i of p
 * into host (bytes: ffu_program_input's info.bytes; for an SPMD program the whole input's,
 * ffu_tool_spmd_input), in the type's storage form: elements checked against the modulus,
 * points on their curve; errors name FILE:LINE (EPARSE, EIO).
 */
ffu_status ffu_tool_read_input(const ffu_program *p, int i, const char *path, void *host, size_t bytes,
			       ffu_error *e);
/* Writes arrays first .. first + n - 1 of one side of p (data[k]: array first + k, its
   info.bytes) to one value file (text; .bin: binary, one array), whole or not at all
   ("-": standard output). */
ffu_status ffu_tool_write_values(const char *path, const ffu_program *p, ffu_tool_side side, int first, int n,
				 const void *const *data, ffu_error *e);

/* How ffu_tool_compare reports: the first `show` differences to report (NULL: none), as
   "WHAT: output O element I: GOT_NAME X, WANT_NAME Y". */
typedef struct ffu_tool_compare_opts {
	FILE *report;
	int show;
	const char *what, *got_name, *want_name;
} ffu_tool_compare_opts;
/*
 * Compares every output of p in got with want (each info.bytes): storage bytes, except
 * points, which compare as group elements (a jacobian or xyzz point has many
 * representatives). Returns the elements that differ; *elements (may be NULL) the
 * elements compared.
 */
long long ffu_tool_compare(const ffu_program *p, const void *const *got, const void *const *want,
			   const ffu_tool_compare_opts *o, long long *elements);

/* The work a program asks for, per run: field products (one per element of a multiply or
   square, a dot's products, an fft's radix-2 butterflies: log2(n) n/2 per row) and the
   points of its msm instructions (n each). */
typedef struct ffu_tool_work {
	int64_t products, points;
} ffu_tool_work;
void ffu_tool_program_work(const ffu_program *p, ffu_tool_work *w);

/* ---------------------------------------------------------------- files */

/* Reads a whole file (text or binary; NUL-terminated for text): *data malloc'd, *len its
   bytes (len may be NULL). EIO naming the file when it cannot be read. */
ffu_status ffu_tool_read_file(const char *path, char **data, size_t *len, ffu_error *e);
/* Writes len bytes to path ("-": standard output) through a temporary file renamed into
   place, so that a failure never leaves a partial file under the final name. */
ffu_status ffu_tool_write_file(const char *path, const void *data, size_t len, ffu_error *e);

/* ---------------------------------------------------------------- tune (tools/cli/cmd_tune.c) */

/* The device's built-in profile (the profile table alone: no tuning entry, environment or
   override), what `fieldfuse tune` measures against: its params and how the table found
   them ("table: default > cpu > pocl cpu"), written into source (cap bytes). */
void ffu_tool_tune_builtin(const ffu_device *d, ffu_tool_params *p, char *source, size_t cap);
/* Forgets the tuning-database entry d found when it was opened: from now on d chooses as
   if it had none (the table, then the environment; params of ffu_tool_executable_create
   still override), so a search compares with the built-in profile, not an earlier one. */
void ffu_tool_tune_ignore_entry(ffu_device *d);
/*
 * What an executable of p created on d with params (fusion as asked; NULL: the device's
 * own choices) builds: the build options the profile adds, a newline, and the generated
 * OpenCL C. Two candidates whose texts are equal build the same program. Generated again
 * from a private copy of p (nothing is built); *text malloc'd.
 */
ffu_status ffu_tool_tune_code(char **text, ffu_device *d, const ffu_program *p, const ffu_tool_params *params,
			      ffu_error *e);
/* Adds or replaces d's entry in the tuning database (docs/tuning.md) with p and record (the
   text of a JSON object: what the search measured, kept as the entry's "tune"; NULL:
   none); *path (path may be NULL) the database's path, malloc'd. */
ffu_status ffu_tool_tune_store(const ffu_device *d, const ffu_tool_params *p, const char *record, char **path,
			       ffu_error *e);

/* ---------------------------------------------------------------- bench (bench/copy.c) */

/*
 * The work-group size an element-wise launch of n work-items (n >= 1) gets on d, as the
 * library launches its own kernels (docs/tuning.md): the device's override, else
 * FIELDFUSE_WG_SIZE, else its tuned or profile size within the kernel's limits (kernel_max:
 * CL_KERNEL_WORK_GROUP_SIZE, preferred: CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE; 0
 * unknown) and the device's. Such a launch runs n - n % *local work-items in groups of
 * *local, then the rest in groups of one. For a tool's own OpenCL kernel on the device's
 * queue (bench's copy roof). EINVAL / ELIMIT where the library's launch would refuse (a bad
 * FIELDFUSE_WG_SIZE, a size over a limit).
 */
ffu_status ffu_tool_launch_local(const ffu_device *d, size_t n, size_t kernel_max, size_t preferred, size_t *local,
				 ffu_error *e);

/* ---------------------------------------------------------------- soak (tools/gen/soak.c) */

/*
 * The pipeline's pass `pass` (a name of ffu_tool_pass_names) run alone on a private copy
 * of p, then verified, as a new program *out (the caller's; p is not modified): what
 * fieldfuse-soak interprets after each pass in turn, each pass on the previous one's
 * result, to name a pass that changes a value. The pass runs as the host check always
 * has: fusion on whatever FIELDFUSE_DISABLE_FUSION says, no device (a fusion takes up to
 * 64 kernel arguments, no dot becomes a reduce), nothing disabled. The result may hold
 * fusions: it is for ffu_program_interpret, ffu_program_print and the queries. EINVAL for
 * an unknown pass; a pass's error, or the verifier's ("after pass NAME: ..."), as is. *out
 * NULL on failure.
 */
ffu_status ffu_tool_program_after_pass(ffu_program **out, const ffu_program *p, const char *pass, ffu_error *e);

/*
 * Output o of p alone, compared as ffu_tool_compare compares (got and want: its
 * info.bytes each; points as group elements): the elements that differ. *first (may be
 * NULL) is the first of them, -1 when none; got_text and want_text (cap bytes each, may be
 * NULL) its two values as text, cut to fit, "?" when none differs. For telling which of
 * several programs sharing one module (a soak batch) an output difference belongs to.
 */
long long ffu_tool_compare_output(const ffu_program *p, int o, const void *got, const void *want, long long *first,
				  char *got_text, char *want_text, size_t cap);

/* ---------------------------------------------------------------- SPMD programs (tools/cli/run_spmd.c) */

/*
 * An SPMD program (ffu_tool_program_is_spmd; docs/hlo.md "Collectives", "Sharding") runs
 * on ranks; its inputs and outputs (ffu_program_input, ffu_program_output) are one rank's
 * pieces, and the value files hold the whole arrays the ENTRY's parameters' and ROOT's
 * shardings cut and join. Every rank's arrays are host arrays of those rank-local infos, in
 * the types' storage form: in[r][i], out[r][o]. The library keeps the collectives'
 * semantics (groups, pieces, reductions); a tool running one rank per process only moves
 * bytes between processes (ffu_tool_transport). src/api/tool_spmd.c.
 */

/* The ranks of p, replica_count x num_partitions (1 for any other program); the two
   factors into replicas and partitions (each may be NULL). */
int ffu_tool_spmd_ranks(const ffu_program *p, int *replicas, int *partitions);

/* The whole input i, what its value file holds (the rank's piece times the parameter's
   tiles; for a parameter its sharding does not split, and for any program that is not
   SPMD, its own info): what ffu_tool_read_input and ffu_tool_random_input fill. */
ffu_status ffu_tool_spmd_input(const ffu_program *p, int i, ffu_array_info *whole, ffu_error *e);
/* Rank's part of input i (host, bytes: ffu_program_input's) from the whole one (whole_data:
   ffu_tool_spmd_input's bytes). An input whose whole has the part's bytes is not split:
   every rank's part is the whole, which a caller may share instead of cutting. */
ffu_status ffu_tool_spmd_cut(const ffu_program *p, int i, const void *whole_data, int rank, void *host, size_t bytes,
			     ffu_error *e);
/* Rank's part of input i read from a value file: a tile of a .bin file alone (its rows, at
   their offsets: no rank reads the whole file), anything else read whole and cut. Errors as
   ffu_tool_read_input's. */
ffu_status ffu_tool_spmd_read_rank(const ffu_program *p, int i, const char *path, int rank, void *host, size_t bytes,
				   ffu_error *e);

/* The collectives that exchange values (replica-id and partition-id need no other rank). */
typedef enum ffu_tool_coll_op {
	FFU_TOOL_ALL_REDUCE,
	FFU_TOOL_REDUCE_SCATTER,
	FFU_TOOL_ALL_GATHER,
	FFU_TOOL_ALL_TO_ALL,
	FFU_TOOL_COLLECTIVE_PERMUTE,
} ffu_tool_coll_op;

/* One exchanging collective of a program as one rank sees it. */
typedef struct ffu_tool_collective {
	int id;            /* 0, 1, ... over the exchanging collectives in ENTRY order: the same on every rank */
	const char *name;  /* the instruction's name (no '%'), for errors; the program's */
	ffu_tool_coll_op op;
	size_t elem_bytes; /* one element: what a reduction combines */
	int n_ranks;
	/* grouped ops (not collective-permute: -1, -1, 0): this rank's group number, its
	   position in the group, the groups' size */
	int group, position, group_size;
	int in_order;      /* one group of every rank in rank order (a world communicator will do) */
	const int *sources; /* collective-permute: sources[r], the rank r receives from, -1 none (n_ranks) */
	const void *impl;  /* the library's own (valid while the program is): ffu_tool_combine reads it */
} ffu_tool_collective;

/* The exchanging collectives of p as rank sees them, *cs malloc'd (free with
   ffu_tool_spmd_collectives_free): what a transport prepares (its communicators) before any
   device work. EINVAL when a collective's groups or pairs do not hold. */
ffu_status ffu_tool_spmd_collectives(const ffu_program *p, int rank, ffu_tool_collective **cs, int *n, ffu_error *e);
void ffu_tool_spmd_collectives_free(ffu_tool_collective *cs, int n);
/* inout[k] = in[k] op inout[k] for count elements: c's reduction (a field's add or
   multiply, a curve's point add), what a transport's reduction (an MPI user op) calls. */
void ffu_tool_combine(const ffu_tool_collective *c, void *inout, const void *in, size_t count);

/* The exchange between processes, given by the tool: one rank per process. */
typedef struct ffu_tool_transport {
	void *ctx;
	int rank; /* this process's one rank */
	/*
	 * Moves one collective's data, packed by the library (S = c->group_size); every rank
	 * calls it for every exchanging collective, in id order:
	 *   ALL_REDUCE      send, recv: count elements; recv := the group's combination
	 *   REDUCE_SCATTER  send: S * count elements, member j's piece j-th; recv: count, the
	 *                   combination of this member's pieces
	 *   ALL_GATHER      send: count bytes; recv: S * count bytes, in member order
	 *   ALL_TO_ALL      send, recv: S blocks of count bytes (block j to / from member j)
	 *   PERMUTE         send: count bytes to each rank t with sources[t] == rank; recv: count
	 *                   bytes from sources[rank], NULL when that is -1 (the library fills
	 *                   the type's zero)
	 * A failure's status and e are the run's.
	 */
	ffu_status (*exchange)(void *ctx, const ffu_tool_collective *c, const void *send, void *recv, size_t count,
			       ffu_error *e);
} ffu_tool_transport;

typedef struct ffu_tool_spmd_opts {
	ffu_tool_exec_opts exec;             /* no_fuse, fusion_as_asked, disable_passes, file; params: NULL */
	const ffu_tool_transport *transport; /* NULL: every rank in this process */
} ffu_tool_spmd_opts;

/* What a run took: kernels of every segment, once (every rank runs them); device time
   summed over the ranks run here and the segments; host wall time of the segments
   (uploads, runs, downloads) and of the collectives (with a transport: waiting for the
   others too). */
typedef struct ffu_tool_spmd_stats {
	int kernels;
	double kernel_ms, segment_ms, exchange_ms;
} ffu_tool_spmd_stats;

/*
 * Runs p's ranks on d: the ENTRY cut at its collectives, each segment compiled once (o's
 * options, NULL the defaults) and run for every rank, each collective exchanged on the
 * host. Without a transport every rank runs in this process (in[r][i] and out[r][o] for
 * every rank r); with one only its rank does (in[0], out[0]), exchanging through it.
 * stats may be NULL.
 */
ffu_status ffu_tool_spmd_run(ffu_device *d, const ffu_program *p, const ffu_tool_spmd_opts *o,
			     const void *const *const *in, void *const *const *out, ffu_tool_spmd_stats *stats,
			     ffu_error *e);
/* The reference interpreter's simulation of every rank, in lockstep: the oracle --check
   compares each rank with (in, out as ffu_tool_spmd_run's without a transport). */
ffu_status ffu_tool_spmd_interpret(const ffu_program *p, const void *const *const *in, void *const *const *out,
				   ffu_error *e);

/* Whether the program's outputs are joined from rank's (a sharded ROOT's tiles, {maximal
   device=D}'s rank, else rank 0): which ranks' outputs a run across processes gathers. */
int ffu_tool_spmd_join_reads(const ffu_program *p, int rank);
/* Every rank's outputs (outs[r], NULL where ffu_tool_spmd_join_reads is 0) joined by the
   ROOT's sharding and written to one value file ("-": standard output; .bin: binary),
   whole or not at all. */
ffu_status ffu_tool_spmd_write_joined(const char *path, const ffu_program *p, const void *const *const *outs,
				      ffu_error *e);

#endif
