/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: the value of `crun update --cpu-burst VALUE`, from the
 * command line to the resources JSON the update applies
 * (crun-patches/burst-update-cpu-burst-flag.patch).
 *
 * The flag's case of parse_opt in src/update.c is static, and on a refused
 * value it calls libcrun_fail_with_error, which exits: a harness cannot
 * call it.  What it does is three calls, made here the same way:
 * libcrun_parse_cpu_burst (public, src/libcrun/cpu-burst.c) reads the
 * value; on success the burst is printed with "%" PRIu64 and stored as the
 * numeric value cpu.burst; libcrun_update_values_to_json (public,
 * src/libcrun/container.c, split out of libcrun_container_update_from_values
 * by the patch so that it can be tested) builds the JSON, which
 * libcrun_container_update parses with parse_json_file and
 * make_runtime_spec_schema_config_linux_resources; so does this file.
 * Other flags of the same command line, in the cpu section and in another,
 * are sent with it, to check that the burst keeps its place among them.
 *
 * Input: the argument, up to its first NUL (argv has none).
 *
 * Checks: the answer is the specification's (burst-spec.h; blanks around
 * the value are ignored, no percentage); an accepted value is at most
 * 17592186044415us; the error is set if and only if the value is refused,
 * and says why; the JSON parses back to resources whose cpu.burst is the
 * value read and whose other values are the other flags'.
 */

#define _GNU_SOURCE

#include <config.h>
#include <libcrun/container.h>
#include <libcrun/cpu-burst.h>
#include <libcrun/error.h>
#include <libcrun/utils.h>
#include <ocispec/runtime_spec_schema_config_linux.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "burst-spec.h"

_Static_assert (LIBCRUN_CPU_BURST_MAX_US == SPEC_MAX_US, "crun's burst limit is not the kernel's");

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The other flags: --cpu-quota 50000, --cpu-period 100000, --memory 1048576,
   in src/update.c's sections and names.  */
static const struct libcrun_update_value_s others[] = {
  { "cpu", "quota", true, "50000" },
  { "cpu", "period", true, "100000" },
  { "memory", "limit", true, "1048576" },
};
#define N_OTHERS (sizeof (others) / sizeof (others[0]))

/* The update JSON for BURST and the other flags chosen by the bits of
   WHICH, parsed back as libcrun_container_update does.  */
static void
check_json (const char *arg, uint64_t burst, unsigned which)
{
  struct libcrun_update_value_s values[N_OTHERS + 1];
  runtime_spec_schema_config_linux_resources *resources;
  struct parser_context ctx = { 0, stderr };
  parser_error parser_err = NULL;
  libcrun_error_t err = NULL;
  yajl_val tree = NULL;
  char *value, *json;
  size_t len = 0, json_len, i;

  /* As parse_opt does.  */
  xasprintf (&value, "%" PRIu64, burst);
  values[len++] = (struct libcrun_update_value_s) { "cpu", "burst", true, value };
  for (i = 0; i < N_OTHERS; i++)
    if (which & (1u << i))
      values[len++] = others[i];

  if (libcrun_update_values_to_json (values, len, &json, &json_len, &err) < 0)
    spec_fail ("`%s`: no JSON: %s", arg, err->msg);
  if (strlen (json) != json_len)
    spec_fail ("`%s`: the JSON's length is %zu, not %zu", arg, json_len, strlen (json));
  if (parse_json_file (&tree, json, &ctx, &err) < 0)
    spec_fail ("`%s`: the update JSON `%s` does not parse: %s", arg, json, err->msg);
  resources = make_runtime_spec_schema_config_linux_resources (tree, &ctx, &parser_err);
  if (resources == NULL)
    spec_fail ("`%s`: the update JSON `%s` is not resources: %s", arg, json, parser_err ? parser_err : "");
  if (resources->cpu == NULL || ! resources->cpu->burst_present || resources->cpu->burst != burst)
    spec_fail ("`%s`: the update JSON `%s` does not set cpu.burst to %" PRIu64, arg, json, burst);
  if ((resources->cpu->quota_present != ! ! (which & 1)) || (which & 1 && resources->cpu->quota != 50000))
    spec_fail ("`%s`: the update JSON `%s` lost --cpu-quota", arg, json);
  if ((resources->cpu->period_present != ! ! (which & 2)) || (which & 2 && resources->cpu->period != 100000))
    spec_fail ("`%s`: the update JSON `%s` lost --cpu-period", arg, json);
  if ((resources->memory != NULL) != ! ! (which & 4)
      || (resources->memory && (! resources->memory->limit_present || resources->memory->limit != 1048576)))
    spec_fail ("`%s`: the update JSON `%s` lost --memory", arg, json);

  free_runtime_spec_schema_config_linux_resources (resources);
  yajl_tree_free (tree);
  free (parser_err);
  free (json);
  free (value);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *arg = strndup ((const char *) data, size);
  libcrun_error_t err = NULL;
  const uint64_t untouched = 0xdeadbeefdeadbeefULL;
  uint64_t burst = untouched;
  struct spec_value want;
  int ret;

  if (arg == NULL)
    abort ();

  ret = libcrun_parse_cpu_burst (arg, &burst, &err);
  want = spec_flag (arg);

  if (ret != 0 && ret != -1)
    spec_fail ("returned %d", ret);
  if ((ret < 0) != (err != NULL))
    spec_fail ("returned %d with %s error", ret, err ? "an" : "no");
  if ((ret == 0) != (want.fault == SPEC_OK))
    spec_fail ("--cpu-burst `%s`: crun %s it (%s), the specification %s it", arg, ret == 0 ? "accepts" : "refuses",
               err ? err->msg : "", want.fault == SPEC_OK ? "accepts" : "refuses");
  if (ret == 0)
    {
      if (burst > SPEC_MAX_US)
        spec_fail ("--cpu-burst `%s`: %" PRIu64 "us is above the kernel's limit", arg, burst);
      if (burst != want.value)
        spec_fail ("--cpu-burst `%s`: crun reads %" PRIu64 "us, the specification %" PRIu64 "us", arg, burst,
                   want.value);
      /* Which other flags go along: from the length, which costs no input
         and still gives every combination over a corpus.  */
      check_json (arg, burst, (unsigned) (size % 8));
    }
  else
    {
      if (burst != untouched)
        spec_fail ("--cpu-burst `%s`: refused but wrote %" PRIu64, arg, burst);
      spec_check_message (err->msg, "", 0, want.fault, want.also);
    }

  crun_error_release (&err);
  free (arg);
  return 0;
}
