/* util/config.c: see config.h. */
#include "util/config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ffu_config config;
/* a copy: a later setenv may free the environment's string */
static char disable_passes[512];
static char build_log[4096];
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* A whole number in lo..hi from the environment; 0 when unset, empty or anything else. */
static int env_int(const char *name, long lo, long hi)
{
	const char *v = getenv(name);
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : 0;
	return v && *v && !*end && n >= lo && n <= hi ? (int)n : 0;
}

/* A switch with a size: "0" turns it off (0), a value in lo..hi sets it, anything else
   leaves the target's choice (-1). */
static int env_int_or_off(const char *name, long lo, long hi)
{
	const char *v = getenv(name);
	int k = env_int(name, lo, hi);
	return v && strcmp(v, "0") == 0 ? 0 : k ? k : -1;
}

static void load(void)
{
	const char *v = getenv("FIELDFUSE_DISABLE_FUSION");
	config.disable_fusion = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_PROFILE");
	config.profile = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_NO_PTX");
	config.no_ptx = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_DISABLE_PASSES");
	if (v && *v) {
		snprintf(disable_passes, sizeof disable_passes, "%s", v);
		config.disable_passes = disable_passes;
	}
	v = getenv("FIELDFUSE_BUILD_LOG");
	if (v && *v && strlen(v) < sizeof build_log) {
		snprintf(build_log, sizeof build_log, "%s", v);
		config.build_log = build_log;
	}
	config.lanes = env_int("FIELDFUSE_LANES", 1, 16);
	config.fft_log_radix = env_int("FIELDFUSE_FFT_RADIX", 1, 6);
	config.fft_log_tile = env_int_or_off("FIELDFUSE_FFT_TILE", 2, 12);
	config.fft_vector = env_int_or_off("FIELDFUSE_FFT_VECTOR", 1, 1);
	config.msm_affine = env_int_or_off("FIELDFUSE_MSM_AFFINE", 1, 1 << 20);
	config.msm_one_add = env_int_or_off("FIELDFUSE_MSM_ONE_ADD", 1, 1);
}

const ffu_config *ffu__config(void)
{
	pthread_once(&config_once, load);
	return &config;
}
