// SPDX-License-Identifier: GPL-2.0
/* TAP 13 on stdout (tap.h): the guest suites, the model's, burstctl's and burstbench's tests. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static int tap_number;
static int tap_failures;
static char tap_reason[256];
static bool tap_has_reason;

void tap_plan(int count)
{
	printf("TAP version 13\n1..%d\n", count);
	fflush(stdout);
}

bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_number);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failures++;
	return cond;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(2);
}

int tap_failed(void)
{
	return tap_failures;
}

int tap_count(void)
{
	return tap_number;
}

void tap_abandon(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tap_reason, sizeof(tap_reason), fmt, ap);
	va_end(ap);
	tap_has_reason = true;
	tap_diag("stopping early: %s", tap_reason);
}

const char *tap_abandoned(void)
{
	if (!tap_has_reason)
		return NULL;
	tap_has_reason = false;
	return tap_reason;
}

const char *tap_escape(const char *s)
{
	static char bufs[4][160];
	static int next;
	char *out = bufs[next++ % 4], *p = out;

	for (; *s && p < out + sizeof(bufs[0]) - 5; s++) {
		if (*s == '\n')
			p += sprintf(p, "\\n");
		else if (*s == '\t')
			p += sprintf(p, "\\t");
		else if ((unsigned char)*s < ' ' || *s == 0x7f)
			p += sprintf(p, "\\x%02x", (unsigned char)*s);
		else
			*p++ = *s;
	}
	*p = '\0';
	return out;
}
