/* Not a layoutd plugin: a shared object whose constructor creates the file MARKER names, so a
 * test can tell whether layoutd ever dlopen()ed it (a constructor runs before any check of the
 * entry point could refuse it). */
#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void mark(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
}
