/*
 * ir/collective.c: which ranks a collective joins, shared by the verifier (the attributes
 * must describe a partition of the ranks), the interpreter's simulation of the ranks and,
 * later, the MPI runtime (one communicator per group). The rules are XLA's (its
 * collective_ops_utils: GetCollectiveOpGroupMode, GetParticipatingDevicesGroups), with
 * the device assignment the identity: rank = replica x num_partitions + partition.
 *
 * Stricter than XLA, on purpose: every id of the mode's range is named exactly once when
 * groups are given, so every rank knows its group and no rank waits on a collective the
 * others skip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

int64_t ffu__module_ranks(const ffu_module *m)
{
	return m->replica_count * m->num_partitions;
}

const ffu_inst *ffu__module_first_collective(const ffu_module *m)
{
	for (int i = 0; m->entry && i < m->entry->n_insts; i++)
		if (ffu__ops[m->entry->insts[i]->op].kind == FFU_KIND_COLLECTIVE)
			return m->entry->insts[i];
	return NULL;
}

bool ffu__module_is_spmd(const ffu_module *m)
{
	return ffu__module_ranks(m) != 1 || ffu__module_first_collective(m);
}

ffu_coll_mode ffu__coll_mode(const ffu_inst *in)
{
	if (in->coll.channel_id <= 0)
		return FFU_COLL_CROSS_REPLICA;
	if (!in->coll.has_global_ids)
		return FFU_COLL_CROSS_PARTITION;
	return in->coll.global_ids ? FFU_COLL_FLATTENED : FFU_COLL_CROSS_REPLICA_PART;
}

int64_t ffu__coll_id_count(const ffu_inst *in, const ffu_module *m)
{
	switch (ffu__coll_mode(in)) {
	case FFU_COLL_CROSS_PARTITION: return m->num_partitions;
	case FFU_COLL_FLATTENED: return ffu__module_ranks(m);
	default: return m->replica_count;
	}
}

void ffu__coll_groups_free(ffu_coll_groups *g)
{
	free(g->ranks);
	memset(g, 0, sizeof *g);
}

/* The ids as groups (the written ones, or every id in one group), checked to name each
   id once; ids[] gets n_groups x size of them. */
static bool id_groups(const ffu_inst *in, int64_t n_ids, int64_t **ids, int *n_groups, int *size, char *why,
		      size_t why_size)
{
	const ffu_collective_attrs *ca = &in->coll;
	int64_t total = ca->n_groups ? (int64_t)ca->n_groups * ca->group_size : n_ids;
	if (ca->n_groups && total != n_ids) {
		snprintf(why, why_size, "replica_groups name %lld ids; the %lld ids (0..%lld) must each be in one group",
			 (long long)total, (long long)n_ids, (long long)n_ids - 1);
		return false;
	}
	char *seen = calloc((size_t)n_ids + 1, 1);
	*ids = malloc(sizeof **ids * ((size_t)total + 1));
	if (!seen || !*ids) {
		free(seen);
		snprintf(why, why_size, "out of memory");
		return false;
	}
	for (int64_t k = 0; k < total; k++) {
		int64_t id = ca->n_groups ? ca->groups[k] : k;
		if (id < 0 || id >= n_ids || seen[id]) {
			snprintf(why, why_size, id < 0 || id >= n_ids ? "replica_groups names id %lld, outside 0..%lld"
								  : "replica_groups names id %lld twice",
				 (long long)id, (long long)n_ids - 1);
			free(seen);
			free(*ids);
			*ids = NULL;
			return false;
		}
		seen[id] = 1;
		(*ids)[k] = id;
	}
	free(seen);
	*n_groups = ca->n_groups ? ca->n_groups : 1;
	*size = ca->n_groups ? ca->group_size : (int)n_ids;
	return true;
}

bool ffu__coll_groups(const ffu_inst *in, const ffu_module *m, ffu_coll_groups *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	const ffu_coll_mode mode = ffu__coll_mode(in);
	const int64_t R = m->replica_count, P = m->num_partitions, N = R * P;
	if (mode == FFU_COLL_FLATTENED && in->coll.n_groups == 0) {
		snprintf(why, why_size, "use_global_device_ids=true needs replica_groups (XLA's rule)");
		return false;
	}
	int64_t *ids = NULL;
	int ng, sz;
	if (!id_groups(in, ffu__coll_id_count(in, m), &ids, &ng, &sz, why, why_size))
		return false;
	/* XLA's expansion: cross-replica repeats each group per partition, cross-partition per
	   replica, cross-replica-and-partition takes every partition of each replica */
	int per = mode == FFU_COLL_CROSS_REPLICA ? (int)P : mode == FFU_COLL_CROSS_PARTITION ? (int)R : 1;
	int mult = mode == FFU_COLL_CROSS_REPLICA_PART ? (int)P : 1;
	out->n_groups = ng * per;
	out->size = sz * mult;
	out->ranks = malloc(sizeof *out->ranks * (size_t)N);
	if (!out->ranks) {
		free(ids);
		ffu__coll_groups_free(out);
		snprintf(why, why_size, "out of memory");
		return false;
	}
	int k = 0;
	for (int g = 0; g < ng; g++)
		for (int o = 0; o < per; o++)
			for (int j = 0; j < sz; j++)
				for (int q = 0; q < mult; q++) {
					int64_t id = ids[(size_t)g * sz + j], r;
					switch (mode) {
					case FFU_COLL_CROSS_REPLICA: r = id * P + o; break;
					case FFU_COLL_CROSS_PARTITION: r = o * P + id; break;
					case FFU_COLL_CROSS_REPLICA_PART: r = id * P + q; break;
					default: r = id; break;
					}
					out->ranks[k++] = (int)r;
				}
	free(ids);
	return true;
}

bool ffu__coll_sources(const ffu_inst *in, const ffu_module *m, int *src, char *why, size_t why_size)
{
	const ffu_coll_mode mode = ffu__coll_mode(in);
	const int64_t R = m->replica_count, P = m->num_partitions, n_ids = ffu__coll_id_count(in, m);
	for (int64_t r = 0; r < R * P; r++)
		src[r] = -1;
	char *sent = calloc((size_t)n_ids + 1, 1), *got = calloc((size_t)n_ids + 1, 1);
	if (!sent || !got) {
		free(sent);
		free(got);
		snprintf(why, why_size, "out of memory");
		return false;
	}
	bool ok = true;
	for (int i = 0; i < in->coll.n_pairs && ok; i++) {
		int64_t s = in->coll.pairs[2 * i], t = in->coll.pairs[2 * i + 1];
		if (s < 0 || s >= n_ids || t < 0 || t >= n_ids) {
			snprintf(why, why_size, "source_target_pairs entry {%lld,%lld} is outside 0..%lld", (long long)s,
				 (long long)t, (long long)n_ids - 1);
			ok = false;
		} else if (sent[s] || got[t]) {
			snprintf(why, why_size, "source_target_pairs: %s %lld appears twice", sent[s] ? "source" : "target",
				 (long long)(sent[s] ? s : t));
			ok = false;
		} else {
			sent[s] = got[t] = 1;
			/* a pair of replica ids holds in every partition, of partition ids in every replica */
			int64_t per = mode == FFU_COLL_CROSS_PARTITION ? R : P;
			for (int64_t o = 0; o < per; o++) {
				if (mode == FFU_COLL_CROSS_PARTITION)
					src[o * P + t] = (int)(o * P + s);
				else
					src[t * P + o] = (int)(s * P + o);
			}
		}
	}
	free(sent);
	free(got);
	return ok;
}
