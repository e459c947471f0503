package worker

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCPULimitStaysAhead checks, in a child process (it lowers the
// process's RLIMIT_CPU), that the limit is set at least a run's budget
// ahead of the CPU time used, and set again only when it may not be.
func TestCPULimitStaysAhead(t *testing.T) {
	if os.Getenv("LOOM_TEST_CPU_LIMIT") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCPULimitStaysAhead$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "LOOM_TEST_CPU_LIMIT=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "--- PASS: TestCPULimitStaysAhead")
		return
	}
	ahead := func() time.Duration {
		var ru syscall.Rusage
		require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		var lim syscall.Rlimit
		require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_CPU, &lim))
		return time.Duration(lim.Cur)*time.Second - time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
	}
	const budget = 3 * time.Second
	var c cpuLimit
	c.ensure(budget)
	require.False(t, c.setAt.IsZero(), "the first run sets the limit")
	require.GreaterOrEqual(t, ahead(), budget)

	set := c.setAt
	c.ensure(budget)
	require.Equal(t, set, c.setAt, "a run right after the last needs no new limit")

	c.ensure(time.Hour)
	require.NotEqual(t, set, c.setAt, "a larger budget sets the limit again")
	require.GreaterOrEqual(t, ahead(), time.Hour)

	c.setAt = c.setAt.Add(-time.Hour)
	set = c.setAt
	c.ensure(budget)
	require.NotEqual(t, set, c.setAt, "after long enough the CPU time is read again")
	require.GreaterOrEqual(t, ahead(), budget)
}
