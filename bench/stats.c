// SPDX-License-Identifier: GPL-2.0
/* Latency percentiles, the long-run usage bound and the achieved rate. */
#include <math.h>
#include <stdlib.h>

#include "bb.h"

const double bb_pcts[BB_NPCT] = { 50, 75, 90, 95, 99, 99.5, 99.9 };
const char *const bb_pct_names[BB_NPCT] = {
	"p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9",
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t bb_percentile(const uint64_t *sorted, size_t n, double p)
{
	double r;
	size_t rank;

	if (!n)
		return 0;
	if (p <= 0)
		return sorted[0];
	/*
	 * rank = ceil(p/100 * n); the small allowance keeps 99.9% of 1000
	 * at rank 999 when the product comes out as 999.0000000001.
	 */
	r = ceil(p / 100.0 * (double)n - 1e-9);
	rank = r < 1 ? 1 : (size_t)r;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void bb_summarise(uint64_t *v, size_t n, struct bb_summary *s)
{
	unsigned __int128 sum = 0;
	size_t i;

	s->n = n;
	s->min = s->max = s->mean = 0;
	for (i = 0; i < BB_NPCT; i++)
		s->pct[i] = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->max = v[n - 1];
	s->mean = (uint64_t)((sum + n / 2) / n);	/* rounded half up */
	for (i = 0; i < BB_NPCT; i++)
		s->pct[i] = bb_percentile(v, n, bb_pcts[i]);
}

uint64_t bb_usage_bound(uint64_t quota, uint64_t period, uint64_t burst, uint64_t elapsed)
{
	uint64_t periods;

	if (!quota || !period)
		return UINT64_MAX;	/* no limit */
	periods = elapsed / period + (elapsed % period ? 1 : 0) + 1;
	return quota * periods + burst;
}

/*
 * The window's end is a floor, not the last completion alone: a run that
 * keeps up serves its last batch soon after it is due, before the window
 * closes one interval later, and dividing N batches by the N - 1 intervals
 * and a bit that took would report more than was asked for. With the
 * floor a run that keeps up shows its requested rate, and a run that
 * falls behind, whose last request completes after the window, the rate
 * it actually served. The start is when the first batch was due, as
 * latency counts from when a request was due: a late message thread
 * delays completions and so lowers the rate too.
 */
uint64_t bb_served_ns(uint64_t start, uint64_t end, uint64_t last_done)
{
	uint64_t until = last_done > end ? last_done : end;

	return until > start ? until - start : 0;
}

double bb_achieved_rps(uint64_t completed, uint64_t elapsed)
{
	return elapsed ? completed / (elapsed / 1e9) : 0;
}
