#ifndef LAYOUTD_CSYSTEMD_SHIM_H
#define LAYOUTD_CSYSTEMD_SHIM_H
// libsystemd's daemon and journal APIs (Debian: libsystemd-dev).
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#endif
