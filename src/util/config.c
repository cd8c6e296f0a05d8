/* util/config.c: see config.h. */
#include "util/config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ffu_config config;
/* a copy: a later setenv may free the environment's string */
static char disable_passes[512];
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	const char *v = getenv("FIELDFUSE_DISABLE_FUSION");
	config.disable_fusion = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_NO_PTX");
	config.no_ptx = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_DISABLE_PASSES");
	if (v && *v) {
		snprintf(disable_passes, sizeof disable_passes, "%s", v);
		config.disable_passes = disable_passes;
	}
	v = getenv("FIELDFUSE_LANES");
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*end && n >= 1 && n <= 16)
			config.lanes = (int)n;
	}
	v = getenv("FIELDFUSE_FFT_RADIX");
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*end && n >= 1 && n <= 6)
			config.fft_log_radix = (int)n;
	}
}

const ffu_config *ffu__config(void)
{
	pthread_once(&config_once, load);
	return &config;
}
