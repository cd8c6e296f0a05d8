/*
 * ocl/fault.c: the fault table behind FFU_CL / FFU_CL_NEW (see ocl.h).
 *
 * Ownership: one process-wide table under a mutex. FIELDFUSE_FAULT is read once, under
 * pthread_once, into that table (the configuration-parsed-once rule of DESIGN.md); a parse
 * error is kept and reported by device listing, never printed. Only the slow path (some
 * fault armed, or the variable not read yet) takes the lock.
 *
 * FIELDFUSE_FAULT=CALL:CODE[:AFTER][,CALL:CODE[:AFTER]]...
 *   CALL   an OpenCL entry point, e.g. clCreateBuffer
 *   CODE   a CL_... name (CL_MEM_OBJECT_ALLOCATION_FAILURE) or a negative number (-4)
 *   AFTER  successful calls before the first failure (decimal, default 0)
 */
#include "ocl/ocl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fault {
	char call[64];
	cl_int code;
	unsigned after; /* calls still to let through */
} fault;

atomic_int ffu__cl_fault_state = 0;

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fault table[FFU_CL_FAULT_MAX];
static int n_faults;
static unsigned hits;
static ffu_error env_error; /* status OK unless FIELDFUSE_FAULT was malformed */

/* OpenCL entry points are "cl" plus letters; anything else is a typo that would never fire. */
static bool valid_call(const char *s, size_t len)
{
	if (len < 3 || len >= sizeof table[0].call || s[0] != 'c' || s[1] != 'l')
		return false;
	for (size_t i = 2; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
			return false;
	return true;
}

/* Caller holds the lock. who: "FIELDFUSE_FAULT" or "fault injection", for messages. */
static ffu_status add_locked(const char *who, const char *call, size_t len, cl_int code, unsigned after,
			     ffu_error *e)
{
	if (!valid_call(call, len))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: '%.*s' is not an OpenCL call name", who,
				(int)(len < 64 ? len : 64), call);
	if (code == CL_SUCCESS)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %.*s needs a non-zero error code", who, (int)len, call);
	if (n_faults == FFU_CL_FAULT_MAX)
		return ffu__err(e, FFU_STATUS_ELIMIT, "%s: more than %d faults", who, FFU_CL_FAULT_MAX);
	fault *f = &table[n_faults++];
	memcpy(f->call, call, len);
	f->call[len] = '\0';
	f->code = code;
	f->after = after;
	atomic_store(&ffu__cl_fault_state, 2);
	return FFU_STATUS_OK;
}

/* One "CALL:CODE[:AFTER]" item of [s, s+len). */
static ffu_status parse_item(const char *s, size_t len, ffu_error *e)
{
	const char *c1 = memchr(s, ':', len);
	if (!c1)
		return ffu__err(e, FFU_STATUS_EINVAL, "FIELDFUSE_FAULT: '%.*s' is not CALL:CODE[:AFTER]", (int)len, s);
	const char *code_s = c1 + 1, *end = s + len;
	const char *c2 = memchr(code_s, ':', (size_t)(end - code_s));
	const char *code_end = c2 ? c2 : end;
	size_t code_len = (size_t)(code_end - code_s);
	cl_int code = 0;
	unsigned long after = 0;

	if (!ffu__cl_error_code(code_s, code_len, &code)) {
		/* a number: optional '-', then digits */
		const char *p = code_s;
		long v = 0;
		bool neg = p < code_end && *p == '-';
		p += neg;
		if (p == code_end)
			goto bad_code;
		for (; p < code_end; p++) {
			if (*p < '0' || *p > '9' || v > 100000)
				goto bad_code;
			v = v * 10 + (*p - '0');
		}
		code = (cl_int)(neg ? -v : v);
	}
	if (c2) {
		const char *p = c2 + 1;
		if (p == end)
			goto bad_after;
		for (; p < end; p++) {
			if (*p < '0' || *p > '9' || after > 100000000ul)
				goto bad_after;
			after = after * 10 + (unsigned long)(*p - '0');
		}
	}
	return add_locked("FIELDFUSE_FAULT", s, (size_t)(c1 - s), code, (unsigned)after, e);
bad_code:
	return ffu__err(e, FFU_STATUS_EINVAL, "FIELDFUSE_FAULT: '%.*s' is neither a CL_... name nor a number",
			(int)code_len, code_s);
bad_after:
	return ffu__err(e, FFU_STATUS_EINVAL, "FIELDFUSE_FAULT: the count after '%.*s' is not a decimal number",
			(int)(code_end - s), s);
}

static void read_env(void)
{
	const char *env = getenv("FIELDFUSE_FAULT");
	ffu_status st = FFU_STATUS_OK;

	pthread_mutex_lock(&lock);
	while (env && *env && st == FFU_STATUS_OK) {
		const char *comma = strchr(env, ',');
		size_t len = comma ? (size_t)(comma - env) : strlen(env);
		if (len)
			st = parse_item(env, len, &env_error);
		env = comma ? comma + 1 : NULL;
	}
	if (st) {
		/* all or nothing: a half-applied list would test something else than asked */
		n_faults = 0;
		env_error.status = st;
	}
	if (n_faults == 0)
		atomic_store(&ffu__cl_fault_state, 1);
	pthread_mutex_unlock(&lock);
}

cl_int ffu__cl_fault_check(const char *call)
{
	cl_int code = CL_SUCCESS;

	pthread_once(&env_once, read_env);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_faults; i++) {
		fault *f = &table[i];
		if (strcmp(f->call, call) != 0)
			continue;
		if (f->after > 0) {
			f->after--;
			continue;
		}
		code = f->code;
		hits++;
		break;
	}
	pthread_mutex_unlock(&lock);
	return code;
}

ffu_status ffu__cl_fault_set(const char *call, cl_int code, unsigned after, ffu_error *e)
{
	pthread_once(&env_once, read_env);
	if (!call)
		return ffu__err(e, FFU_STATUS_EINVAL, "fault injection: no call name");
	pthread_mutex_lock(&lock);
	ffu_status st = add_locked("fault injection", call, strlen(call), code, after, e);
	pthread_mutex_unlock(&lock);
	return st;
}

void ffu__cl_fault_clear(void)
{
	/* read the variable first, or its faults would arm themselves after this clear */
	pthread_once(&env_once, read_env);
	pthread_mutex_lock(&lock);
	n_faults = 0;
	hits = 0;
	atomic_store(&ffu__cl_fault_state, 1);
	pthread_mutex_unlock(&lock);
}

unsigned ffu__cl_fault_hits(void)
{
	pthread_mutex_lock(&lock);
	unsigned h = hits;
	pthread_mutex_unlock(&lock);
	return h;
}

ffu_status ffu__cl_fault_env_status(ffu_error *e)
{
	pthread_once(&env_once, read_env);
	if (env_error.status == FFU_STATUS_OK)
		return FFU_STATUS_OK;
	return ffu__err(e, env_error.status, "%s", env_error.message);
}
