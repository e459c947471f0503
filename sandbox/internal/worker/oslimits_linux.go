//go:build linux

package worker

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// setProcessLimits sets the worker's own resource limits, before it reads
// any code.
func setProcessLimits(ws workerSettings) error {
	set := func(res int, v uint64) error {
		return syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v})
	}
	if err := set(syscall.RLIMIT_CORE, 0); err != nil {
		return fmt.Errorf("RLIMIT_CORE: %w", err)
	}
	if err := set(syscall.RLIMIT_NOFILE, 64); err != nil {
		return fmt.Errorf("RLIMIT_NOFILE: %w", err)
	}
	if ws.AddressSpace && ws.AddressBudget > 0 {
		// An idle Go process already maps about a gigabyte of address space
		// it never touches, so the limit is what is mapped now plus the
		// budget, not the budget alone.
		base, err := vmSize()
		if err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
		if err := set(syscall.RLIMIT_AS, base+uint64(ws.AddressBudget)); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	return nil
}

// vmSize is the process's mapped address space, from /proc/self/status.
func vmSize() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}

// cgroupPool creates one cgroup v2 child per worker under a delegated
// directory whose subtree has the memory controller.
type cgroupPool struct {
	dir string
	seq atomic.Uint64
}

// findCgroupParent returns a usable cgroup v2 parent directory, or "" when
// there is none (cgroup v1, no memory controller delegated, or no write
// permission).
func findCgroupParent(explicit string) string {
	dirs := []string{explicit}
	if explicit == "" {
		dirs = ownCgroupDirs()
	}
	for _, d := range dirs {
		if d != "" && cgroupUsable(d) {
			return d
		}
	}
	return ""
}

// ownCgroupDirs is this process's cgroup v2 directory.
func ownCgroupDirs() []string {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var rel string
	for _, line := range strings.Split(string(raw), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if rel == "" {
		return nil
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(mounts), "\n") {
		// … mountpoint … - cgroup2 …
		fields := strings.Fields(line)
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(fields) || fields[sep+1] != "cgroup2" || len(fields) < 5 {
			continue
		}
		out = append(out, filepath.Join(fields[4], rel))
	}
	return out
}

func cgroupUsable(dir string) bool {
	ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil || !containsWord(ctl, "memory") {
		return false
	}
	probe := filepath.Join(dir, fmt.Sprintf("loom-sandbox-probe-%d", os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false
	}
	defer os.Remove(probe)
	_, err = os.Stat(filepath.Join(probe, "memory.max"))
	return err == nil
}

func containsWord(b []byte, w string) bool {
	for _, f := range bytes.Fields(b) {
		if string(f) == w {
			return true
		}
	}
	return false
}

// create makes a child cgroup with the memory limit and returns its path.
func (p *cgroupPool) create(memMax int64) (string, error) {
	dir := filepath.Join(p.dir, fmt.Sprintf("loom-sandbox-%d-%d", os.Getpid(), p.seq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(memMax, 10)), 0); err != nil {
		_ = os.Remove(dir)
		return "", err
	}
	_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
	return dir, nil
}

// startInCgroup makes cmd start inside dir.
func startInCgroup(cmd *exec.Cmd, dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = int(f.Fd())
	return func() { f.Close() }, nil
}

// oomKilled reports whether the kernel killed a process of the cgroup for
// memory.
func oomKilled(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok && strings.TrimSpace(n) != "0" {
			return true
		}
	}
	return false
}

// removeCgroup deletes a worker's cgroup once its process is gone.
func removeCgroup(dir string) {
	_ = os.Remove(dir)
}
