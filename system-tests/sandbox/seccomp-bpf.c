// Writes the two seccomp programs that stand in for layoutd.service's syscall hardening, for
// bwrap --add-seccomp-fd:
//   ALLOW.bpf  SystemCallFilter: only the syscalls named on stdin (one per line, as expanded
//              from `systemd-analyze syscall-filter`); anything else kills the process, so a
//              daemon that survives its workload used nothing outside the set.
//   DENY.bpf   MemoryDenyWriteExecute (no mapping both writable and executable, no mprotect or
//              shmat adding execute), as systemd implements it, and
//              RestrictAddressFamilies=AF_UNIX (socket(2)/socketpair(2) of any other family
//              fail with EAFNOSUPPORT).
// usage: seccomp-bpf ALLOW.bpf DENY.bpf < syscall-names
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

static int export(scmp_filter_ctx ctx, const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0) {
        perror(path);
        return 1;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s ALLOW.bpf DENY.bpf < syscall-names\n", argv[0]);
        return 64;
    }
    scmp_filter_ctx allow = seccomp_init(SCMP_ACT_KILL_PROCESS);
    char name[128];
    int allowed = 0;
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\r\n")] = 0;
        if (!name[0]) continue;
        int number = seccomp_syscall_resolve_name(name);
        if (number == __NR_SCMP_ERROR) continue;  // not a syscall on this architecture
        if (seccomp_rule_add(allow, SCMP_ACT_ALLOW, number, 0) == 0) allowed++;
    }
    fprintf(stderr, "seccomp-bpf: %d syscalls allowed\n", allowed);

    scmp_filter_ctx deny = seccomp_init(SCMP_ACT_ALLOW);
    const unsigned long wx = PROT_WRITE | PROT_EXEC;
    int failed = 0;
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, wx, wx));
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(pkey_mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
    failed |= seccomp_rule_add(deny, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
    if (failed) {
        fprintf(stderr, "seccomp-bpf: could not add the restriction rules\n");
        return 1;
    }
    return export(allow, argv[1]) || export(deny, argv[2]);
}
