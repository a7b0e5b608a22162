/* watch-cgroup READY STOP FILE...: watch cgroup files while crun runs, for
   the crun guest suite's checks that a refused create or update writes
   nothing.  Every write to a FILE is an inotify IN_MODIFY event (the
   kernel reports a write that returned > 0, however short the value
   lasts); between events the files are read in a loop, and each value they
   take is printed.  From cpu.stat only the pool (`current_bw_usec` on
   cgroup v2, `current_bw` on v1) is kept: "-" on a kernel without one.
   READY is created once the watches are in place and the first values
   read; the watcher stops when STOP exists and prints, for each FILE,
   "FILE: N writes, M values".  busybox has no inotifyd here.  */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 16

struct watched
{
  const char *path;
  int wd;
  char value[128];
  int writes;
  int values;
};

static double
now_ms (const struct timespec *t0)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The value of W: its first line, or cpu.stat's pool.  */
static void
read_value (const struct watched *w, char *out, size_t len)
{
  char buf[4096];
  const char *base = strrchr (w->path, '/');
  ssize_t n;
  char *p;
  int fd;

  snprintf (out, len, "(unreadable)");
  fd = open (w->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  n = read (fd, buf, sizeof (buf) - 1);
  close (fd);
  if (n < 0)
    return;
  buf[n] = '\0';
  base = base ? base + 1 : w->path;
  if (strcmp (base, "cpu.stat") == 0)
    {
      snprintf (out, len, "-");
      for (p = buf; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
        if (strncmp (p, "current_bw_usec ", 16) == 0 || strncmp (p, "current_bw ", 11) == 0)
          {
            snprintf (out, len, "%.*s", (int) strcspn (p, "\n"), p);
            break;
          }
      return;
    }
  snprintf (out, len, "%.*s", (int) strcspn (buf, "\n"), buf);
}

int
main (int argc, char **argv)
{
  struct watched w[MAX_FILES];
  struct timespec t0;
  int nfiles = argc - 3, i, ifd;

  if (argc < 4 || nfiles > MAX_FILES)
    {
      fprintf (stderr, "usage: watch-cgroup READY STOP FILE... (at most %d)\n", MAX_FILES);
      return 2;
    }
  clock_gettime (CLOCK_MONOTONIC, &t0);
  ifd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (ifd < 0)
    {
      perror ("inotify_init1");
      return 1;
    }
  for (i = 0; i < nfiles; i++)
    {
      w[i].path = argv[i + 3];
      w[i].writes = 0;
      w[i].values = 1;
      w[i].wd = inotify_add_watch (ifd, w[i].path, IN_MODIFY);
      if (w[i].wd < 0)
        {
          perror (w[i].path);
          return 1;
        }
      read_value (&w[i], w[i].value, sizeof (w[i].value));
      printf ("%8.2f ms %s: %s\n", now_ms (&t0), w[i].path, w[i].value);
    }
  fflush (stdout);
  close (open (argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));

  for (;;)
    {
      char ev[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
      bool stop = access (argv[2], F_OK) == 0;
      ssize_t n;

      /* Events first: the values read after them show what was written.  */
      while ((n = read (ifd, ev, sizeof (ev))) > 0)
        {
          char *p;

          for (p = ev; p < ev + n; p += sizeof (struct inotify_event) + ((struct inotify_event *) p)->len)
            for (i = 0; i < nfiles; i++)
              if (w[i].wd == ((struct inotify_event *) p)->wd)
                {
                  w[i].writes++;
                  printf ("%8.2f ms %s: written\n", now_ms (&t0), w[i].path);
                }
        }
      for (i = 0; i < nfiles; i++)
        {
          char value[128];

          read_value (&w[i], value, sizeof (value));
          if (strcmp (value, w[i].value) != 0)
            {
              snprintf (w[i].value, sizeof (w[i].value), "%s", value);
              w[i].values++;
              printf ("%8.2f ms %s: %s\n", now_ms (&t0), w[i].path, value);
            }
        }
      if (stop)
        break;
    }
  for (i = 0; i < nfiles; i++)
    printf ("%s: %d writes, %d values\n", w[i].path, w[i].writes, w[i].values);
  return 0;
}
