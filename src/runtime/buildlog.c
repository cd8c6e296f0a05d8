/* runtime/buildlog.c: see buildlog.h. */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "runtime/buildlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/cl.h"
#include "util/config.h"

static const char *(*tagger)(void);

void ffu__buildlog_set_tagger(const char *(*fn)(void))
{
	tagger = fn;
}

int ffu__buildlog_on(void)
{
	return ffu__config()->build_log != NULL;
}

/* The short name of process pid (its comm), or "?" */
static void comm_of(pid_t pid, char *dst, size_t cap)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	snprintf(dst, cap, "?");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, dst, cap - 1);
	close(fd);
	if (n <= 0) {
		snprintf(dst, cap, "?");
		return;
	}
	dst[n] = '\0';
	dst[strcspn(dst, "\n\t")] = '\0';
}

/* A field that holds no tab or newline (names come from the caller and the environment). */
static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n')
			*s = ' ';
}

void ffu__buildlog(const ffu_cl *cl, const char *event, const char *source, const char *options, const char *name,
		   double ms)
{
	const char *path = ffu__config()->build_log;
	if (!path)
		return;
	XXH64_hash_t key = XXH3_64bits_withSeed(options ? options : "", options ? strlen(options) : 0,
						 source ? XXH3_64bits(source, strlen(source)) : 0);
	if (!source && name)
		key = XXH3_64bits(name, strlen(name));
	struct timeval tv;
	gettimeofday(&tv, NULL);
	char parent[32], tag[256], who[128];
	comm_of(getppid(), parent, sizeof parent);
	snprintf(tag, sizeof tag, "%s", tagger && tagger() ? tagger() : "");
	snprintf(who, sizeof who, "%s", name ? name : "");
	clean(parent);
	clean(tag);
	clean(who);
	char line[1024];
	int len = snprintf(line, sizeof line, "build\t%lld\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%016llx\t%zu\t%.1f\t%s\n",
			   (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000, (int)getpid(), (int)getppid(),
			   program_invocation_short_name, parent, tag[0] ? tag : "-",
			   cl ? ffu__vendor_str(cl->dev.vendor_class) : "-", event, (unsigned long long)key,
			   source ? strlen(source) : (size_t)0, ms, who[0] ? who : "-");
	if (len <= 0)
		return;
	if ((size_t)len >= sizeof line) { /* a long name cut: the line still ends */
		len = sizeof line - 1;
		line[len - 1] = '\n';
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* one write per line: O_APPEND keeps lines of processes side by side whole */
	ssize_t w = write(fd, line, (size_t)len);
	(void)w;
	close(fd);
}
