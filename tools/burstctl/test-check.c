// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl check on made-up nodes: a root with the kernel's files (the
 * series' sysctls or none, uname's release and version, the firmware's
 * Secure Boot variable) and shell scripts standing in for our crun and
 * Debian's. Each verdict, its reason, and the binary's exit status and
 * JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../lib/cgfile.h"
#include "bc.h"
#include "test.h"

#define OURS_VERSION "#3+burst27 SMP PREEMPT_DYNAMIC series 0123456789ab"
#define DEBIAN_VERSION "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-30)"

static void mkdirs(const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd))
		tap_bail("cannot make %s", path);
}

/* A node's root at tmp/name: release, version, the switch ("" none) and Secure Boot (-1 no EFI). */
static void make_root(const char *tmp, const char *name, const char *release, const char *version,
		      const char *sw, int sb, char *root, size_t len)
{
	char dir[4096], var[4200];
	FILE *f;

	snprintf(root, len, "%s/%s", tmp, name);
	snprintf(dir, sizeof(dir), "%s/proc/sys/kernel", root);
	mkdirs(dir);
	write_file(dir, "osrelease", release);
	write_file(dir, "version", version);
	if (*sw) {
		write_file(dir, "sched_cfs_bw_burst_enabled", sw);
		write_file(dir, "sched_cfs_bw_burst_onset_percent", "0\n");
	}
	if (sb < 0)
		return;
	snprintf(dir, sizeof(dir), "%s/sys/firmware/efi/efivars", root);
	mkdirs(dir);
	snprintf(var, sizeof(var), "%s/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", dir);
	f = fopen(var, "w");
	/* Attributes (non-volatile, boot and runtime access), then the value. */
	if (!f || fwrite("\x06\x00\x00\x00", 1, 4, f) != 4 || fputc(sb, f) == EOF || fclose(f))
		tap_bail("cannot write %s", var);
}

/* A crun stand-in: --version's line, and update --help with or without --cpu-burst. */
static void make_crun(const char *tmp, const char *name, bool ours, char *path, size_t len)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "case \"$1\" in\n"
		 "--version) echo 'crun version 1.8.1'; echo 'commit: 0'; echo '+SYSTEMD +CAP' ;;\n"
		 "update) echo 'Usage: crun [OPTION...] update CONTAINER'; echo '      --cpu-quota=VALUE'%s ;;\n"
		 "*) exit 1 ;;\n"
		 "esac\n", ours ? "; echo '      --cpu-burst=VALUE   CPU CFS burst'" : "");
	write_file(tmp, name, text);
	snprintf(path, len, "%s/%s", tmp, name);
	if (chmod(path, 0755))
		tap_bail("cannot chmod %s", path);
}

static void test_stamp(void)
{
	char rev[32], hash[65];

	bc_check_stamp(OURS_VERSION, rev, sizeof(rev), hash, sizeof(hash));
	tap_ok(!strcmp(rev, "27") && !strcmp(hash, "0123456789ab"),
	       "stamp: +burst27 and series 0123456789ab read from uname -v (got '%s', '%s')", rev, hash);
	bc_check_stamp(DEBIAN_VERSION, rev, sizeof(rev), hash, sizeof(hash));
	tap_ok(!rev[0] && !hash[0], "stamp: Debian's uname -v has none");
	bc_check_stamp("#1 +burst series 0123 (x)", rev, sizeof(rev), hash, sizeof(hash));
	tap_ok(!rev[0] && !hash[0], "stamp: +burst without a number is no revision");
	/* make kernel's guest kernel, as uname -v says it. */
	bc_check_stamp("#3+burst1 SMP PREEMPT_DYNAMIC Fri, 4 Dec 2026 09:50:27 +0000", rev, sizeof(rev),
		       hash, sizeof(hash));
	tap_ok(!rev[0] && !hash[0], "stamp: a fixed +burst1 without the series hash is no revision");
}

static void expect_verdict(const struct bc_check *c, bool ok, const char *piece, const char *what)
{
	if (!tap_ok(c->ok == ok && (!piece || strstr(c->reason, piece)), "%s: %s%s%s", what,
		    ok ? "ok" : "not ok, because ", piece ? "\"" : "", piece ? tap_escape(piece) : ""))
		tap_diag("ok %d, reason: %s", c->ok, tap_escape(c->reason));
}

/* tmp/name's first len - 1 bytes in buf, a string; empty if it cannot be read. */
static void read_output(const char *tmp, const char *name, char *buf, size_t len)
{
	if (cgfile_read(tmp, name, buf, len))
		buf[0] = '\0';
}

/* Run the binary; its stdout in out (up to len), stderr in err. The exit status. */
static int run_bin(const char *bin, const char *tmp, const char *args, char *out, size_t len,
		   char *err, size_t elen)
{
	char cmd[8192];
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' check %s >check.out 2>check.err", tmp, bin, args);
	st = system(cmd);
	read_output(tmp, "check.out", out, len);
	read_output(tmp, "check.err", err, elen);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void test_check(const char *bin, const char *tmp)
{
	char ours[4096], debian[4096], off[4096], sbon[4096], crun[4096], dcrun[4096];
	char args[16384], out[8192], err[2048];
	struct bc_check c;
	int rc;

	test_stamp();
	make_root(tmp, "node-ours", "6.1.0-57-cloud-amd64-burst\n", OURS_VERSION "\n", "1\n", 0,
		  ours, sizeof(ours));
	make_root(tmp, "node-debian", "6.1.0-58-cloud-amd64\n", DEBIAN_VERSION "\n", "", 1,
		  debian, sizeof(debian));
	make_root(tmp, "node-off", "6.1.0-57-cloud-amd64-burst\n", OURS_VERSION "\n", "0\n", -1,
		  off, sizeof(off));
	make_root(tmp, "node-sb", "6.1.192-burst-cfs-g552219ecca24\n",
		  "#3+burst1 SMP PREEMPT_DYNAMIC Fri, 4 Dec 2026 09:50:27 +0000\n", "1\n", 1,
		  sbon, sizeof(sbon));
	make_crun(tmp, "crun-ours", true, crun, sizeof(crun));
	make_crun(tmp, "crun-debian", false, dcrun, sizeof(dcrun));

	bc_check_read(ours, crun, &c);
	expect_verdict(&c, true, NULL, "our kernel, switch on, our crun");
	tap_ok(c.series && c.switch_on == 1 && c.onset == 0 && !strcmp(c.revision, "27") &&
	       !strcmp(c.release, "6.1.0-57-cloud-amd64-burst") && c.sb == BC_SB_OFF &&
	       !strcmp(c.crun_version, "crun version 1.8.1") && c.crun_ours,
	       "what it read: release, revision 27, switch 1, onset 0, Secure Boot off, crun's first line");

	bc_check_read(debian, crun, &c);
	expect_verdict(&c, false, "kernel 6.1.0-58-cloud-amd64 does not carry the burst-cfs series",
		       "Debian's kernel");
	tap_ok(c.sb == BC_SB_ON && strstr(c.reason, "Secure Boot is enabled"),
	       "Debian's kernel under Secure Boot: the reason says to sign ours");

	bc_check_read(off, crun, &c);
	expect_verdict(&c, false, "switch is off", "our kernel with the switch off");
	tap_ok(c.sb == BC_SB_NO_EFI, "no /sys/firmware/efi: a BIOS boot, no Secure Boot");

	bc_check_read(sbon, crun, &c);
	expect_verdict(&c, true, NULL, "a kernel with the series but no stamp (make kernel's)");
	tap_ok(!c.revision[0] && c.sb == BC_SB_ON, "no revision; Secure Boot on is reported, not refused");

	bc_check_read(ours, dcrun, &c);
	expect_verdict(&c, false, "is not burst-cfs's: `crun update --help` has no --cpu-burst",
		       "our kernel with Debian's crun");
	snprintf(args, sizeof(args), "%s/no-such-crun", tmp);
	bc_check_read(ours, args, &c);
	expect_verdict(&c, false, "no crun at", "no crun");

	/* The binary: lines and status 0; JSON; status 1 and the reason on stderr; bad input. */
	snprintf(args, sizeof(args), "--root '%s' --crun '%s'", ours, crun);
	rc = run_bin(bin, tmp, args, out, sizeof(out), err, sizeof(err));
	tap_ok(rc == 0 && strstr(out, "revision +burst27, series 0123456789ab") && strstr(out, "ok: ") && !err[0],
	       "burstctl check on our node: status 0, the revision, ok");
	snprintf(args, sizeof(args), "--root '%s' --crun '%s' --json", ours, crun);
	rc = run_bin(bin, tmp, args, out, sizeof(out), err, sizeof(err));
	if (!tap_ok(rc == 0 && strstr(out, "{\"ok\":true,\"reason\":null,\"kernel\":{\"release\":\"6.1.0-57-cloud-amd64-burst\"") &&
		    strstr(out, "\"series\":true,\"revision\":\"27\",\"series_hash\":\"0123456789ab\",\"switch\":true") &&
		    strstr(out, "\"burst\":true},\"secure_boot\":\"disabled\"}"),
		    "burstctl check --json on our node"))
		tap_diag("%s", tap_escape(out));
	snprintf(args, sizeof(args), "--root '%s' --crun '%s' --json", debian, crun);
	rc = run_bin(bin, tmp, args, out, sizeof(out), err, sizeof(err));
	tap_ok(rc == 1 && strstr(out, "\"ok\":false,\"reason\":\"kernel 6.1.0-58-cloud-amd64 does not carry") &&
	       strstr(out, "\"series\":false,\"revision\":null") && strstr(out, "\"secure_boot\":\"enabled\"") &&
	       !strncmp(err, "burstctl check: kernel 6.1.0-58-cloud-amd64 does not carry", 58) &&
	       !strchr(err, '\n')[1],
	       "burstctl check on Debian's kernel: status 1, one line on stderr");
	rc = run_bin(bin, tmp, "--root /nonexistent-root", out, sizeof(out), err, sizeof(err));
	tap_ok(rc == 2 && strstr(err, "--root '/nonexistent-root': not a directory"),
	       "burstctl check --root on a missing directory: status 2, names it");
	rc = run_bin(bin, tmp, "extra", out, sizeof(out), err, sizeof(err));
	tap_ok(rc == 2 && strstr(err, "unexpected argument 'extra'"), "burstctl check with an argument: status 2");
}
