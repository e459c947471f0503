package worker

import (
	"os"
	"os/exec"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

func TestGCPercent(t *testing.T) {
	cases := []struct {
		name   string
		memory int64
		want   int
	}{
		{"no budget: the default's", 0, 400},
		{"the default budget", jsrt.DefaultMemory, 400},
		{"a large budget is capped", 4 << 30, 400},
		{"128 MB: a goal of 8 MB", 128 << 20, 200},
		{"96 MB: a goal of 6 MB", 96 << 20, 150},
		{"a small budget keeps Go's default", 16 << 20, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, gcPercent(c.memory))
		})
	}
}

// TestWorkerSetsGCPercent checks, in a child process (it sets process
// limits), that a worker's limits set its GOGC from the budget, and that
// a GOGC in its environment (WithWorkerEnv) wins.
func TestWorkerSetsGCPercent(t *testing.T) {
	if mode := os.Getenv("LOOM_TEST_GC_PERCENT"); mode == "" {
		for _, env := range [][]string{{"LOOM_TEST_GC_PERCENT=budget", "GOGC="}, {"LOOM_TEST_GC_PERCENT=env", "GOGC=150"}} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerSetsGCPercent$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "--- PASS: TestWorkerSetsGCPercent")
		}
		return
	}
	require.NoError(t, applyWorkerLimits(workerSettings{Memory: 128 << 20}))
	got := debug.SetGCPercent(100)
	if os.Getenv("LOOM_TEST_GC_PERCENT") == "env" {
		require.Equal(t, 150, got, "GOGC from the environment")
	} else {
		require.Equal(t, 200, got, "GOGC from the budget")
	}
}
