/*
 * passes/fusion.c: loop, index-map and reduction-input fusion (see passes.h).
 *
 * Model: every kernel op of the entry computation (element-wise, index, iota, reduce)
 * starts in a group of its own; a producer's group merges into its consumer's when
 *  - the merged group still has one iteration space: a loop group iterates over its
 *    outputs' elements, so every member that stays an output (read outside the group) must
 *    have the consumer group's dimensions; a reduction group iterates over its reduces'
 *    operand, and only its reduces may be outputs;
 *  - index ops fuse as index arithmetic (codegen.c): slice, reshape and iota freely; a
 *    broadcast or concatenate absorbs no producer (broadcast would recompute its operand
 *    once per copy, concatenate every operand at every element), but both fuse into
 *    their consumers; dynamic-slice and dynamic-update-slice absorb the producer of their
 *    operand, never of an update or a start index (the kernel reads starts as arguments);
 *  - the merge creates no cycle between groups and the kernel stays within its argument
 *    budget.
 *  - an fft is a group of its own kind (codegen/fft.c: its passes over memory). A loop
 *    group feeding the transformed operand fuses into the first pass's loads when none of
 *    its values is needed elsewhere; loop groups reading the transform's result fuse into
 *    the last pass's stores when they read it element-wise only (the last pass holds
 *    element i of the result when it stores element i), and may be outputs; the twiddles
 *    are read from memory as given (fft_group_ok);
 *  - an msm is a group of its own kind too (codegen/msm.c: its steps over memory). Its
 *    scalars' producers join it under the fft's rules (its digits step reads scalar i once,
 *    computed where it is read); its bases are read from memory as given. A `convert` of its
 *    point, when that is the msm's only reader, joins it even with fusion off
 *    (attach_msm_converts): the msm's last step holds the point and writes it normalised in
 *    any point type of its curve, which a convert kernel of its own would only repeat;
 * Then sibling reductions (same operand dimensions, same reduced dimensions, reading a
 * common input) merge into one multi-output reduction. Each final group becomes one
 * fusion: a value with several consumers inside the group is computed once in registers,
 * a value needed outside is written as an output (a multi-output fusion when there are
 * several). Scalar constants are copied into every fused computation that reads them, so
 * they become literals in the kernel.
 *
 * Why union-find over whole groups rather than XLA's one-producer-at-a-time rewriting:
 * element-wise chains over one shape always fit one kernel, and merging groups directly
 * gives multi-output fusion of shared intermediates for free.
 */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

enum { DEFAULT_MAX_PARAMS = 64 };

typedef struct fuse_ctx {
	ffu_module *m;
	ffu_computation *c;
	int n;
	int *group;      /* union-find parent; -1 for instructions that are not kernel ops */
	int *lo, *hi;    /* per group root: lowest and highest member id */
	int *iter;       /* per group root: the member whose shape is the iteration space
	                    (for a reduction group: a reduce, whose operand it iterates over) */
	int *user_start; /* CSR adjacency: users of instruction i */
	int *users;
	char *seen;      /* scratch for the cycle search */
	int *queue;
	int max_params;
} fuse_ctx;

static bool is_kernel_op(const ffu_inst *in)
{
	ffu_op_kind k = ffu__ops[in->op].kind;
	return k == FFU_KIND_ELEMENTWISE || k == FFU_KIND_INDEX || k == FFU_KIND_REDUCE || k == FFU_KIND_TRANSFORM ||
	       k == FFU_KIND_CONTRACT || k == FFU_KIND_MSM || in->op == FFU_OP_IOTA;
}

static bool is_inlined_const(const ffu_inst *in)
{
	return in->op == FFU_OP_CONSTANT && in->shape.rank == 0;
}

static int find(fuse_ctx *x, int i)
{
	while (x->group[i] != i) {
		x->group[i] = x->group[x->group[i]];
		i = x->group[i];
	}
	return i;
}

static bool build_users(fuse_ctx *x)
{
	const ffu_computation *c = x->c;
	x->user_start = calloc((size_t)x->n + 1, sizeof(int));
	int total = 0;
	for (int i = 0; i < x->n; i++)
		total += c->insts[i]->n_operands;
	x->users = malloc(sizeof(int) * (size_t)(total ? total : 1));
	int *fill = calloc((size_t)x->n + 1, sizeof(int));
	if (!x->user_start || !x->users || !fill) {
		free(fill);
		return false;
	}
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < c->insts[i]->n_operands; j++)
			x->user_start[c->insts[i]->operands[j]->id + 1]++;
	for (int i = 0; i < x->n; i++)
		x->user_start[i + 1] += x->user_start[i];
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < c->insts[i]->n_operands; j++) {
			int p = c->insts[i]->operands[j]->id;
			x->users[x->user_start[p] + fill[p]++] = i;
		}
	free(fill);
	return true;
}

/*
 * Would merging groups a and b create a cycle? Only if some path leaves a (or b) through a
 * node outside both and comes back into the other. Operands precede their users, so such a
 * path only visits ids between the lowest and the highest member of a and b: the search
 * stays inside that window (a chain of n ops costs O(n) per merge, not O(n^2)). A group is
 * one kernel, so reaching any member of a third group reaches all of its members' users.
 */
static bool merge_makes_cycle(fuse_ctx *x, int a, int b)
{
	int lo = x->lo[a] < x->lo[b] ? x->lo[a] : x->lo[b];
	int hi = x->hi[a] > x->hi[b] ? x->hi[a] : x->hi[b];
	int head = 0, tail = 0;
	memset(x->seen, 0, (size_t)(hi - lo + 1)); /* seen[v - lo] */
	for (int i = lo; i <= hi; i++) {
		int g = x->group[i] < 0 ? -1 : find(x, i);
		if (g != a && g != b)
			continue;
		for (int u = x->user_start[i]; u < x->user_start[i + 1]; u++) {
			int v = x->users[u];
			int gv = x->group[v] < 0 ? -1 : find(x, v);
			if (v < hi && gv != a && gv != b && !x->seen[v - lo]) {
				x->seen[v - lo] = 1;
				x->queue[tail++] = v;
			}
		}
	}
	while (head < tail) {
		int v = x->queue[head++];
		int gv = x->group[v] < 0 ? -1 : find(x, v);
		/* continue from v, and from every member of v's group inside the window */
		for (int w = gv < 0 ? v : lo; w <= (gv < 0 ? v : hi); w++) {
			if (w != v && (x->group[w] < 0 || find(x, w) != gv))
				continue;
			for (int u = x->user_start[w]; u < x->user_start[w + 1]; u++) {
				int y = x->users[u];
				int gy = x->group[y] < 0 ? -1 : find(x, y);
				if (gy == a || gy == b)
					return true;
				if (y < hi && !x->seen[y - lo]) {
					x->seen[y - lo] = 1;
					x->queue[tail++] = y;
				}
			}
		}
	}
	return false;
}

/*
 * Kernel arguments (distinct external inputs + outputs) of the union of groups a and b,
 * merged into b's iteration space; -1 if some member that stays an output cannot be one
 * there (see the header).
 */
static int kernel_args(fuse_ctx *x, int a, int b)
{
	const ffu_inst *it = x->c->insts[x->iter[b]];
	bool red = it->op == FFU_OP_REDUCE;
	const ffu_computation *c = x->c;
	int lo = x->lo[a] < x->lo[b] ? x->lo[a] : x->lo[b];
	int hi = x->hi[a] > x->hi[b] ? x->hi[a] : x->hi[b];
	int args = 0;
	memset(x->seen, 0, (size_t)x->n);
	for (int i = lo; i <= hi; i++) {
		if (x->group[i] < 0)
			continue;
		int g = find(x, i);
		if (g != a && g != b)
			continue;
		const ffu_inst *in = c->insts[i];
		for (int j = 0; j < in->n_operands; j++) {
			int p = in->operands[j]->id;
			int gp = x->group[p] < 0 ? -1 : find(x, p);
			if (gp != a && gp != b && !is_inlined_const(in->operands[j]) && !x->seen[p]) {
				x->seen[p] = 1;
				args++;
			}
		}
		bool output = in == c->root;
		for (int u = x->user_start[i]; u < x->user_start[i + 1] && !output; u++) {
			int y = x->users[u];
			int gy = x->group[y] < 0 ? -1 : find(x, y);
			output = gy != a && gy != b;
		}
		if (output && (red ? in->op != FFU_OP_REDUCE : !ffu__shape_same_dims(&in->shape, &it->shape)))
			return -1;
		args += output;
	}
	return args;
}

static bool is_reduction_group(fuse_ctx *x, int g)
{
	return x->c->insts[x->iter[g]]->op == FFU_OP_REDUCE;
}

static bool is_fft_group(fuse_ctx *x, int g)
{
	return x->c->insts[x->iter[g]]->op == FFU_OP_FFT;
}

static bool is_dot_group(fuse_ctx *x, int g)
{
	return x->c->insts[x->iter[g]]->op == FFU_OP_DOT;
}

static bool is_msm_group(fuse_ctx *x, int g)
{
	return x->c->insts[x->iter[g]]->op == FFU_OP_MSM;
}

/* A group built around one fft, dot or msm: its own kernel plan (codegen/fft.c, dot.c, msm.c). */
static bool is_plan_group(fuse_ctx *x, int g)
{
	return is_fft_group(x, g) || is_dot_group(x, g) || is_msm_group(x, g);
}

/*
 * Does operand j of the plan op (an fft or a dot) fuse its producers? An fft's transformed
 * operand (0) does: the first pass reads each element once; its twiddles are read as
 * given. A dense dot operand does when each of its elements is read by one result element
 * only (the other operand has no free dimensions: the lhs of a matrix-vector product, both
 * sides of a vector product); else the producers would run once per result element that
 * reads them (the vector of a matrix-vector product, M times), so they stay a kernel of
 * their own. A CSR lhs is always a parameter.
 */
static bool operand_fuses(const ffu_inst *op, int j)
{
	if (op->op == FFU_OP_FFT || op->op == FFU_OP_MSM)
		return j == 0;
	return !op->operands[j]->shape.csr && ffu__dot_operand_reuse(op, j) == 1;
}

/*
 * May loop group a join plan group f (the header's rules)? In the union, a value depends
 * on the fft or dot when it is that op or reads such a value; those may only be read
 * element-wise (no index op or reduce reads one: it would need the result at another
 * index than the one the kernel holds when it stores). The values a fusing operand is
 * computed from are computed where the op reads that operand (the fft's first pass, the
 * dot's operand helper), which writes nothing else: none of them may be needed outside
 * the union. A non-fusing operand is a parameter of the fusion.
 */
static bool plan_group_ok(fuse_ctx *x, int a, int f)
{
	const ffu_computation *c = x->c;
	const ffu_inst *fft = c->insts[x->iter[f]];
	if (is_reduction_group(x, a) || is_plan_group(x, a))
		return false;
	for (int j = 0; j < fft->n_operands; j++)
		if (!operand_fuses(fft, j) && x->group[fft->operands[j]->id] >= 0 && find(x, fft->operands[j]->id) == a)
			return false;
	int lo = x->lo[a] < x->lo[f] ? x->lo[a] : x->lo[f];
	int hi = x->hi[a] > x->hi[f] ? x->hi[a] : x->hi[f];
	memset(x->seen, 0, (size_t)x->n); /* 1: depends on the fft; 2: feeds its operand */
	for (int i = lo; i <= hi; i++) {
		if (x->group[i] < 0 || (find(x, i) != a && find(x, i) != f))
			continue;
		const ffu_inst *in = c->insts[i];
		if (in == fft) {
			x->seen[i] = 1;
			continue;
		}
		for (int j = 0; j < in->n_operands; j++)
			if (x->seen[in->operands[j]->id] == 1) {
				if (ffu__ops[in->op].kind != FFU_KIND_ELEMENTWISE)
					return false;
				x->seen[i] = 1;
			}
	}
	/* backwards from the fusing operands: their values, none read outside the union */
	int top = -1;
	for (int j = 0; j < fft->n_operands; j++)
		if (operand_fuses(fft, j)) {
			x->seen[fft->operands[j]->id] = 2;
			top = fft->operands[j]->id > top ? fft->operands[j]->id : top;
		}
	for (int i = top; i >= lo; i--) {
		if (x->group[i] < 0 || (find(x, i) != a && find(x, i) != f))
			continue;
		if (x->seen[i] != 2)
			continue;
		const ffu_inst *in = c->insts[i];
		if (in == c->root)
			return false;
		for (int u = x->user_start[i]; u < x->user_start[i + 1]; u++) {
			int y = x->users[u];
			if (x->group[y] < 0 || (find(x, y) != a && find(x, y) != f))
				return false;
		}
		for (int j = 0; j < in->n_operands; j++)
			x->seen[in->operands[j]->id] = 2;
	}
	return true;
}

/* Would a dynamic-(update-)slice of groups a and b compute a start index in the same
   kernel? Its index arithmetic reads the starts as kernel arguments (codegen/index.c). */
static bool start_inside(fuse_ctx *x, int a, int b)
{
	int lo = x->lo[a] < x->lo[b] ? x->lo[a] : x->lo[b];
	int hi = x->hi[a] > x->hi[b] ? x->hi[a] : x->hi[b];
	for (int i = lo; i <= hi; i++) {
		const ffu_inst *in = x->c->insts[i];
		if ((in->op != FFU_OP_DYNAMIC_SLICE && in->op != FFU_OP_DYNAMIC_UPDATE_SLICE) || x->group[i] < 0)
			continue;
		int g = find(x, i);
		if (g != a && g != b)
			continue;
		for (int j = in->op == FFU_OP_DYNAMIC_SLICE ? 1 : 2; j < in->n_operands; j++) {
			int p = in->operands[j]->id;
			int gp = x->group[p] < 0 ? -1 : find(x, p);
			if (gp == a || gp == b)
				return true;
		}
	}
	return false;
}

/* Merges group a into group b if that is legal (the header's rules); b's root stays. */
static bool merge(fuse_ctx *x, int a, int b)
{
	if (a == b || merge_makes_cycle(x, a, b) || start_inside(x, a, b))
		return false;
	int args = kernel_args(x, a, b);
	if (args < 0 || args > x->max_params)
		return false;
	x->group[a] = b;
	x->lo[b] = x->lo[a] < x->lo[b] ? x->lo[a] : x->lo[b];
	x->hi[b] = x->hi[a] > x->hi[b] ? x->hi[a] : x->hi[b];
	return true;
}

/* Merges loop group a into plan group f if that is legal; f's root (the fft or dot) stays. */
static bool merge_into_plan(fuse_ctx *x, int a, int f)
{
	return plan_group_ok(x, a, f) && merge(x, a, f);
}

/* Operand j of instruction `consumer` is produced by instruction `producer`. */
static bool try_merge(fuse_ctx *x, int producer, int consumer, int j)
{
	const ffu_inst *in = x->c->insts[consumer];
	int a = find(x, producer), b = find(x, consumer);
	if (a == b || is_msm_group(x, a))
		return false; /* attach_msm_converts gave an msm group its one consumer */
	if (is_plan_group(x, b))
		return !(in == x->c->insts[x->iter[b]] && !operand_fuses(in, j)) && merge_into_plan(x, a, b);
	if (is_plan_group(x, a))
		return merge_into_plan(x, b, a);
	if (is_reduction_group(x, a))
		return false; /* a reduction's result is read by another kernel */
	if (in->op == FFU_OP_BROADCAST || in->op == FFU_OP_CONCATENATE)
		return false;
	if (in->op == FFU_OP_REDUCE && j != 0)
		return false; /* the init value is read once, by the final stage */
	/* dynamic-(update-)slice: the kernel's index arithmetic reads the start scalars from
	   its arguments before any value is computed (codegen/index.c), so their producers
	   stay outside (also through other members: start_inside); an update is read at every
	   element (clamped, then selected, as a concatenate's operands are), so its producer
	   stays outside too */
	if ((in->op == FFU_OP_DYNAMIC_SLICE || in->op == FFU_OP_DYNAMIC_UPDATE_SLICE) && j != 0)
		return false;
	return merge(x, a, b);
}

/* The header's msm rule: convert(msm), the msm's only reader, joins the msm's group. */
static void attach_msm_converts(fuse_ctx *x)
{
	for (int i = 0; i < x->n; i++) {
		const ffu_inst *in = x->c->insts[i];
		if (in->op != FFU_OP_MSM || in == x->c->root || x->user_start[i + 1] - x->user_start[i] != 1)
			continue;
		int u = x->users[x->user_start[i]];
		if (x->c->insts[u]->op == FFU_OP_CONVERT && x->group[u] >= 0)
			(void)merge(x, find(x, u), find(x, i));
	}
}

/* Reductions over the same operand dimensions and reduced dimensions. */
static bool same_reduction(const ffu_inst *r, const ffu_inst *s)
{
	if (!ffu__shape_same_dims(&r->operands[0]->shape, &s->operands[0]->shape) || r->n_dims != s->n_dims)
		return false;
	bool in_r[FFU_MAX_RANK] = {0};
	for (int k = 0; k < r->n_dims; k++)
		in_r[r->dims[k]] = true;
	for (int k = 0; k < s->n_dims; k++)
		if (!in_r[s->dims[k]])
			return false;
	return true;
}

/* What a group reads from outside is keyed by its producer's group, or the instruction. */
static int input_key(fuse_ctx *x, int p)
{
	return x->group[p] < 0 ? p : find(x, p);
}

/* Do groups g and h read from a common producer (an instruction, or one group's values)? */
static bool read_common_input(fuse_ctx *x, int g, int h)
{
	const ffu_computation *c = x->c;
	memset(x->seen, 0, (size_t)x->n);
	for (int pass = 0; pass < 2; pass++) {
		int grp = pass ? h : g;
		for (int i = x->lo[grp]; i <= x->hi[grp]; i++) {
			if (x->group[i] < 0 || find(x, i) != grp)
				continue;
			for (int j = 0; j < c->insts[i]->n_operands; j++) {
				int p = c->insts[i]->operands[j]->id;
				int k = input_key(x, p);
				if (k == g || k == h || is_inlined_const(c->insts[p]))
					continue;
				if (pass && x->seen[k])
					return true;
				x->seen[k] = 1;
			}
		}
	}
	return false;
}

/*
 * Multi-output reduction: sibling reductions that read a common input (the three sums of
 * a sumcheck round read the same two polynomials) share one pass over it.
 */
static bool merge_sibling_reductions(fuse_ctx *x)
{
	const ffu_computation *c = x->c;
	bool changed = false;
	for (int i = 0; i < x->n; i++) {
		if (c->insts[i]->op != FFU_OP_REDUCE || find(x, i) != i)
			continue;
		for (int j = i + 1; j < x->n; j++) {
			if (c->insts[j]->op != FFU_OP_REDUCE || find(x, j) != j ||
			    !same_reduction(c->insts[x->iter[i]], c->insts[x->iter[j]]))
				continue;
			if (read_common_input(x, i, j) && merge(x, i, j)) {
				changed = true;
				break; /* i's group is j's now; j continues with the later ones */
			}
		}
	}
	return changed;
}

/* ---- rewriting the entry computation ---- */

typedef struct rewrite {
	fuse_ctx *x;
	ffu_inst **map;  /* old instruction id -> its value in the new entry */
	ffu_inst **out;  /* new entry list */
	int n_out;
} rewrite;

static bool is_group_output(fuse_ctx *x, int i, int g)
{
	if (x->c->insts[i] == x->c->root)
		return true;
	for (int u = x->user_start[i]; u < x->user_start[i + 1]; u++) {
		int y = x->users[u];
		if (x->group[y] < 0 || find(x, y) != g)
			return true;
	}
	return false;
}

/* Builds the fused computation and the fusion (+ get-tuple-element) instructions for group g. */
static ffu_status emit_group(rewrite *r, int g, ffu_error *e)
{
	fuse_ctx *x = r->x;
	ffu_module *m = x->m;
	ffu_computation *c = x->c;
	ffu_status st = FFU_STATUS_ENOMEM;
	ffu_inst **local = calloc((size_t)x->n, sizeof *local);  /* old id -> inst in fused comp */
	ffu_inst **inputs = calloc((size_t)x->n + 1, sizeof *inputs); /* old insts feeding the group */
	ffu_inst **outs = calloc((size_t)x->n + 1, sizeof *outs);  /* fused-comp insts that are outputs */
	int *out_ids = calloc((size_t)x->n + 1, sizeof *out_ids);
	int n_inputs = 0, n_outs = 0;
	if (!local || !inputs || !outs || !out_ids)
		goto out;

	bool any_output = false;
	for (int i = 0; i < x->n && !any_output; i++)
		any_output = x->group[i] >= 0 && find(x, i) == g && is_group_output(x, i, g);
	if (!any_output) { /* nothing reads the group: dead code, dropped */
		st = FFU_STATUS_OK;
		goto out;
	}

	ffu_computation *fc = ffu__comp_new(m, ffu__module_unique_name(m, "fused_computation"));
	if (!fc)
		goto out;
	fc->is_fused = true;

	/* parameters first, in order of first use, so the fused computation reads top-down */
	for (int i = 0; i < x->n; i++) {
		if (x->group[i] < 0 || find(x, i) != g)
			continue;
		const ffu_inst *in = c->insts[i];
		for (int j = 0; j < in->n_operands; j++) {
			const ffu_inst *p = in->operands[j];
			bool member = x->group[p->id] >= 0 && find(x, p->id) == g;
			if (member || local[p->id])
				continue;
			const char *name = ffu__module_unique_name(m, is_inlined_const(p) ? "constant" : "param");
			ffu_inst *ni = ffu__inst_new(fc, is_inlined_const(p) ? FFU_OP_CONSTANT : FFU_OP_PARAMETER,
						     name, &p->shape, NULL, 0);
			if (!ni)
				goto out;
			if (is_inlined_const(p)) {
				ni->literal = p->literal; /* immutable arena bytes, shared */
			} else {
				ni->index = n_inputs;
				inputs[n_inputs++] = r->map[p->id];
			}
			local[p->id] = ni;
		}
	}
	fc->n_params = n_inputs;
	fc->params = ffu__arena_alloc(&m->arena, sizeof(ffu_inst *) * (size_t)(n_inputs ? n_inputs : 1));
	if (!fc->params)
		goto out;
	for (int i = 0; i < fc->n_insts; i++)
		if (fc->insts[i]->op == FFU_OP_PARAMETER)
			fc->params[fc->insts[i]->index] = fc->insts[i];

	/* members, in definition order */
	ffu_inst *ops[8];
	for (int i = 0; i < x->n; i++) {
		if (x->group[i] < 0 || find(x, i) != g)
			continue;
		const ffu_inst *in = c->insts[i];
		ffu_inst **operands = in->n_operands <= 8 ? ops : calloc((size_t)in->n_operands, sizeof *operands);
		if (!operands)
			goto out;
		for (int j = 0; j < in->n_operands; j++)
			operands[j] = local[in->operands[j]->id];
		ffu_inst *ni = ffu__inst_new(fc, in->op, ffu__module_unique_name(m, in->name), &in->shape,
					     operands, in->n_operands);
		if (operands != ops)
			free(operands);
		if (!ni)
			goto out;
		ffu__inst_copy_attrs(ni, in);
		ni->line = in->line;
		ni->col = in->col;
		local[i] = ni;
		if (is_group_output(x, i, g)) {
			out_ids[n_outs] = i;
			outs[n_outs++] = ni;
		}
	}
	if (n_outs == 1) {
		fc->root = outs[0];
	} else {
		ffu_shape ts = {.type = FFU_TYPE_TUPLE, .n_elems = n_outs};
		ts.elems = ffu__arena_alloc(&m->arena, sizeof(ffu_shape) * (size_t)n_outs);
		if (!ts.elems)
			goto out;
		for (int k = 0; k < n_outs; k++)
			ts.elems[k] = outs[k]->shape;
		fc->root = ffu__inst_new(fc, FFU_OP_TUPLE, ffu__module_unique_name(m, "tuple"), &ts, outs, n_outs);
		if (!fc->root)
			goto out;
	}

	ffu_inst *fusion = ffu__inst_alloc(c, FFU_OP_FUSION, ffu__module_unique_name(m, "fusion"),
					   &fc->root->shape, inputs, n_inputs);
	if (!fusion)
		goto out;
	fusion->callee = fc;
	fusion->fusion_kind = is_fft_group(x, g)	      ? FFU_FUSION_FFT
			      : is_dot_group(x, g)	      ? FFU_FUSION_DOT
			      : is_msm_group(x, g)	      ? FFU_FUSION_MSM
			      : is_reduction_group(x, g) ? FFU_FUSION_INPUT
							 : FFU_FUSION_LOOP;
	r->out[r->n_out++] = fusion;
	for (int k = 0; k < n_outs; k++) {
		if (n_outs == 1) {
			r->map[out_ids[k]] = fusion;
			continue;
		}
		ffu_inst *gte = ffu__inst_alloc(c, FFU_OP_GET_TUPLE_ELEMENT,
						ffu__module_unique_name(m, "get-tuple-element"),
						&outs[k]->shape, &fusion, 1);
		if (!gte)
			goto out;
		gte->index = k;
		r->out[r->n_out++] = gte;
		r->map[out_ids[k]] = gte;
	}
	st = FFU_STATUS_OK;
out:
	free(local);
	free(inputs);
	free(outs);
	free(out_ids);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the fusion pass") : st;
}

/*
 * Orders the new entry: nodes are groups and the remaining instructions; a node is ready
 * when every node feeding it is placed; among ready nodes the one that appeared first in
 * the source goes first, so output stays close to what the user wrote.
 */
static ffu_status rewrite_entry(fuse_ctx *x, ffu_error *e)
{
	ffu_computation *c = x->c;
	int n = x->n;
	ffu_status st = FFU_STATUS_ENOMEM;
	rewrite r = {.x = x};
	int *node = malloc(sizeof(int) * (size_t)n);   /* inst -> node key (group root or itself) */
	char *placed = calloc((size_t)n, 1);
	char *keep = calloc((size_t)n, 1);
	r.map = calloc((size_t)n, sizeof *r.map);
	r.out = calloc((size_t)n * 3 + 1, sizeof *r.out); /* fusion + gtes never exceed 3n */
	if (!node || !placed || !keep || !r.map || !r.out)
		goto out;
	for (int i = 0; i < n; i++) {
		node[i] = x->group[i] < 0 ? i : find(x, i);
		r.map[i] = c->insts[i];
	}
	/* scalar constants read only by kernels live on as literals inside them */
	for (int i = 0; i < n; i++) {
		keep[i] = 1;
		if (!is_inlined_const(c->insts[i]) || c->insts[i] == c->root)
			continue;
		keep[i] = 0;
		for (int u = x->user_start[i]; u < x->user_start[i + 1]; u++)
			keep[i] |= x->group[x->users[u]] < 0;
	}
	for (;;) {
		int pick = -1;
		for (int i = 0; i < n && pick < 0; i++) {
			if (placed[node[i]] || !keep[i])
				continue;
			/* ready when all members' external operands are placed */
			bool ready = true;
			/* every member of the group, also those before i (the group's id window) */
			int w_lo = x->group[i] < 0 ? i : x->lo[node[i]], w_hi = x->group[i] < 0 ? i : x->hi[node[i]];
			for (int w = w_lo; w <= w_hi && ready; w++) {
				if (node[w] != node[i])
					continue;
				const ffu_inst *in = c->insts[w];
				for (int j = 0; j < in->n_operands && ready; j++) {
					int p = in->operands[j]->id;
					if (node[p] != node[i] && keep[p] && !placed[node[p]])
						ready = false;
				}
			}
			if (ready)
				pick = i;
		}
		if (pick < 0)
			break;
		placed[node[pick]] = 1;
		if (x->group[pick] < 0) {
			ffu_inst *in = c->insts[pick];
			for (int j = 0; j < in->n_operands; j++)
				in->operands[j] = r.map[in->operands[j]->id];
			r.out[r.n_out++] = in;
		} else if ((st = emit_group(&r, node[pick], e))) {
			goto out;
		}
	}
	ffu_inst *root = r.map[c->root->id];
	if (!ffu__comp_set_insts(c, r.out, r.n_out))
		goto out;
	c->root = root;
	st = FFU_STATUS_OK;
out:
	free(node);
	free(placed);
	free(keep);
	free(r.map);
	free(r.out);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the fusion pass") : st;
}

ffu_status ffu__pass_fusion(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	fuse_ctx x = {.m = m, .c = m->entry, .n = m->entry->n_insts};
	x.max_params = o && o->max_params > 0 ? o->max_params : DEFAULT_MAX_PARAMS;
	ffu_status st = FFU_STATUS_ENOMEM;
	ffu__comp_renumber(x.c);
	x.group = malloc(sizeof(int) * (size_t)(x.n + 1));
	x.lo = malloc(sizeof(int) * (size_t)(x.n + 1));
	x.hi = malloc(sizeof(int) * (size_t)(x.n + 1));
	x.iter = malloc(sizeof(int) * (size_t)(x.n + 1));
	x.seen = malloc((size_t)x.n + 1);
	x.queue = malloc(sizeof(int) * (size_t)(x.n + 1));
	if (!x.group || !x.lo || !x.hi || !x.iter || !x.seen || !x.queue || !build_users(&x))
		goto out;
	for (int i = 0; i < x.n; i++) {
		x.group[i] = is_kernel_op(x.c->insts[i]) ? i : -1;
		x.lo[i] = x.hi[i] = x.iter[i] = i;
	}
	attach_msm_converts(&x);
	/*
	 * Rounds until nothing merges: a merge can make an earlier-refused one legal (a shared
	 * slice stays an output of the first sum's group until the other sums join it), and
	 * each round that changes something removes a group, so this ends; the cap bounds the
	 * time on adversarial graphs.
	 */
	for (int round = 0; (!o || o->fuse) && round < 8; round++) {
		bool changed = false;
		for (int i = 0; i < x.n; i++) {
			const ffu_inst *in = x.c->insts[i];
			if (x.group[i] < 0)
				continue;
			for (int j = 0; j < in->n_operands; j++)
				if (x.group[in->operands[j]->id] >= 0)
					changed |= try_merge(&x, in->operands[j]->id, i, j);
		}
		changed |= merge_sibling_reductions(&x);
		if (!changed)
			break;
	}
	if ((st = rewrite_entry(&x, e)))
		goto out;
	/* callees before callers: the entry moves behind the fused computations */
	for (int i = 0; i < m->n_comps - 1; i++)
		if (m->comps[i] == m->entry) {
			memmove(&m->comps[i], &m->comps[i + 1], sizeof(ffu_computation *) * (size_t)(m->n_comps - 1 - i));
			m->comps[m->n_comps - 1] = m->entry;
			break;
		}
	st = FFU_STATUS_OK;
out:
	free(x.group);
	free(x.lo);
	free(x.hi);
	free(x.iter);
	free(x.seen);
	free(x.queue);
	free(x.user_start);
	free(x.users);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the fusion pass") : st;
}
