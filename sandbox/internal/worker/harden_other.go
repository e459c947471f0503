//go:build !linux

package worker

import (
	"errors"
	"os/exec"
	"time"
)

// Outside Linux a worker gets no namespaces, Pdeathsig or RLIMIT_CPU: it
// relies on the parent's kill at the deadline and on its parent's pipe.

const workerCloneFlags = 0

func hardenCmd(*exec.Cmd, bool) {}

func closeInheritedFDs() {}

func checkParent(int) {}

func confine(string) error { return errors.New("namespaces are Linux only") }

// cpuLimit is RLIMIT_CPU's keeper on Linux; elsewhere the parent's kill is
// the only bound on a run's CPU time.
type cpuLimit struct{}

func (*cpuLimit) ensure(time.Duration) {}
