/* util/config.c: see config.h. */
#include "util/config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static ffu_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	const char *v = getenv("FIELDFUSE_DISABLE_FUSION");
	config.disable_fusion = v && v[0] && strcmp(v, "0") != 0;
	v = getenv("FIELDFUSE_LANES");
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*end && n >= 1 && n <= 16)
			config.lanes = (int)n;
	}
}

const ffu_config *ffu__config(void)
{
	pthread_once(&config_once, load);
	return &config;
}
