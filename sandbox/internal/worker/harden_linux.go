//go:build linux

package worker

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

// cpuLimit keeps RLIMIT_CPU at least a run's CPU budget ahead of the CPU
// time the worker has used, so that a run that spins past its time limit
// (in every thread) ends even without the parent's kill. Reading the CPU
// time and setting the limit are three system calls; they are made only
// when the time since the limit was last set could have used up the slack
// above the budget (at most GOMAXPROCS+1 threads burn CPU at once: the
// worker runs no cgo), so back-to-back runs make them about once a second
// instead of every run.
type cpuLimit struct {
	setAt time.Time     // when the limit was last set; zero: never
	ahead time.Duration // the CPU time left under the limit at setAt, at least
}

// cpuSlack is what the limit is set ahead of the budget, so that the next
// runs need not set it again.
const cpuSlack = 2 * time.Second

// ensure makes the limit at least budget ahead of the CPU time used.
func (c *cpuLimit) ensure(budget time.Duration) {
	now := time.Now()
	if !c.setAt.IsZero() {
		threads := time.Duration(runtime.GOMAXPROCS(0) + 1)
		if c.ahead-now.Sub(c.setAt)*threads >= budget {
			return
		}
	}
	c.setAt = time.Time{}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	cur := uint64((used+budget+cpuSlack)/time.Second) + 1
	if cur < lim.Max {
		lim.Cur = cur
		if syscall.Setrlimit(syscall.RLIMIT_CPU, &lim) == nil {
			c.setAt, c.ahead = now, time.Duration(cur)*time.Second-used
		}
	}
}
