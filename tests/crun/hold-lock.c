/* hold-lock DIR SECONDS MARKER: take the flock(2) crun takes on a
   container's state directory (libcrun_status_lock), create the file
   MARKER once it holds it, hold it for SECONDS, remove MARKER and exit.  busybox has no flock applet;
   the crun guest suite uses this to show that `crun update` waits for the
   lock.  */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int fd;

  if (argc != 4)
    {
      fprintf (stderr, "usage: hold-lock DIR SECONDS MARKER\n");
      return 2;
    }
  fd = open (argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || flock (fd, LOCK_EX) < 0)
    {
      perror (argv[1]);
      return 1;
    }
  close (open (argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  sleep (atoi (argv[2]));
  unlink (argv[3]);
  return 0;
}
