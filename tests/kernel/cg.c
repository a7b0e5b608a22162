// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"
#include "tap.h"

bool expect_patched(void)
{
	const char *e = getenv("BURSTCFS_EXPECT");

	if (e && !strcmp(e, "patched"))
		return true;
	if (e && !strcmp(e, "stock"))
		return false;
	tap_bail("BURSTCFS_EXPECT must be 'patched' or 'stock', not '%s'", e ? e : "(unset)");
}

static void cg_path(char *path, size_t len, const char *cg, const char *file)
{
	if (snprintf(path, len, "%s/%s", cg, file) >= (int)len)
		tap_bail("path too long: %s/%s", cg, file);
}

int cg_write(const char *cg, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], buf[256];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cg_path(path, sizeof(path), cg, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One write(2): cgroup files parse each write as a whole. */
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

int cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	cg_path(path, sizeof(path), cg, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

int cg_create(const char *cg)
{
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int cg_destroy(const char *cg, const char *root)
{
	const char *procs = access(CG2_ROOT "/cgroup.controllers", F_OK) == 0 &&
			    !strncmp(cg, CG2_ROOT, strlen(CG2_ROOT)) ? "cgroup.procs" : "tasks";
	char buf[4096], *line, *save;

	if (cg_read(cg, procs, buf, sizeof(buf)) == 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			cg_write(root, procs, "%s", line);
	}
	if (rmdir(cg) && errno != ENOENT)
		return -errno;
	return 0;
}

long long cg_key(const char *cg, const char *file, const char *key)
{
	char buf[4096], *line, *save;
	size_t klen = strlen(key);

	if (cg_read(cg, file, buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	}
	return -1;
}

long long cg_num(const char *cg, const char *file)
{
	char buf[256], *end;
	long long v;

	if (cg_read(cg, file, buf, sizeof(buf)))
		return LLONG_MIN;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return LLONG_MIN;
	return v;
}

int sysctl_write(const char *name, const char *value)
{
	char dir[PATH_MAX] = "/proc/sys/kernel";

	return cg_write(dir, name, "%s", value);
}

long long sysctl_num(const char *name)
{
	return cg_num("/proc/sys/kernel", name);
}

#define HOG_MAX 64
static pid_t hog_pids[HOG_MAX];
static int hog_count;

int hog_start(const char *cg, const char *procs_file, int procs)
{
	int i, ret;

	for (i = 0; i < procs && hog_count < HOG_MAX; i++) {
		int go[2];
		pid_t pid;
		char c;

		if (pipe(go))
			return -errno;
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			close(go[1]);
			/* Spin only once the parent has moved us into the group. */
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			for (;;)
				;
		}
		close(go[0]);
		hog_pids[hog_count++] = pid;
		ret = cg_write(cg, procs_file, "%d", pid);
		if (write(go[1], "g", 1) != 1 && !ret)
			ret = -EIO;
		close(go[1]);
		if (ret)
			return ret;
	}
	return 0;
}

void hog_stop(void)
{
	while (hog_count > 0) {
		pid_t pid = hog_pids[--hog_count];

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

long long now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void sleep_usec(long long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
