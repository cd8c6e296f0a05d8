/*
 * src/api/api.h: the handles behind the public API (include/fieldfuse/) and the helpers
 * its files share. One file per concern: program.c (parse, print, describe, one-shot run,
 * interpret), device.c (open, adopt, OpenCL getters), builder.c (the graph builder),
 * executable.c (compile once, runs, events), buffer.c (device buffers, upload, download).
 * Owned by the API layer; nothing outside src/api/ includes this header.
 *
 * Ownership of the handles is as the public headers state; in short: a program owns its
 * verified module and text, a device its ffu_cl, an executable its fused module, its
 * ffu_exec and copies of its signature, a buffer one reference to its cl_mem (and borrows
 * its device), an event one reference to its cl_event.
 */
#ifndef FFU_API_API_H
#define FFU_API_API_H

#include <stdbool.h>

#include "fieldfuse/builder.h"
#include "api/tool.h"
#include "fieldfuse/opencl.h"
#include "ir/ir.h"
#include "ir/value.h"
#include "runtime/cl.h"
#include "runtime/compile.h"
#include "runtime/exec.h"

struct ffu_program {
	ffu_module *m;
	char *text;               /* canonical text of m: the source of every private copy */
	size_t text_len;
	ffu_array_info *inputs, *outputs;
	int n_inputs, n_outputs;
};

struct ffu_device {
	ffu_cl cl;
};

struct ffu_buffer {
	ffu_device *dev;          /* borrowed */
	cl_mem mem;               /* one reference, ours */
	ffu_shape shape;          /* an array shape: no pointers */
	ffu_array_info info;      /* name "" */
};

struct ffu_event {
	cl_event ev;
};

/*
 * Makes a program of a module (verified here; the program owns m from the call on, and
 * frees it on failure). Shared by ffu_program_parse and ffu_builder_finish.
 */
ffu_status ffu__program_from_module(ffu_program **out, ffu_module *m, const char *file, ffu_error *e);

/* Input k's (input != 0) or output k's shape, as ffu_program_input / _output describe it
   (a tuple ROOT's element k); NULL when k is out of range. */
const ffu_shape *ffu__program_shape(const ffu_program *p, bool input, int k);

/* Describes an array shape for ffu_array_info (what/i/name only name it in errors). */
ffu_status ffu__api_describe(ffu_array_info *info, const char *name, const ffu_shape *s, const char *what, int i,
			     ffu_error *e);

/*
 * An array shape from the public (type keyword, rank, dims) triple; `call` names the
 * public function in the message. EINVAL for an unknown type, a rank outside 0..4, NULL
 * dims with rank > 0, a negative dimension, or more than 2^63 elements.
 */
ffu_status ffu__api_shape(ffu_shape *out, const char *type, int rank, const int64_t *dims, const char *call,
			  ffu_error *e);

/* A device buffer of array shape s (a CSR matrix's: ZKX's CSR bytes), contents undefined;
   ffu_buffer_create and the executable's create_input / create_output go through it. */
ffu_status ffu__buffer_create_shape(ffu_buffer **out, ffu_device *d, const ffu_shape *s, ffu_error *e);

/* data[k] as the value of input (or output) first + k, borrowing it (no copy, no check of
   the elements); EINVAL for an array out of range or a NULL one that has bytes. */
ffu_status ffu__program_wrap(const ffu_program *p, bool input, int first, int n, const void *const *data,
			     ffu_value *vals, ffu_error *e);
/* Copies n computed values (the program's outputs) into the caller's arrays, checking
   they have the sizes announced (program.c; the SPMD runs' too). */
ffu_status ffu__program_copy_outputs(const ffu_program *p, const ffu_value *vals, int n, void *const *outputs,
				     ffu_error *e);

/* A tool's params (api/tool.h) as the device layer's (tool.c). */
ffu_params ffu__tool_params(const ffu_tool_params *p);

/* ffu_executable_create with the compile options themselves (the tools' disabled passes,
   file name, fusion switch: api/tool.c); call names the entry point in argument errors. */
ffu_status ffu__executable_create(ffu_executable **out, ffu_device *d, const ffu_program *p,
				  const ffu_compile_opts *co, const char *call, ffu_error *e);

#endif
