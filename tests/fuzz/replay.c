/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay of a corpus for `make check-fuzz`: linked, instead of
 * libFuzzer, with one harness and AddressSanitizer and
 * UndefinedBehaviorSanitizer, it runs the harness once on each file named
 * (a directory: on each file in it, in name order), in a child process:
 * all of them in one child, and when that one fails (a broken invariant, a
 * sanitizer report, a leak found at exit), each in a child of its own, so
 * that every input at fault is named and the others still run.  libFuzzer's
 * own replay stops at the first failure and says less.
 *
 * Output, one line per input, which tests/fuzz/run.sh numbers into TAP:
 *     ok PATH
 *     not ok PATH (how it ended)
 * Exit status: 0 when every input passed, 1 otherwise, 2 on a usage error.
 */

#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int failed;

/* The inputs, in the order given.  */
static char **paths;
static size_t n_paths;

static void
add_path (const char *path)
{
  paths = realloc (paths, (n_paths + 1) * sizeof (*paths));
  if (paths == NULL || (paths[n_paths] = strdup (path)) == NULL)
    {
      perror ("replay");
      exit (2);
    }
  n_paths++;
}

/* Read PATH whole into a buffer of exactly its size, so that a harness
   reading past its input is caught here as under libFuzzer.  */
static uint8_t *
read_input (const char *path, size_t *size)
{
  FILE *f = fopen (path, "rb");
  uint8_t *buf;
  long len;

  if (f == NULL || fseek (f, 0, SEEK_END) < 0 || (len = ftell (f)) < 0 || fseek (f, 0, SEEK_SET) < 0)
    {
      if (f)
        fclose (f);
      return NULL;
    }
  buf = malloc (len > 0 ? (size_t) len : 1);
  if (buf == NULL || fread (buf, 1, (size_t) len, f) != (size_t) len)
    {
      free (buf);
      fclose (f);
      return NULL;
    }
  fclose (f);
  *size = (size_t) len;
  return buf;
}

/* In a child: run the harness on paths[FIRST, LAST), then exit, 0 when it
   got there (LeakSanitizer checks at exit: exit, not _exit).  With QUIET,
   the child's reports go nowhere: a failing batch is replayed input by
   input, which reports.  Returns how the child ended: 0 fine, else a
   description in WHY.  */
static int
run_child (size_t first, size_t last, bool quiet, char *why, size_t why_len)
{
  int status;
  pid_t pid;

  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid < 0)
    {
      snprintf (why, why_len, "fork: %s", strerror (errno));
      return -1;
    }
  if (pid == 0)
    {
      size_t i;

      if (quiet)
        {
          int null = open ("/dev/null", O_WRONLY);

          if (null >= 0)
            dup2 (null, 2);
        }
      for (i = first; i < last; i++)
        {
          uint8_t *data;
          size_t size = 0;

          data = read_input (paths[i], &size);
          if (data == NULL)
            {
              fprintf (stderr, "replay: cannot read %s: %s\n", paths[i], strerror (errno));
              exit (3);
            }
          LLVMFuzzerTestOneInput (data, size);
          free (data);
        }
      exit (0);
    }

  if (waitpid (pid, &status, 0) < 0)
    snprintf (why, why_len, "waitpid: %s", strerror (errno));
  else if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  else if (WIFSIGNALED (status))
    snprintf (why, why_len, "killed by signal %d", WTERMSIG (status));
  else if (WEXITSTATUS (status) == 3)
    snprintf (why, why_len, "cannot read it");
  else
    snprintf (why, why_len, "exit status %d", WEXITSTATUS (status));
  return -1;
}

static int
by_name (const struct dirent **a, const struct dirent **b)
{
  return strcmp ((*a)->d_name, (*b)->d_name);
}

int
main (int argc, char **argv)
{
  char why[128];
  struct stat st;
  size_t i;
  int a, j, n;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE|DIR...\n", argv[0]);
      return 2;
    }

  for (a = 1; a < argc; a++)
    {
      struct dirent **entries;

      if (stat (argv[a], &st) < 0)
        {
          printf ("not ok %s (%s)\n", argv[a], strerror (errno));
          failed++;
          continue;
        }
      if (! S_ISDIR (st.st_mode))
        {
          add_path (argv[a]);
          continue;
        }
      n = scandir (argv[a], &entries, NULL, by_name);
      if (n < 0)
        {
          printf ("not ok %s (%s)\n", argv[a], strerror (errno));
          failed++;
          continue;
        }
      for (j = 0; j < n; j++)
        {
          char *path;

          if (entries[j]->d_name[0] != '.' && asprintf (&path, "%s/%s", argv[a], entries[j]->d_name) >= 0)
            {
              if (stat (path, &st) == 0 && S_ISREG (st.st_mode))
                add_path (path);
              free (path);
            }
          free (entries[j]);
        }
      free (entries);
    }

  /* All the inputs in one child first: a process, and a leak check, per
     input costs a tenth of a second under the sanitizers.  Only when that
     fails, one child per input, to tell which.  */
  if (n_paths > 0 && run_child (0, n_paths, true, why, sizeof (why)) == 0)
    for (i = 0; i < n_paths; i++)
      printf ("ok %s\n", paths[i]);
  else if (n_paths > 0)
    {
      int before = failed;

      for (i = 0; i < n_paths; i++)
        {
          if (run_child (i, i + 1, false, why, sizeof (why)) == 0)
            printf ("ok %s\n", paths[i]);
          else
            {
              printf ("not ok %s (%s)\n", paths[i], why);
              failed++;
            }
        }
      if (failed == before)
        {
          printf ("not ok all of them in one process (each alone passes: state carried from one input to the next)\n");
          failed++;
        }
    }

  for (i = 0; i < n_paths; i++)
    free (paths[i]);
  free (paths);
  return failed ? 1 : 0;
}
