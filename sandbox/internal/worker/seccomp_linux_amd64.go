package worker

import "golang.org/x/sys/unix"

// archSyscalls are the amd64 calls the Go runtime uses besides the common
// ones.
var archSyscalls = []uintptr{unix.SYS_EPOLL_WAIT, unix.SYS_ARCH_PRCTL, unix.SYS_POLL, unix.SYS_SELECT, unix.SYS_TIME}
