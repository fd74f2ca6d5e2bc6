// Run inside the sandbox next to layoutd, to show the sandbox enforces what it claims:
// prints one line per check, then makes a syscall outside @system-service (swapoff), which
// must kill it with SIGSYS.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    void *writable_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap-wx %s\n", writable_code == MAP_FAILED ? strerror(errno) : "allowed");
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mprotect-x %s\n", mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0 ? strerror(errno) : "allowed");
    int inet = socket(AF_INET, SOCK_STREAM, 0);
    printf("socket-inet %s\n", inet < 0 ? strerror(errno) : "allowed");
    int local = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("socket-unix %s\n", local < 0 ? strerror(errno) : "allowed");
    printf("uid %d\n", (int)getuid());
    fflush(stdout);
    syscall(SYS_swapoff, "/nonexistent");
    printf("swapoff survived\n");
    return 0;
}
