//go:build !linux

package worker

import (
	"errors"
	"os/exec"
	"sync/atomic"
)

// setProcessLimits is a no-op outside Linux: the worker relies on
// GOMEMLIMIT, the heap watchdog and the parent's kill at the deadline.
func setProcessLimits(workerSettings) error { return nil }

type cgroupPool struct {
	dir string
	seq atomic.Uint64
}

func findCgroupParent(string) string { return "" }

func (p *cgroupPool) create(int64) (string, error) {
	return "", errors.New("cgroups are Linux only")
}

func startInCgroup(*exec.Cmd, string) (func(), error) {
	return nil, errors.New("cgroups are Linux only")
}

func oomKilled(string) bool { return false }

func removeCgroup(string) {}
