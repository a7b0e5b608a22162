/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: one burst value, 1*DIGIT [ "us" / "ms" / "s" / "%" ]:
 * microseconds, a duration with a unit, or a percentage of the quota.
 * Both the annotation and `crun update --cpu-burst` read it with
 * parse_burst_value (src/libcrun/cpu-burst.c, from
 * crun-patches/burst-annotation-run-oci-cpu-burst.patch), which is static:
 * this file includes cpu-burst.c to call it, without changing the patch.
 * Then this object defines every symbol of cpu-burst.o, and the linker
 * leaves libcrun's copy in the archive.
 *
 * Input: the low bit of the first byte says whether a percentage is
 * allowed (the annotation: yes; --cpu-burst: no), the other bytes are the
 * value.  They are passed as they are, with their length and no NUL after
 * them, as parse_burst_list passes one piece of a longer string: a read
 * past them is an AddressSanitizer report (libFuzzer and the replay both
 * hold the input in a buffer of exactly its size).
 *
 * Checks: the answer is the specification's (burst-spec.h): the same
 * microseconds or percentage, or refused for the same fault; a duration
 * is at most 17592186044415us; a percentage comes back only where one is
 * allowed; the error is set if and only if the value is refused.
 */

#include "libcrun/cpu-burst.c"

#include "burst-spec.h"

#include <stdint.h>

_Static_assert (LIBCRUN_CPU_BURST_MAX_US == SPEC_MAX_US, "crun's burst limit is not the kernel's");

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct burst_value got = { 0, false };
  libcrun_error_t err = NULL;
  struct spec_value want;
  bool allow_percent;
  const char *value;
  size_t len;
  int ret;

  if (size == 0)
    return 0;
  allow_percent = data[0] & 1;
  value = (const char *) data + 1;
  len = size - 1;

  ret = parse_burst_value (value, len, allow_percent, &got, &err);
  want = spec_parse_value (value, len, allow_percent);

  if (ret != 0 && ret != -1)
    spec_fail ("returned %d", ret);
  if ((ret < 0) != (err != NULL))
    spec_fail ("returned %d with %s error", ret, err ? "an" : "no");
  if ((ret == 0) != (want.fault == SPEC_OK))
    spec_fail ("`%.*s` (percent %s): crun %s it (%s), the specification %s it", (int) len, value,
               allow_percent ? "allowed" : "refused", ret == 0 ? "accepts" : "refuses", err ? err->msg : "",
               want.fault == SPEC_OK ? "accepts" : "refuses");
  if (ret == 0)
    {
      if (got.percent && ! allow_percent)
        spec_fail ("`%.*s`: a percentage where none is allowed", (int) len, value);
      if (! got.percent && got.value > SPEC_MAX_US)
        spec_fail ("`%.*s`: %" PRIu64 "us is above the kernel's limit", (int) len, value, got.value);
      if (got.percent != want.percent || got.value != want.value)
        spec_fail ("`%.*s`: crun reads %" PRIu64 "%s, the specification %" PRIu64 "%s", (int) len, value, got.value,
                   got.percent ? "%" : "us", want.value, want.percent ? "%" : "us");
    }
  else
    spec_check_message (err->msg, "", 0, want.fault, want.also);

  crun_error_release (&err);
  return 0;
}
