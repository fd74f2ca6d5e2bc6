/* layoutd-bench-valgrind-sigsuspend.so: lets layoutd run under valgrind (the benchmark's
 * callgrind pass), loaded with LD_PRELOAD.
 *
 * dispatchMain() on Linux parks the main thread in libdispatch's _dispatch_sigsuspend, which
 * passes sigsuspend a `static const sigset_t` (read-only memory). Valgrind's sigsuspend wrapper
 * edits the mask in place to keep its own signals deliverable, so it faults on the read-only
 * page and valgrind dies ("the 'impossible' happened", SIGSEGV inside callgrind). This wrapper
 * hands the real sigsuspend a writable copy of the same mask; the daemon's behaviour is
 * unchanged, and the main thread, which never serves a request, costs nothing measured. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>

int sigsuspend(const sigset_t *mask) {
    static int (*real)(const sigset_t *);
    if (!real) {
        real = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
        if (!real) {
            errno = ENOSYS;
            return -1;
        }
    }
    sigset_t copy = *mask;
    return real(&copy);
}
