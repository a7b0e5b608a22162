// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl check: can this node run a container whose burst exceeds its
 * quota? Everything is read from what runs: the kernel's own files (the
 * series' sysctls, uname's release and version), the crun on PATH (its
 * --version and whether its update command knows --cpu-burst) and the
 * firmware's Secure Boot variable. A node kernel built by make node-kernel
 * carries the series' revision in its version string (uname -v:
 * "#3+burst27 SMP PREEMPT_DYNAMIC series 0123456789ab"), so two
 * nodes that say the same revision run the same series.
 */
#define _GNU_SOURCE	/* strchrnul */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/cgfile.h"
#include "bc.h"

static const char usage[] =
"Usage: burstctl check [OPTION]...\n"
"Tell whether this node can run containers with a CPU burst above their\n"
"quota: the running kernel carries the burst-cfs series (and which revision),\n"
"its switch (kernel.sched_cfs_bw_burst_enabled) is on, and the crun on PATH\n"
"is burst-cfs's. Also reports Secure Boot's state (an unsigned kernel of ours\n"
"does not boot under it). Exit status 0 when all hold, else 1 with the first\n"
"reason on stderr.\n"
"\n"
"      --json         one JSON object instead of the lines\n"
"      --root DIR     read the kernel's and firmware's files under DIR\n"
"                     (DIR/proc/sys/kernel/..., DIR/sys/firmware/efi/...)\n"
"      --crun PATH    the crun to check (default: crun on PATH)\n"
"  -h, --help         this text\n";

#define SYSCTL_DIR	"proc/sys/kernel"
#define SWITCH		"sched_cfs_bw_burst_enabled"
#define ONSET		"sched_cfs_bw_burst_onset_percent"
/* EFI's global variable GUID: SecureBoot's value follows 4 bytes of attributes. */
#define SB_VAR		"sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static const char *const sb_names[] = {
	[BC_SB_UNKNOWN] = "unknown", [BC_SB_NO_EFI] = "no EFI (legacy BIOS boot)",
	[BC_SB_OFF] = "disabled", [BC_SB_ON] = "enabled",
};

const char *bc_sb_name(enum bc_sb sb)
{
	return sb_names[sb];
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static void read_text(const char *root, const char *file, char *buf, size_t len)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", root, SYSCTL_DIR);
	if (cgfile_read(dir, file, buf, len))
		buf[0] = '\0';
	chomp(buf);
}

/* A sysctl's value: 0 and *v, or -errno (-ENOENT: the kernel has none). */
static int read_int(const char *root, const char *file, long *v)
{
	char dir[4096], buf[64], *end;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", root, SYSCTL_DIR);
	ret = cgfile_read(dir, file, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

/*
 * The node kernel's stamp in uname -v: "+burstN" (the package version's
 * series revision) and "series HEX" (the hash of the series' content).
 * Only both together are a revision: make kernel's guest kernels (and
 * node kernels built before the stamp) say a fixed "+burst1" that names
 * no series.
 */
void bc_check_stamp(const char *version, char *rev, size_t rlen, char *hash, size_t hlen)
{
	const char *p = strstr(version, "+burst"), *q = strstr(version, " series ");
	size_t n, m;

	rev[0] = hash[0] = '\0';
	if (!p || !q)
		return;
	p += strlen("+burst");
	q += strlen(" series ");
	n = strspn(p, "0123456789");
	m = strspn(q, "0123456789abcdef");
	if (!n || n >= rlen || !m || m >= hlen)
		return;
	snprintf(rev, rlen, "%.*s", (int)n, p);
	snprintf(hash, hlen, "%.*s", (int)m, q);
}

static enum bc_sb read_sb(const char *root)
{
	char path[4096];
	unsigned char buf[8];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/sys/firmware/efi", root);
	if (stat(path, &st))
		return errno == ENOENT ? BC_SB_NO_EFI : BC_SB_UNKNOWN;
	snprintf(path, sizeof(path), "%s/%s", root, SB_VAR);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* EFI without the variable: firmware with no Secure Boot at all. */
		if (errno != ENOENT)
			return BC_SB_UNKNOWN;
		snprintf(path, sizeof(path), "%s/sys/firmware/efi/efivars", root);
		return stat(path, &st) ? BC_SB_UNKNOWN : BC_SB_OFF;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != 5)
		return BC_SB_UNKNOWN;
	return buf[4] == 1 ? BC_SB_ON : BC_SB_OFF;
}

/* The first executable "crun" on PATH, or -ENOENT. */
static int find_crun(char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(out, len, "%.*s/crun", (int)(end - p), p);
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}

/* Run crun with one or two arguments; its stdout and stderr in buf. Exit status, or -1. */
static int run_crun(const char *crun, const char *a1, const char *a2, char *buf, size_t len)
{
	size_t got = 0;
	int fds[2], st;
	pid_t pid;
	ssize_t n;

	buf[0] = '\0';
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execl(crun, crun, a1, a2, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + got, len - 1 - got)) > 0 && got + n < len - 1)
		got += n;
	if (n > 0)
		got += n;
	buf[got] = '\0';
	/* Whatever more it writes is not read: let it finish on a closed pipe. */
	close(fds[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void bc_check_read(const char *root, const char *crun, struct bc_check *c)
{
	char out[65536], *nl;
	long v;
	int ret;

	memset(c, 0, sizeof(*c));
	read_text(root, "osrelease", c->release, sizeof(c->release));
	read_text(root, "version", c->version, sizeof(c->version));
	bc_check_stamp(c->version, c->revision, sizeof(c->revision), c->series_hash, sizeof(c->series_hash));
	ret = read_int(root, SWITCH, &v);
	c->series = ret != -ENOENT;
	c->switch_on = -1;
	if (!ret)
		c->switch_on = v != 0;
	c->onset = -1;
	if (!read_int(root, ONSET, &v))
		c->onset = v;
	c->sb = read_sb(root);

	if (crun) {
		snprintf(c->crun, sizeof(c->crun), "%s", crun);
		c->crun_found = !access(crun, X_OK);
	} else {
		c->crun_found = !find_crun(c->crun, sizeof(c->crun));
		if (!c->crun_found)
			snprintf(c->crun, sizeof(c->crun), "crun");
	}
	if (c->crun_found) {
		if (!run_crun(c->crun, "--version", NULL, out, sizeof(out))) {
			nl = strchr(out, '\n');
			if (nl)
				*nl = '\0';
			snprintf(c->crun_version, sizeof(c->crun_version), "%.255s", out);
		}
		/* Ours has update --cpu-burst (crun-patches/burst-update-cpu-burst-flag.patch). */
		if (!run_crun(c->crun, "update", "--help", out, sizeof(out)))
			c->crun_ours = strstr(out, "--cpu-burst") != NULL;
	}
	bc_check_verdict(c);
}

void bc_check_verdict(struct bc_check *c)
{
	const char *sb = c->sb == BC_SB_ON ?
		"; Secure Boot is enabled: sign our kernel with an enrolled key before it becomes GRUB's default (docs/install.md)" : "";

	c->ok = false;
	if (!c->series)
		snprintf(c->reason, sizeof(c->reason),
			 "kernel %.255s does not carry the burst-cfs series (no /proc/sys/kernel/" SWITCH ")%s",
			 c->release[0] ? c->release : "(unknown release)", sb);
	else if (c->switch_on < 0)
		snprintf(c->reason, sizeof(c->reason), "cannot read /proc/sys/kernel/" SWITCH);
	else if (!c->switch_on)
		snprintf(c->reason, sizeof(c->reason),
			 "the burst-cfs switch is off (kernel." SWITCH " = 0): bursts stay within the quota; sysctl -w kernel." SWITCH "=1");
	else if (!c->crun_found)
		snprintf(c->reason, sizeof(c->reason), "no crun at %.400s%s", c->crun,
			 strchr(c->crun, '/') ? "" : " on PATH");
	else if (!c->crun_ours)
		snprintf(c->reason, sizeof(c->reason),
			 "%.400s (%.200s) is not burst-cfs's: `crun update --help` has no --cpu-burst (install crun from the burst-cfs repository)",
			 c->crun, c->crun_version[0] ? c->crun_version : "no --version");
	else
		c->ok = true;
	if (c->ok)
		c->reason[0] = '\0';
}

static void print_text(const struct bc_check *c)
{
	printf("kernel:      %s: %s", c->release,
	       c->series ? "carries the burst-cfs series" : "no burst-cfs series");
	if (c->series && c->revision[0])
		printf(", revision +burst%s", c->revision);
	else if (c->series)
		printf(", revision unknown (not a make node-kernel build: uname -v has no +burstN and series HASH)");
	if (c->series_hash[0])
		printf(", series %s", c->series_hash);
	printf("\n");
	printf("uname -v:    %s\n", c->version);
	if (c->series) {
		printf("switch:      kernel." SWITCH " = %s\n",
		       c->switch_on < 0 ? "unreadable" : c->switch_on ? "1 (on)" : "0 (off)");
		if (c->onset >= 0)
			printf("onset:       kernel." ONSET " = %d\n", c->onset);
	}
	printf("crun:        %s: %s%s%s\n", c->crun, !c->crun_found ? "not found" :
	       c->crun_ours ? "burst-cfs's (update --cpu-burst)" : "not burst-cfs's (no update --cpu-burst)",
	       c->crun_version[0] ? ", " : "", c->crun_version);
	printf("secure boot: %s\n", bc_sb_name(c->sb));
	if (c->ok)
		printf("ok: containers on this node may burst above their quota\n");
}

static void json_opt(const char *key, const char *v, bool last)
{
	printf("\"%s\":", key);
	if (v && *v)
		bc_json_str(stdout, v);
	else
		fputs("null", stdout);
	fputs(last ? "" : ",", stdout);
}

static void print_json(const struct bc_check *c)
{
	printf("{\"ok\":%s,", c->ok ? "true" : "false");
	json_opt("reason", c->reason, false);
	printf("\"kernel\":{");
	json_opt("release", c->release, false);
	json_opt("version", c->version, false);
	printf("\"series\":%s,", c->series ? "true" : "false");
	json_opt("revision", c->revision, false);
	json_opt("series_hash", c->series_hash, false);
	if (c->switch_on < 0)
		printf("\"switch\":null,");
	else
		printf("\"switch\":%s,", c->switch_on ? "true" : "false");
	if (c->onset < 0)
		printf("\"onset_percent\":null},");
	else
		printf("\"onset_percent\":%d},", c->onset);
	printf("\"crun\":{");
	json_opt("path", c->crun_found ? c->crun : NULL, false);
	json_opt("version", c->crun_version, false);
	printf("\"burst\":%s},", c->crun_ours ? "true" : "false");
	json_opt("secure_boot", c->sb == BC_SB_ON ? "enabled" : c->sb == BC_SB_OFF ? "disabled" :
		 c->sb == BC_SB_NO_EFI ? "no-efi" : "unknown", true);
	printf("}\n");
}

enum { OPT_ROOT = 1400, OPT_JSON, OPT_CRUN };

int bc_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "crun", required_argument, NULL, OPT_CRUN },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "", *crun = NULL;
	struct bc_check c;
	bool json = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			return 0;
		} else if (opt == OPT_ROOT) {
			if (!*optarg)
				bc_usage_error("check", "--root '': give a directory");
			root = optarg;
		} else if (opt == OPT_CRUN) {
			if (!*optarg)
				bc_usage_error("check", "--crun '': give crun's path");
			crun = optarg;
		} else if (opt == OPT_JSON) {
			json = true;
		} else {
			bc_usage_error("check", "see burstctl check --help");
		}
	}
	if (optind < argc)
		bc_usage_error("check", "unexpected argument '%s' (check takes no TARGET)", argv[optind]);
	if (*root) {
		struct stat st;

		if (stat(root, &st) || !S_ISDIR(st.st_mode))
			bc_usage_error("check", "--root '%s': not a directory", root);
	}
	bc_check_read(root, crun, &c);
	if (json)
		print_json(&c);
	else
		print_text(&c);
	if (!c.ok) {
		fprintf(stderr, "burstctl check: %s\n", c.reason);
		return BC_EXIT_FAIL;
	}
	return 0;
}
