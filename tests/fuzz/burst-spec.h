/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A second implementation of the CPU burst values, written from their
 * specification (oci-spec/annotation.md: the ABNF, the precedence rules and
 * the error table; crun.1's --cpu-burst), not from crun's parser.  The
 * harnesses run both on every input and require the same answer: accepted
 * or refused, the same burst, and an error that names the same fault.  A
 * difference is a bug in one of them, and the specification says which.
 *
 * It counts with 128-bit integers and saturates, so it has no overflow
 * cases of its own: a number of 20 digits or more is just "too large".
 */

#ifndef BURST_SPEC_H
#define BURST_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The kernel's limit, as the specification states it.  */
#define SPEC_MAX_US 17592186044415ULL

enum spec_fault
{
  SPEC_OK = 0,
  SPEC_EMPTY,           /* no value at all */
  SPEC_NEGATIVE,        /* starts with `-` */
  SPEC_NOT_NUMBER,      /* does not start with a digit */
  SPEC_FRACTION,        /* digits, then `.` */
  SPEC_PERCENT_REFUSED, /* `%` where only microseconds are taken */
  SPEC_UNKNOWN_UNIT,    /* digits, then anything but us, ms, s (or %) */
  SPEC_TOO_LARGE,       /* more than SPEC_MAX_US microseconds */
  SPEC_ENTRY_EMPTY,     /* list: nothing between two commas */
  SPEC_ENTRY_NO_EQUAL,  /* list: an entry without `=` */
  SPEC_ENTRY_NO_NAME,   /* list: nothing before `=` */
  SPEC_ENTRY_BAD_NAME,  /* list: a character a name may not have */
  SPEC_ENTRY_TWICE,     /* list: a container named by two entries */
  SPEC_QUOTA_TOO_LARGE, /* a percentage of the quota past SPEC_MAX_US */
};

/* What each fault's message says, from the error table of annotation.md.  */
static inline const char *
spec_fault_text (enum spec_fault fault)
{
  switch (fault)
    {
    case SPEC_OK:
      return "";
    case SPEC_EMPTY:
      return "empty value";
    case SPEC_NEGATIVE:
      return "is negative";
    case SPEC_NOT_NUMBER:
      return "is not a number";
    case SPEC_FRACTION:
      return "has a fraction";
    case SPEC_PERCENT_REFUSED:
      return "is a percentage";
    case SPEC_UNKNOWN_UNIT:
      return "unknown unit";
    case SPEC_TOO_LARGE:
      return "is too large";
    case SPEC_ENTRY_EMPTY:
      return "is empty";
    case SPEC_ENTRY_NO_EQUAL:
      return "has no `=`";
    case SPEC_ENTRY_NO_NAME:
      return "has no container name";
    case SPEC_ENTRY_BAD_NAME:
      return "is not a container name";
    case SPEC_ENTRY_TWICE:
      return "is already given by entry";
    case SPEC_QUOTA_TOO_LARGE:
      return "% of the CPU quota";
    }
  return "?";
}

struct spec_value
{
  enum spec_fault fault;
  /* A second fault that is as right as FAULT: a number too large for 64
     bits may be refused as too large before its unit is looked at.  The
     specification does not order the two, so either will do.  */
  enum spec_fault also;
  bool percent;
  uint64_t value; /* microseconds, or the percentage */
};

static inline bool
spec_blank (char c)
{
  return c == ' ' || c == '\t';
}

static inline bool
spec_digit (char c)
{
  return c >= '0' && c <= '9';
}

static inline bool
spec_name_char (char c)
{
  return spec_digit (c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.';
}

/* Drop the blanks at both ends of [*S, *S + *LEN).  */
static inline void
spec_trim (const char **s, size_t *len)
{
  while (*len > 0 && spec_blank (**s))
    {
      (*s)++;
      (*len)--;
    }
  while (*len > 0 && spec_blank ((*s)[*len - 1]))
    (*len)--;
}

/* value = 1*DIGIT [ "us" / "ms" / "s" / "%" ], on exactly [S, S + LEN),
   blanks included (the callers trim where the grammar allows blanks).  */
static inline struct spec_value
spec_parse_value (const char *s, size_t len, bool allow_percent)
{
  struct spec_value v = { SPEC_OK, SPEC_OK, false, 0 };
  const unsigned __int128 saturated = (unsigned __int128) 1 << 100;
  unsigned __int128 n = 0, scale;
  const char *unit;
  size_t i, unit_len;

  if (len == 0)
    {
      v.fault = SPEC_EMPTY;
      return v;
    }
  if (s[0] == '-')
    {
      v.fault = SPEC_NEGATIVE;
      return v;
    }
  if (! spec_digit (s[0]))
    {
      v.fault = SPEC_NOT_NUMBER;
      return v;
    }

  for (i = 0; i < len && spec_digit (s[i]); i++)
    {
      n = n * 10 + (unsigned) (s[i] - '0');
      if (n > saturated)
        n = saturated;
    }
  if (n > UINT64_MAX)
    v.also = SPEC_TOO_LARGE;

  unit = s + i;
  unit_len = len - i;
  if (unit_len == 0 || (unit_len == 2 && memcmp (unit, "us", 2) == 0))
    scale = 1;
  else if (unit_len == 2 && memcmp (unit, "ms", 2) == 0)
    scale = 1000;
  else if (unit_len == 1 && unit[0] == 's')
    scale = 1000000;
  else if (unit_len == 1 && unit[0] == '%')
    {
      /* The specification bounds the burst, not the percentage; one that
         does not even fit in 64 bits is refused as too large, also for a
         container without a quota (which any other percentage leaves
         alone).  Our reading, and what crun does.  */
      if (! allow_percent)
        v.fault = SPEC_PERCENT_REFUSED;
      else if (n > UINT64_MAX)
        v.fault = SPEC_TOO_LARGE;
      else
        {
          v.percent = true;
          v.value = (uint64_t) n;
        }
      return v;
    }
  else
    {
      v.fault = unit[0] == '.' ? SPEC_FRACTION : SPEC_UNKNOWN_UNIT;
      return v;
    }

  if (n * scale > SPEC_MAX_US)
    {
      v.fault = SPEC_TOO_LARGE;
      v.also = SPEC_OK;
      return v;
    }
  v.also = SPEC_OK;
  v.value = (uint64_t) (n * scale);
  return v;
}

/* The value of `crun update --cpu-burst VALUE`: blanks around it are
   ignored, no percentage.  */
static inline struct spec_value
spec_flag (const char *s)
{
  size_t len = strlen (s);

  spec_trim (&s, &len);
  return spec_parse_value (s, len, false);
}

struct spec_result
{
  int ret; /* 1: sets BURST, 0: sets nothing, -1: refused */
  uint64_t burst;
  enum spec_fault fault, also;
  int entry; /* the list entry at fault, from 1; 0 for the whole value */
};

/* What the annotation sets for the container NAME (NULL: it has no name)
   whose quota is QUOTA.  */
static inline struct spec_result
spec_annotation (const char *annotation, const char *name, int64_t quota)
{
  struct spec_result r = { 0, 0, SPEC_OK, SPEC_OK, 0 };
  struct spec_value chosen = { SPEC_OK, SPEC_OK, false, 0 };
  bool found = false;
  unsigned __int128 burst;

  /* "A list is recognised by a `=` or a `,` anywhere in the annotation."  */
  if (strchr (annotation, '=') == NULL && strchr (annotation, ',') == NULL)
    {
      const char *s = annotation;
      size_t len = strlen (s);

      spec_trim (&s, &len);
      chosen = spec_parse_value (s, len, true);
      if (chosen.fault != SPEC_OK)
        {
          r.ret = -1;
          r.fault = chosen.fault;
          r.also = chosen.also;
          return r;
        }
      found = true;
    }
  else
    {
      /* list = entry *( "," entry ); every entry is checked, in order.  */
      const char *entry = annotation;
      int index;

      for (index = 1;; index++)
        {
          const char *comma = strchr (entry, ',');
          size_t entry_len = comma ? (size_t) (comma - entry) : strlen (entry);
          const char *equal = memchr (entry, '=', entry_len);
          const char *n, *v, *earlier;
          size_t n_len, v_len, i;
          struct spec_value value;
          int earlier_index;

          r.entry = index;
          r.ret = -1;
          {
            const char *t = entry;
            size_t t_len = entry_len;

            spec_trim (&t, &t_len);
            if (t_len == 0)
              {
                r.fault = SPEC_ENTRY_EMPTY;
                return r;
              }
          }
          if (equal == NULL)
            {
              r.fault = SPEC_ENTRY_NO_EQUAL;
              return r;
            }
          n = entry;
          n_len = equal - entry;
          spec_trim (&n, &n_len);
          if (n_len == 0)
            {
              r.fault = SPEC_ENTRY_NO_NAME;
              return r;
            }
          for (i = 0; i < n_len; i++)
            if (! spec_name_char (n[i]))
              {
                r.fault = SPEC_ENTRY_BAD_NAME;
                return r;
              }

          /* A name given by an earlier entry: scan them again.  */
          earlier = annotation;
          for (earlier_index = 1; earlier_index < index; earlier_index++)
            {
              const char *e_equal = strchr (earlier, '=');
              const char *e_n = earlier;
              size_t e_len = e_equal - earlier;

              spec_trim (&e_n, &e_len);
              if (e_len == n_len && memcmp (e_n, n, n_len) == 0)
                {
                  r.fault = SPEC_ENTRY_TWICE;
                  return r;
                }
              earlier = strchr (earlier, ',') + 1;
            }

          v = equal + 1;
          v_len = entry + entry_len - v;
          spec_trim (&v, &v_len);
          value = spec_parse_value (v, v_len, true);
          if (value.fault != SPEC_OK)
            {
              r.fault = value.fault;
              r.also = value.also;
              return r;
            }

          if (name != NULL && strlen (name) == n_len && memcmp (name, n, n_len) == 0)
            {
              chosen = value;
              found = true;
            }

          if (comma == NULL)
            break;
          entry = comma + 1;
        }
      r.entry = 0;
      r.ret = 0;
    }

  /* "A list sets nothing for a container it does not name."  */
  if (! found)
    return r;

  if (! chosen.percent)
    {
      r.ret = 1;
      r.burst = chosen.value;
      return r;
    }

  /* "A percentage for a container without a quota sets nothing."  */
  if (quota <= 0)
    return r;

  /* "150% is 1.5 x quota, rounded down to a microsecond."  */
  burst = (unsigned __int128) (uint64_t) quota * chosen.value / 100;
  if (burst > SPEC_MAX_US)
    {
      r.ret = -1;
      r.fault = SPEC_QUOTA_TOO_LARGE;
      return r;
    }
  r.ret = 1;
  r.burst = (uint64_t) burst;
  return r;
}

/* Checks.  */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A broken invariant: say which, then abort, which libFuzzer and the replay
   both report as a failure with the input that caused it.  */
static inline void __attribute__ ((noreturn, format (printf, 1, 2)))
spec_fail (const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "\n*** invariant broken: ");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, "\n");
  abort ();
}

/* MSG must be PREFIX, then for a fault of a list entry `entry N` and a
   space or a colon, then somewhere what FAULT (or ALSO) says.  */
static inline void
spec_check_message (const char *msg, const char *prefix, int entry, enum spec_fault fault, enum spec_fault also)
{
  const char *rest;

  if (msg == NULL || msg[0] == '\0')
    spec_fail ("refused without a message");
  if (strncmp (msg, prefix, strlen (prefix)) != 0)
    spec_fail ("message `%s` does not start with `%s`", msg, prefix);
  rest = msg + strlen (prefix);
  if (entry > 0)
    {
      char want[32];
      size_t want_len = (size_t) snprintf (want, sizeof (want), "entry %d", entry);

      if (strncmp (rest, want, want_len) != 0 || (rest[want_len] != ' ' && rest[want_len] != ':'))
        spec_fail ("message `%s` does not name entry %d first", msg, entry);
    }
  if (strstr (rest, spec_fault_text (fault)) == NULL
      && (also == SPEC_OK || strstr (rest, spec_fault_text (also)) == NULL))
    spec_fail ("message `%s` does not say `%s`", msg, spec_fault_text (fault));
}

#endif
