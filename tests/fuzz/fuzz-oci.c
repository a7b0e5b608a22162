/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: a whole config.json, as `crun create` (and run and
 * restore) reads it: libcrun_container_load_from_memory parses it with
 * libocispec's runtime_spec_schema_config_schema_parse_data (generated from
 * the runtime-spec schema Debian ships, which has linux.resources.cpu.burst),
 * then libcrun_apply_cpu_burst_annotation (src/libcrun/cpu-burst.c, from
 * crun-patches/burst-annotation-run-oci-cpu-burst.patch) fills the field
 * from the run.oci.cpu.burst annotation.
 *
 * Input: the JSON text, up to its first NUL.
 *
 * Checks, against the rules of oci-spec/annotation.md:
 *   - a config that does not parse is refused with an error, and one that
 *     parses has no error;
 *   - without the annotation nothing changes;
 *   - the container's name is containerd's annotation, else CRI-O's; the
 *     quota is linux.resources.cpu.quota (0 when absent); with those the
 *     answer is libcrun_cpu_burst_from_annotation's, which is the
 *     specification's (burst-spec.h, also checked here);
 *   - a refused annotation fails with an error naming the container (its
 *     name, else the id) and the annotation, even when the explicit field
 *     makes it moot, and changes nothing;
 *   - an explicit linux.resources.cpu.burst (even 0) wins: it is kept;
 *   - otherwise a burst the annotation sets is in the field, marked
 *     present, at most 17592186044415us, and the rest of the CPU
 *     resources (quota, period) are as they were; the structures it had to
 *     add are new, those it had are kept.
 */

#define _GNU_SOURCE

#include <config.h>
#include <libcrun/container.h>
#include <libcrun/cpu-burst.h>
#include <libcrun/error.h>
#include <libcrun/utils.h>
#include <ocispec/runtime_spec_schema_config_schema.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "burst-spec.h"

_Static_assert (LIBCRUN_CPU_BURST_MAX_US == SPEC_MAX_US, "crun's burst limit is not the kernel's");

/* The container id crun would name in errors when there is no name.  */
#define ID "fuzz-container-id"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* What the CPU resources looked like.  */
struct cpu_state
{
  void *linux, *resources, *cpu;
  bool burst_present, quota_present, period_present;
  uint64_t burst, period;
  int64_t quota;
};

static struct cpu_state
cpu_state (runtime_spec_schema_config_schema *def)
{
  struct cpu_state s;
  runtime_spec_schema_config_linux_resources_cpu *cpu = NULL;

  memset (&s, 0, sizeof (s));
  s.linux = def->linux;
  if (def->linux)
    s.resources = def->linux->resources;
  if (def->linux && def->linux->resources)
    cpu = def->linux->resources->cpu;
  s.cpu = cpu;
  if (cpu)
    {
      s.burst_present = cpu->burst_present;
      s.burst = cpu->burst;
      s.quota_present = cpu->quota_present;
      s.quota = cpu->quota;
      s.period_present = cpu->period_present;
      s.period = cpu->period;
    }
  return s;
}

static bool
same_cpu_state (const struct cpu_state *a, const struct cpu_state *b)
{
  return a->linux == b->linux && a->resources == b->resources && a->cpu == b->cpu
         && a->burst_present == b->burst_present && a->burst == b->burst && a->quota_present == b->quota_present
         && a->quota == b->quota && a->period_present == b->period_present && a->period == b->period;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *json = strndup ((const char *) data, size);
  libcrun_container_t *container;
  runtime_spec_schema_config_schema *def;
  struct cpu_state before, after;
  const char *annotation, *name;
  libcrun_error_t err = NULL, want_err = NULL;
  uint64_t want_burst = 0;
  struct spec_result spec = { 0, 0, SPEC_OK, SPEC_OK, 0 };
  char *prefix = NULL;
  int ret, want;

  if (json == NULL)
    abort ();

  container = libcrun_container_load_from_memory (json, &err);
  if (container == NULL)
    {
      if (err == NULL)
        spec_fail ("a config that does not load, without an error");
      crun_error_release (&err);
      free (json);
      return 0;
    }
  if (err != NULL)
    spec_fail ("a config that loads, with an error: %s", err->msg);
  def = container->container_def;

  annotation = find_annotation_map (def->annotations, "run.oci.cpu.burst");
  name = find_annotation_map (def->annotations, "io.kubernetes.cri.container-name");
  if (name == NULL)
    name = find_annotation_map (def->annotations, "io.kubernetes.container.name");
  before = cpu_state (def);

  want = 0;
  if (annotation)
    {
      want = libcrun_cpu_burst_from_annotation (annotation, name, before.cpu ? before.quota : 0, &want_burst,
                                                &want_err);
      spec = spec_annotation (annotation, name, before.cpu ? before.quota : 0);
      if ((want < 0 ? -1 : want) != spec.ret || (want == 1 && want_burst != spec.burst))
        spec_fail ("annotation `%s`: crun returns %d (%" PRIu64 "us), the specification %d (%" PRIu64 "us)",
                   annotation, want, want_burst, spec.ret, spec.burst);
      crun_error_release (&want_err);
    }

  ret = libcrun_apply_cpu_burst_annotation (def, ID, &err);
  after = cpu_state (def);

  if (ret != 0 && ret != -1)
    spec_fail ("returned %d", ret);
  if ((ret < 0) != (err != NULL))
    spec_fail ("returned %d with %s error", ret, err ? "an" : "no");

  if (want < 0)
    {
      if (ret >= 0)
        spec_fail ("annotation `%s` (name %s): applied, but it is refused on its own", annotation,
                   name ? name : "(none)");
      if (asprintf (&prefix, "container `%s`: invalid annotation `run.oci.cpu.burst=%s`: ", name ? name : ID,
                    annotation)
          < 0)
        abort ();
      spec_check_message (err->msg, prefix, spec.entry, spec.fault, spec.also);
      if (! same_cpu_state (&before, &after))
        spec_fail ("annotation `%s`: refused, but the CPU resources changed", annotation);
    }
  else if (ret < 0)
    spec_fail ("annotation `%s` (name %s): refused (%s), but it is valid on its own", annotation ? annotation : "",
               name ? name : "(none)", err->msg);
  else if (want == 0 || before.burst_present)
    {
      /* No annotation, none for this container, or the explicit field.  */
      if (! same_cpu_state (&before, &after))
        spec_fail ("annotation `%s`: sets nothing, but the CPU resources changed", annotation ? annotation : "");
    }
  else
    {
      if (after.cpu == NULL || ! after.burst_present || after.burst != want_burst)
        spec_fail ("annotation `%s` (name %s): the field is not set to %" PRIu64 "us", annotation,
                   name ? name : "(none)", want_burst);
      if (after.burst > SPEC_MAX_US)
        spec_fail ("annotation `%s`: %" PRIu64 "us is above the kernel's limit", annotation, after.burst);
      if ((before.linux && after.linux != before.linux) || (before.resources && after.resources != before.resources)
          || (before.cpu && after.cpu != before.cpu))
        spec_fail ("annotation `%s`: the configuration's structures were replaced", annotation);
      if (after.quota_present != before.quota_present || after.quota != before.quota
          || after.period_present != before.period_present || after.period != before.period)
        spec_fail ("annotation `%s`: the quota or the period changed", annotation);
    }

  crun_error_release (&err);
  libcrun_container_free (container);
  free (prefix);
  free (json);
  return 0;
}
