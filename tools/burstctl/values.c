// SPDX-License-Identifier: GPL-2.0
/* Times and counts on the command line, and how they are shown. */
#include <errno.h>
#include <string.h>

#include "bc.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", BC_NS_PER_US }, { "ms", BC_NS_PER_MS }, { "s", BC_NS_PER_S },
};

/* Leading decimal digits as a number; *n counts them, *big says it overflowed. */
static uint64_t digits(const char **p, size_t *n, bool *big)
{
	uint64_t v = 0;

	for (*n = 0, *big = false; **p >= '0' && **p <= '9'; (*p)++, (*n)++) {
		if (v > (UINT64_MAX - 9) / 10)
			*big = true;
		v = v * 10 + (uint64_t)(**p - '0');
	}
	return v;
}

static int unit_of(const char *u, uint64_t bare_unit, uint64_t *ns)
{
	size_t i;

	if (!*u) {
		*ns = bare_unit;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(u, units[i].name)) {
			*ns = units[i].ns;
			return 0;
		}
	}
	return -EINVAL;
}

int bc_parse_time(const char *what, const char *s, uint64_t bare_unit, uint64_t *ns,
		  char *err, size_t len)
{
	const char *p = s;
	uint64_t whole, frac = 0, scale = 1, unit, part;
	size_t nwhole, nfrac = 0;
	bool big;

	if (*p == '-')
		return bc_err(-EINVAL, err, len, "%s '%s': must not be negative", what, s);
	whole = digits(&p, &nwhole, &big);
	if (*p == '.') {
		/* Digits past the ninth cannot change a nanosecond count of a second. */
		for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
			if (nfrac < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	if (!nwhole && !nfrac)
		return bc_err(-EINVAL, err, len, "%s '%s': expected a time such as 20ms, 1.5s or 20000 (%s)",
			    what, s, bare_unit == BC_NS_PER_S ? "seconds" : "microseconds");
	if (unit_of(p, bare_unit, &unit))
		return bc_err(-EINVAL, err, len, "%s '%s': unknown unit '%s' (use ns, us, ms or s)", what, s, p);
	part = (uint64_t)((unsigned __int128)frac * unit / scale);
	if (big || (whole && unit > UINT64_MAX / whole) || whole * unit > UINT64_MAX - part)
		return bc_err(-EINVAL, err, len, "%s '%s': too large", what, s);
	*ns = whole * unit + part;
	return 0;
}

int bc_parse_count(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		   char *err, size_t len)
{
	const char *p = s;
	size_t n;
	bool big;
	uint64_t x = digits(&p, &n, &big);

	if (!n || *p)
		return bc_err(-EINVAL, err, len, "%s '%s': expected a whole number", what, s);
	if (big || x < min || x > max)
		return bc_err(-EINVAL, err, len, "%s '%s': must be between %llu and %llu", what, s,
			    (unsigned long long)min, (unsigned long long)max);
	*v = x;
	return 0;
}

const char *bc_time_str(uint64_t ns, char *buf, size_t len)
{
	size_t i = ARRAY_SIZE(units);

	while (--i > 0 && ns % units[i].ns)
		;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].name);
	return buf;
}

const char *bc_ms(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", (double)ns / BC_NS_PER_MS);
	return buf;
}

void bc_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
