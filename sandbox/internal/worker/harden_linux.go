//go:build linux

package worker

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// workerCloneFlags are the namespaces a worker starts in: its own user
// (no privilege over the host), network (no interface but a down
// loopback), mount (to see an empty file system), PID, IPC and UTS.
const workerCloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS |
	syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// hardenCmd makes the worker die with its parent (Pdeathsig; the kernel
// sends it when the thread that started the worker ends, and the worker
// also checks its parent at start), and, when namespaces is true, start in
// new namespaces with its user mapped to the parent's.
func hardenCmd(cmd *exec.Cmd, namespaces bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Pdeathsig = syscall.SIGKILL
	if namespaces {
		a.Cloneflags |= workerCloneFlags
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
}

// closeInheritedFDs closes every descriptor above 2 that the worker
// inherited (a host's descriptors without close-on-exec), keeping only the
// Go runtime's own poller descriptors. It runs first thing in the worker.
func closeInheritedFDs() {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	self := int(d.Fd())
	d.Close()
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		link, _ := os.Readlink("/proc/self/fd/" + n)
		switch link {
		case "anon_inode:[eventpoll]", "anon_inode:[eventfd]": // the runtime's poller
			continue
		}
		_ = syscall.Close(fd)
	}
}

// checkParent exits when the worker's parent is already gone (it died
// before Pdeathsig was armed) or is not the one that started it.
func checkParent(want int) {
	if want > 0 && os.Getppid() != want && os.Getpid() != 1 {
		os.Exit(3)
	}
}

// confine gives a worker in its own user and mount namespaces an empty,
// read-only file system: a private tmpfs over its working directory, made
// its root.
func confine(dir string) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	flags := uintptr(syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, "size=4k,mode=555"); err != nil {
		return fmt.Errorf("mount an empty tmpfs: %w", err)
	}
	if err := syscall.Chroot(dir); err != nil {
		return fmt.Errorf("chroot: %w", err)
	}
	return syscall.Chdir("/")
}

// limitCPU sets RLIMIT_CPU to the CPU time used so far plus budget, so that
// a run that spins past its time limit (in every thread) ends even without
// the parent's kill.
func limitCPU(budget time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	cur := uint64((used+budget)/time.Second) + 1
	if cur < lim.Max {
		lim.Cur = cur
		_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
	}
}
