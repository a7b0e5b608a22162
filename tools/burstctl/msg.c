// SPDX-License-Identifier: GPL-2.0
/* What burstctl says when something is wrong: "burstctl CMD: ..." on stderr. */
#include <stdarg.h>
#include <stdlib.h>

#include "bc.h"

static void message(const char *cmd, const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "burstctl %s: %s", cmd, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void bc_exit(int status, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(cmd, "", fmt, ap);
	va_end(ap);
	exit(status);
}

void bc_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

int bc_err(int ret, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}
