/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: the run.oci.cpu.burst annotation, given to
 * libcrun_cpu_burst_from_annotation (src/libcrun/cpu-burst.c, from
 * crun-patches/burst-annotation-run-oci-cpu-burst.patch) the way
 * libcrun_apply_cpu_burst_annotation does: the annotation's value, the
 * container's Kubernetes name or none, its CPU quota (any int64: absent is 0,
 * and nothing stops a negative one).
 *
 * Input, three parts split at the first two newlines so that seeds read
 * like the table of oci-spec/annotation.md:
 *     QUOTA \n NAME \n ANNOTATION
 * QUOTA is read by strtoll (saturated; anything else is 0), NAME `(none)`
 * stands for a container without a name annotation, and the annotation is
 * the rest, newlines included.  With fewer than two newlines the whole input
 * is the annotation, for a container without name or quota.  Each string
 * ends at its first NUL, as the C strings crun gets from the JSON do.
 *
 * Checks, beyond "no crash, no leak":
 *   - the answer is the specification's (burst-spec.h): set or not, the
 *     same burst, refused for the same fault, reported at the same entry;
 *   - an accepted value is at most 17592186044415us, the kernel's limit;
 *   - the error is set if and only if the annotation is refused, and the
 *     burst is written only when the return says it is set;
 *   - a second call gives the same answer (nothing depends on memory the
 *     first one left uninitialised).
 */

#define _GNU_SOURCE

#include <config.h>
#include <libcrun/cpu-burst.h>
#include <libcrun/error.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "burst-spec.h"

_Static_assert (LIBCRUN_CPU_BURST_MAX_US == SPEC_MAX_US, "crun's burst limit is not the kernel's");

/* Written where no burst is set: a value crun can never give.  */
#define UNTOUCHED 0xdeadbeefdeadbeefULL

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
run (const char *annotation, const char *name, int64_t quota, uint64_t *burst, char **msg)
{
  libcrun_error_t err = NULL;
  int ret;

  *burst = UNTOUCHED;
  ret = libcrun_cpu_burst_from_annotation (annotation, name, quota, burst, &err);
  if ((ret < 0) != (err != NULL))
    spec_fail ("returned %d with %s error", ret, err ? "an" : "no");
  if (ret != 1 && *burst != UNTOUCHED)
    spec_fail ("returned %d but wrote a burst of %" PRIu64, ret, *burst);
  if (ret == 1 && *burst > SPEC_MAX_US)
    spec_fail ("accepted a burst of %" PRIu64 "us, above the kernel's limit", *burst);
  *msg = err ? strdup (err->msg) : NULL;
  crun_error_release (&err);
  return ret;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *input = malloc (size + 1);
  char *annotation = input, *name = NULL, *first, *second, *msg = NULL, *msg2 = NULL, *prefix = NULL;
  int64_t quota = 0;
  uint64_t burst, burst2;
  struct spec_result want;
  int ret, ret2;

  if (input == NULL)
    abort ();
  memcpy (input, data, size);
  input[size] = '\0';
  first = memchr (input, '\n', size);
  second = first ? memchr (first + 1, '\n', size - (first + 1 - input)) : NULL;
  if (second)
    {
      *first = *second = '\0';
      quota = strtoll (input, NULL, 10);
      name = strcmp (first + 1, "(none)") == 0 ? NULL : first + 1;
      annotation = second + 1;
    }

  ret = run (annotation, name, quota, &burst, &msg);
  want = spec_annotation (annotation, name, quota);

  if (ret != want.ret && ! (ret < 0 && want.ret < 0))
    spec_fail ("annotation `%s`, name %s, quota %" PRIi64 ": crun returns %d (%s), the specification %d",
               annotation, name ? name : "(none)", quota, ret, msg ? msg : "no error", want.ret);
  if (ret == 1 && burst != want.burst)
    spec_fail ("annotation `%s`, name %s, quota %" PRIi64 ": crun sets %" PRIu64 "us, the specification %" PRIu64
               "us",
               annotation, name ? name : "(none)", quota, burst, want.burst);
  if (ret < 0)
    {
      if (asprintf (&prefix, "invalid annotation `run.oci.cpu.burst=%s`: ", annotation) < 0)
        abort ();
      spec_check_message (msg, prefix, want.entry, want.fault, want.also);
    }

  ret2 = run (annotation, name, quota, &burst2, &msg2);
  if (ret2 != ret || (ret == 1 && burst2 != burst) || (msg && strcmp (msg, msg2) != 0))
    spec_fail ("annotation `%s`: a second call answers differently", annotation);

  free (prefix);
  free (msg);
  free (msg2);
  free (input);
  return 0;
}
