// SPDX-License-Identifier: GPL-2.0
/* Times and counts on the command line: what they are worth, what is refused and how. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "test.h"

static char err[256];

static void time_is(const char *s, uint64_t bare, uint64_t want)
{
	uint64_t ns = 0;
	int ret = bc_parse_time("--x", s, bare, &ns, err, sizeof(err));

	tap_ok(!ret && ns == want, "time '%s' (bare %s) = %llu ns: got %llu, %s", s,
	       bare == BC_NS_PER_S ? "s" : "us", (unsigned long long)want, (unsigned long long)ns,
	       ret ? err : "ok");
}

/* Refused, the message naming the option, the value and why. */
static void time_bad(const char *s, const char *why)
{
	uint64_t ns = 0;
	char quoted[64];
	int ret = bc_parse_time("--x", s, BC_NS_PER_US, &ns, err, sizeof(err));

	snprintf(quoted, sizeof(quoted), "'%s'", s);
	tap_ok(ret && strstr(err, "--x") && strstr(err, quoted) && strstr(err, why),
	       "time '%s' refused (%s): %s", s, why, ret ? err : "accepted");
}

static void test_times(void)
{
	time_is("20ms", BC_NS_PER_US, 20 * BC_NS_PER_MS);
	time_is("20000", BC_NS_PER_US, 20 * BC_NS_PER_MS);
	time_is("1.5s", BC_NS_PER_US, 1500 * BC_NS_PER_MS);
	time_is("0.5", BC_NS_PER_S, 500 * BC_NS_PER_MS);
	time_is(".25ms", BC_NS_PER_US, 250 * BC_NS_PER_US);
	time_is("7ns", BC_NS_PER_US, 7);
	time_is("1.0000000009s", BC_NS_PER_US, BC_NS_PER_S);
	time_is("0", BC_NS_PER_S, 0);
	time_bad("-5", "must not be negative");
	time_bad("", "expected a time");
	time_bad("ms", "expected a time");
	time_bad("10xs", "unknown unit 'xs'");
	time_bad("1 ms", "unknown unit ' ms'");
	time_bad("99999999999999999999s", "too large");
	time_bad("18446744073709551615s", "too large");
}

static void test_counts(void)
{
	uint64_t v = 0;

	tap_ok(!bc_parse_count("--n", "42", 0, 100, &v, err, sizeof(err)) && v == 42, "count 42");
	tap_ok(bc_parse_count("--n", "101", 0, 100, &v, err, sizeof(err)) &&
	       strstr(err, "'101': must be between 0 and 100"), "count above the limit: %s", err);
	tap_ok(bc_parse_count("--n", "-1", 0, 100, &v, err, sizeof(err)) &&
	       strstr(err, "expected a whole number"), "count -1: %s", err);
	tap_ok(bc_parse_count("--n", "4x", 0, 100, &v, err, sizeof(err)) &&
	       bc_parse_count("--n", "", 0, 100, &v, err, sizeof(err)), "counts '4x' and '' refused");
}

static void test_shown(void)
{
	char buf[64];

	tap_ok(!strcmp(bc_time_str(BC_NS_PER_MS, buf, sizeof(buf)), "1ms") &&
	       !strcmp(bc_time_str(BC_NS_PER_S, buf, sizeof(buf)), "1s") &&
	       !strcmp(bc_time_str(1500 * BC_NS_PER_US, buf, sizeof(buf)), "1500us") &&
	       !strcmp(bc_time_str(BWM_MAX_RUNTIME, buf, sizeof(buf)), "17592186044415us") &&
	       !strcmp(bc_time_str(0, buf, sizeof(buf)), "0s"),
	       "times shown in the largest unit that divides them");
	tap_ok(!strcmp(bc_ms(1234567 * BC_NS_PER_US, buf, sizeof(buf)), "1234.6"),
	       "1234.567 ms shown with one decimal: %s", buf);
}

static void test_json(void)
{
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	bc_json_str(f, "a\"b\\c\nd");
	fclose(f);
	tap_ok(!strcmp(text, "\"a\\\"b\\\\c\\u000ad\""), "JSON string escaped: %s", text);
	free(text);
}

void test_values(void)
{
	test_times();
	test_counts();
	test_shown();
	test_json();
}
